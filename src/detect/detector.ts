// The detector: the kinds in force (all but those allowed), their anchors as byte patterns to join an
// automaton, and the confirmation of an anchor hit by the grammar of each kind that uses the anchor.

import { FictaError } from '../errors.ts';
import { compileGrammar, matchGrammar, type CompiledGrammar, type Span } from './grammar.ts';
import type { Emit, Kind } from './kind.ts';
import { KINDS } from './kinds.ts';

export interface DetectorOptions {
  /** Kind names, or exact values, to leave alone (`detect.allow`). */
  allow?: readonly string[];
}

/** Called for each confirmed credential: bytes [start, end) hold it; `kind` indexes {@link KINDS}. */
export type Found = (start: number, end: number, kind: number, value: string) => void;

export interface Detector {
  /** Distinct anchors of the kinds in force, as bytes, in anchor-id order. */
  readonly anchors: readonly Uint8Array[];
  /** Whether any grammar in force can contain the code point (decides whether a `\u` escape may hide a credential). */
  usesCodePoint(cp: number): boolean;
  /** Confirms the hit of anchor `anchor` at buf[start, end); calls `found` for each credential there. */
  confirm(buf: Uint8Array, anchor: number, start: number, end: number, found: Found): void;
}

/** Max number of kinds; a detected secret index encodes its kind in this many slots. */
export const KIND_SLOTS = 512;

const compiled = new Map<Kind, CompiledGrammar[]>();

function grammarsOf(kind: Kind): CompiledGrammar[] {
  let g = compiled.get(kind);
  if (g === undefined) {
    g = (kind.grammars ?? []).map(compileGrammar);
    compiled.set(kind, g);
  }
  return g;
}

/** Builds a detector over every kind not named in `allow`; an allowed name that is no kind is kept as an exact value. */
export function createDetector(options: DetectorOptions = {}): Detector {
  if (KINDS.length > KIND_SLOTS) throw new FictaError('FICTA_DETECT_TOO_MANY_KINDS', 'detect: more kinds than secret-index slots');
  const allowedKinds = new Set<string>();
  const allowedValues = new Set<string>();
  for (const a of options.allow ?? []) (KINDS.some((k) => k.name === a) ? allowedKinds : allowedValues).add(a);

  const anchorIds = new Map<string, number>();
  const anchorKinds: number[][] = [];
  const anchors: Uint8Array[] = [];
  const examples = new Set<string>();
  const ascii = new Uint8Array(128);
  KINDS.forEach((kind, k) => {
    if (allowedKinds.has(kind.name)) return;
    for (const e of kind.examples ?? []) examples.add(e);
    for (const a of kind.anchors) {
      let id = anchorIds.get(a);
      if (id === undefined) {
        id = anchors.length;
        anchorIds.set(a, id);
        anchors.push(Buffer.from(a, 'latin1'));
        anchorKinds.push([]);
      }
      anchorKinds[id]!.push(k);
      for (let i = 0; i < a.length; i++) ascii[a.charCodeAt(i)] = 1;
    }
    for (const g of grammarsOf(kind)) {
      for (const part of [...g.before, ...g.after]) {
        if (part instanceof Uint8Array) for (const b of part) ascii[b & 0x7f] = 1;
        else for (let b = 0; b < 128; b++) if (part.set[b] === 1) ascii[b] = 1;
      }
    }
  });
  // Custom confirms read base64, URLs and PEM lines: every printable ASCII byte and the line ends.
  if (KINDS.some((k) => k.confirm !== undefined && !allowedKinds.has(k.name))) {
    for (let b = 0x20; b < 0x7f; b++) ascii[b] = 1;
    ascii[0x0a] = 1;
    ascii[0x0d] = 1;
  }

  const span: Span = { start: 0, end: 0 };
  const accept = (buf: Uint8Array, start: number, end: number, kind: number, found: Found, value?: string): void => {
    const v = value ?? textOf(buf, start, end);
    if (allowedValues.has(v) || examples.has(v)) return;
    if (allowedKinds.has(KINDS[kind]!.name)) return;
    found(start, end, kind, v);
  };

  return {
    anchors,
    usesCodePoint: (cp) => cp < 128 && ascii[cp] === 1,
    confirm(buf, anchor, start, end, found) {
      for (const k of anchorKinds[anchor] ?? []) {
        const kind = KINDS[k]!;
        if (kind.confirm !== undefined) {
          const emit = ((s: number, e: number, value?: string) => accept(buf, s, e, k, found, value)) as Emit;
          emit.as = (name, s, e, value) => {
            const other = KINDS.findIndex((x) => x.name === name);
            if (other !== -1) accept(buf, s, e, other, found, value);
          };
          kind.confirm(buf, start, end, emit);
          continue;
        }
        for (const g of grammarsOf(kind)) {
          if (matchGrammar(buf, start, end, g, span)) {
            accept(buf, span.start, span.end, k, found);
            break;
          }
        }
      }
    },
  };
}

function textOf(buf: Uint8Array, start: number, end: number): string {
  return Buffer.isBuffer(buf) ? buf.toString('utf8', start, end) : Buffer.from(buf.subarray(start, end)).toString('utf8');
}
