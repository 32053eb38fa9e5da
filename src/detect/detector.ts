// The detector: the kinds in force (all but those allowed), their anchors as byte patterns to join an
// automaton, and the confirmation of an anchor hit by the grammar of each kind that uses the anchor.

import { FictaError } from '../errors.ts';
import { charset } from './charset.ts';
import { compileGrammar, matchGrammar, type CompiledGrammar, type Span } from './grammar.ts';
import type { Emit, Kind, Verdict } from './kind.ts';
import { KINDS } from './kinds.ts';

export interface DetectorOptions {
  /** Kind names, or exact values, to leave alone (`detect.allow`). */
  allow?: readonly string[];
  /** Kinds from the config (custom detectors, PII, terms), indexed after the built-in ones. */
  extra?: readonly Kind[];
  /** Whether the built-in kinds are in force (false: only `extra`, as when detection is off but terms are set). */
  builtins?: boolean;
}

/** Called for each confirmed credential: bytes [start, end) hold it; `kind` indexes {@link Detector.kinds}. */
export type Found = (start: number, end: number, kind: number, value: string, verdict: Verdict) => void;

export interface Detector {
  /** Every kind a kind index may name: the built-in {@link KINDS}, then the config's own (custom, PII, terms). */
  readonly kinds: readonly Kind[];
  /** Distinct anchors of the kinds in force, as bytes, in anchor-id order. */
  readonly anchors: readonly Uint8Array[];
  /**
   * Per anchor, the bytes that may follow it in some token (1 = may): a hit followed by any other byte
   * (`AKIA ` or `ghp_ ` in prose) is dropped without a confirm. The end of the buffer may always follow.
   */
  readonly follows: readonly Uint8Array[];
  /** `follows[anchor]` alone (what a hit needs: the others are not computed for it). */
  followsOf(anchor: number): Uint8Array;
  /** Whether any grammar in force can contain the code point (decides whether a `\u` escape may hide a credential). */
  usesCodePoint(cp: number): boolean;
  /** Per anchor, 1 when a kind using it may report a value holding a character JSON escapes ({@link Kind.escapable}). */
  readonly escapable: Uint8Array;
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

const detectors = new Map<string, Detector>();

/**
 * A detector over every kind not named in `allow`; an allowed name that is no kind is kept as an exact
 * value. Built once per allow list and shared (discovery and the proxy both want one at start, ~5 ms
 * each): a detector holds no state between calls to `confirm`.
 */
export function createDetector(options: DetectorOptions = {}): Detector {
  // Kinds from the config are built per config: nothing to share.
  if ((options.extra?.length ?? 0) > 0 || options.builtins === false) return buildDetector(options);
  const key = JSON.stringify(options.allow ?? []);
  let detector = detectors.get(key);
  if (detector === undefined) {
    detector = buildDetector(options);
    detectors.set(key, detector);
  }
  return detector;
}

function buildDetector(options: DetectorOptions): Detector {
  const kinds: readonly Kind[] = [...KINDS, ...(options.extra ?? [])];
  const inForce = (k: number): boolean => options.builtins !== false || k >= KINDS.length;
  if (kinds.length > KIND_SLOTS) throw new FictaError('FICTA_DETECT_TOO_MANY_KINDS', 'detect: more kinds than secret-index slots');
  const allowedKinds = new Set<string>();
  const allowedValues = new Set<string>();
  for (const a of options.allow ?? []) (kinds.some((k) => k.name === a) ? allowedKinds : allowedValues).add(a);

  const anchorIds = new Map<string, number>();
  const anchorKinds: number[][] = [];
  const anchors: Uint8Array[] = [];
  const examples = new Set<string>();
  kinds.forEach((kind, k) => {
    if (allowedKinds.has(kind.name) || !inForce(k)) return;
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
    }
  });

  // What only a scan needs is computed on its first use, not when the detector is built: reading every
  // kind's grammars for them was ~15 ms of `ficta serve`'s start, where discovery only needs the anchors
  // (and, for an anchor it hits, that anchor's followers).
  const follows: Array<Uint8Array | undefined> = new Array(anchors.length);
  const followsOf = (anchor: number): Uint8Array => {
    let f = follows[anchor];
    if (f === undefined) {
      f = new Uint8Array(256);
      for (const k of anchorKinds[anchor]!) addFollowers(f, kinds[k]!);
      follows[anchor] = f;
    }
    return f;
  };
  let allFollows: Uint8Array[] | undefined;
  let ascii: Uint8Array | undefined;
  const asciiTable = (): Uint8Array => {
    const t = new Uint8Array(128);
    kinds.forEach((kind, k) => {
      if (allowedKinds.has(kind.name) || !inForce(k)) return;
      for (const a of kind.anchors) for (let i = 0; i < a.length; i++) t[a.charCodeAt(i)] = 1;
      for (const g of grammarsOf(kind)) {
        for (const part of [...g.before, ...g.after]) {
          if (part instanceof Uint8Array) for (const b of part) t[b & 0x7f] = 1;
          else for (let b = 0; b < 128; b++) if (part.set[b] === 1) t[b] = 1;
        }
      }
    });
    // Custom confirms read base64, URLs and PEM lines: every printable ASCII byte and the line ends,
    // unless the kind names the bytes it reads.
    kinds.forEach((k, i) => {
      if (k.confirm === undefined || k.reads === undefined || allowedKinds.has(k.name) || !inForce(i)) return;
      const set = charset(k.reads);
      for (let b = 0; b < 128; b++) if (set[b] === 1) t[b] = 1;
    });
    if (kinds.some((k, i) => k.confirm !== undefined && k.reads === undefined && !allowedKinds.has(k.name) && inForce(i))) {
      for (let b = 0x20; b < 0x7f; b++) t[b] = 1;
      t[0x0a] = 1;
      t[0x0d] = 1;
    }
    // A slash escaped as `\/` is read in place by the grammars (runs, PEM lines, `:\/\/` in URLs), so it
    // need not make inspect decode the string; searching every body for `\/` cost ~1 ms per MB.
    t[0x2f] = 0;
    return t;
  };
  const wide = new Set<number>();
  kinds.forEach((k, i) => {
    if (!allowedKinds.has(k.name) && inForce(i)) for (const cp of k.codePoints ?? []) wide.add(cp);
  });
  let escapable: Uint8Array | undefined;

  // The buffer and callback of the confirm in progress: per-kind emit functions are made once, not per
  // hit (anchor hits are frequent in ordinary text, and a closure per hit was most of their cost).
  let current: Uint8Array = new Uint8Array(0);
  let found: Found = () => undefined;
  const span: Span = { start: 0, end: 0, verdict: 'format' };
  const accept = (start: number, end: number, kind: number, value: string | undefined, verdict: Verdict | undefined): void => {
    const v = value ?? textOf(current, start, end);
    const k = kinds[kind]!;
    if (allowedValues.has(v) || examples.has(v) || allowedKinds.has(k.name)) return;
    found(start, end, kind, v, verdict ?? (k.checksum ? 'verified' : 'format'));
  };
  const kindIndex = new Map(kinds.map((k, i) => [k.name, i]));
  const emits: Emit[] = kinds.map((_, k) => {
    const emit = ((s: number, e: number, value?: string, verdict?: Verdict) => accept(s, e, k, value, verdict)) as Emit;
    emit.as = (name, s, e, value) => {
      const other = kindIndex.get(name);
      if (other !== undefined) accept(s, e, other, value, undefined);
    };
    return emit;
  });

  return {
    kinds,
    anchors,
    get follows() {
      allFollows ??= anchors.map((_a, id) => followsOf(id));
      return allFollows;
    },
    followsOf,
    get escapable() {
      escapable ??= Uint8Array.from(anchorKinds, (ks) => (ks.some((k) => isEscapable(kinds[k]!)) ? 1 : 0));
      return escapable;
    },
    usesCodePoint: (cp) => (cp < 128 ? (ascii ??= asciiTable())[cp] === 1 : wide.size > 0 && wide.has(cp)),
    confirm(buf, anchor, start, end, onFound) {
      current = buf;
      found = onFound;
      const ks = anchorKinds[anchor];
      if (ks === undefined) return;
      for (let i = 0; i < ks.length; i++) {
        const k = ks[i]!;
        const kind = kinds[k]!;
        if (kind.confirm !== undefined) {
          kind.confirm(buf, start, end, emits[k]!);
          continue;
        }
        const gs = grammarsOf(kind);
        for (let j = 0; j < gs.length; j++) {
          if (matchGrammar(buf, start, end, gs[j]!, span)) {
            accept(span.start, span.end, k, undefined, span.verdict);
            break;
          }
        }
      }
    },
  };
}

/** Bytes JSON escapes in a string: `"`, `\` and the control characters. */
function escapedByJson(b: number): boolean {
  return b < 0x20 || b === 0x22 || b === 0x5c;
}

/** Whether a kind's values may hold a character JSON escapes: declared, or read from its grammars' bytes. */
function isEscapable(kind: Kind): boolean {
  if (kind.escapable !== undefined) return kind.escapable;
  if (kind.confirm !== undefined) return true;
  for (const g of grammarsOf(kind)) {
    for (const part of [...g.before, ...g.after]) {
      if (part instanceof Uint8Array) {
        if (part.some(escapedByJson)) return true;
      } else for (let b = 0; b < 256; b++) if (part.set[b] === 1 && escapedByJson(b)) return true;
    }
  }
  return false;
}

/** Marks the bytes that may follow one of the kind's anchors: a custom confirm or a grammar ending at its anchor may be followed by anything. */
function addFollowers(into: Uint8Array, kind: Kind): void {
  if (kind.confirm !== undefined && kind.follows !== undefined) {
    const set = charset(kind.follows);
    for (let b = 0; b < 256; b++) if (set[b] === 1) into[b] = 1;
    return;
  }
  const grammars = kind.confirm === undefined ? grammarsOf(kind) : [];
  if (kind.confirm !== undefined || grammars.some((g) => g.after.length === 0)) {
    into.fill(1);
    return;
  }
  for (const g of grammars) {
    const first = g.after[0]!;
    if (first instanceof Uint8Array) into[first[0]!] = 1;
    else {
      for (let b = 0; b < 256; b++) if (first.set[b] === 1) into[b] = 1;
      // A run holding `/` also reads a JSON-escaped `\/`.
      if (first.set[0x2f] === 1) into[0x5c] = 1;
      // A run that may be empty lets the part after it follow too: allow everything rather than chase it.
      if (first.min === 0) into.fill(1);
    }
  }
}

/** The credential's text; a JSON-escaped slash (`\/`, which runs accept) is the slash it stands for. */
function textOf(buf: Uint8Array, start: number, end: number): string {
  const s = Buffer.isBuffer(buf) ? buf.toString('utf8', start, end) : Buffer.from(buf.subarray(start, end)).toString('utf8');
  return s.includes('\\/') ? s.replace(/\\\//g, '/') : s;
}
