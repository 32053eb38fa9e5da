// The part of a secret set's build that needs nothing but the values: de-duplication, every escaped form
// as a pattern, the code points used, a gateway's fingerprints, lookup table and entitlement classes, and
// (when asked) the automaton. Plain data in and typed arrays out, so a gateway reload runs all of it in a
// worker (src/redact/matcher-worker.ts) and transfers the result back: the request thread only assembles.

import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { jsonEscapeDepth } from './json-escape.ts';
import { buildTables, type BuiltTables, type PatternFamily } from './matcher-build.ts';
import { derivePlaceholder } from './placeholder.ts';

/** JSON nesting levels whose escaped forms are compiled into the automaton (raw, in a string, in JSON text in a string, one more). */
export const FORM_DEPTHS = 4;

/** Marks a fingerprint two values share in a gateway set: never restored (a 2^-64 event per pair). */
export const AMBIGUOUS = -3;

/** What the tables are built from: every entry's value (in entry order) and, for a gateway, its origin. */
export interface TablesInput {
  /** Every entry's value, back to back (UTF-16), and each one's length: one string clones as one copy. */
  values: string;
  valueLengths: Int32Array;
  /** Non-gateway sets: the placeholder key (placeholders are derived per distinct value). */
  placeholderKey?: Uint8Array;
  /** Gateway sets: the fingerprint key, each entry's origin (index into `origins`), and the origins. */
  gateway?: { fingerprintKey: Uint8Array; originOf: Int32Array; origins: Array<{ source: string; groups: string[] }> };
  /** Build the automaton over the value patterns followed by these (detection's plain anchors) and families. */
  automaton?: { anchors: Uint8Array[]; families: PatternFamily[] };
}

/** The gateway's part of the tables. */
export interface GatewayTables {
  /** Fingerprint per secret index: 4 × 16 bits (the fingerprint string's 4 char codes). */
  fingerprints: Uint16Array;
  /**
   * Open-addressing table (size a power of two, at least twice the secrets, linear probing): 0 empty, else
   * secret index + 1, negated when two values share that fingerprint (never restored).
   */
  slots: Int32Array;
  classOf: Int32Array;
  classSources: string[][];
  classGroups: string[][];
}

export interface SetTables {
  /** Distinct values. */
  size: number;
  /** Per input entry, its secret index (secrets numbered in order of first appearance). */
  secretOf: Int32Array;
  /** Every value pattern's bytes back to back (secret order, then depth), each one's length, secret and depth. */
  patternBytes: Uint8Array;
  patternLengths: Int32Array;
  patternSecret: Int32Array;
  patternDepth: Uint8Array;
  /** 1 per BMP code point some value uses; the astral ones, listed. */
  bmp: Uint8Array;
  astral: Int32Array;
  /** Non-gateway sets: the placeholder of each secret index. */
  placeholders?: string[];
  gateway?: GatewayTables;
  automaton?: BuiltTables;
}

/**
 * Builds the tables (in a worker for a gateway reload, in place otherwise). `pause`, when given, is called
 * every few thousand steps (see buildTables).
 */
export function buildSetTables(input: TablesInput, pause?: () => void): SetTables {
  const { values: joined, valueLengths } = input;
  const entries = valueLengths.length;
  const secretOf = new Int32Array(entries);
  const byValue = new Map<string, number>();
  const values: string[] = [];
  let at = 0;
  for (let i = 0; i < entries; i++) {
    if ((i & 2047) === 2047) pause?.();
    const v = joined.slice(at, at + (valueLengths[i] as number));
    at += valueLengths[i] as number;
    let s = byValue.get(v);
    if (s === undefined) {
      s = values.length;
      byValue.set(v, s);
      values.push(v);
    }
    secretOf[i] = s;
  }

  // Every escaped form (distinct ones only) as a pattern, written straight into one buffer.
  const forms: string[] = [];
  const patternSecret: number[] = [];
  const patternDepth: number[] = [];
  let total = 0;
  for (let i = 0; i < values.length; i++) {
    if ((i & 2047) === 2047) pause?.();
    const v = values[i] as string;
    let prev = '';
    for (let depth = 0; depth < FORM_DEPTHS; depth++) {
      const form = depth === 0 ? v : jsonEscapeDepth(v, depth);
      // Escaping only ever lengthens a form; an unchanged form repeats for every deeper level.
      if (depth > 0 && form === prev) break;
      prev = form;
      forms.push(form);
      patternSecret.push(i);
      patternDepth.push(depth);
      total += Buffer.byteLength(form, 'utf8');
    }
  }
  const patternBytes = new Uint8Array(total);
  const patternLengths = new Int32Array(forms.length);
  const view = Buffer.from(patternBytes.buffer, patternBytes.byteOffset, patternBytes.byteLength);
  let w = 0;
  for (let k = 0; k < forms.length; k++) {
    const n = view.write(forms[k] as string, w, 'utf8');
    patternLengths[k] = n;
    w += n;
  }

  const bmp = new Uint8Array(0x10000);
  const astral = new Set<number>();
  for (const v of values) {
    for (let k = 0; k < v.length; k++) {
      const cp = v.codePointAt(k) as number;
      if (cp < 0x10000) bmp[cp] = 1;
      else {
        astral.add(cp);
        k++;
      }
    }
  }

  const out: SetTables = {
    size: values.length,
    secretOf,
    patternBytes,
    patternLengths,
    patternSecret: Int32Array.from(patternSecret),
    patternDepth: Uint8Array.from(patternDepth),
    bmp,
    astral: Int32Array.from(astral),
  };
  if (input.gateway !== undefined) out.gateway = gatewayTables(input.gateway, values, secretOf, pause);
  else if (input.placeholderKey !== undefined) {
    const key = input.placeholderKey;
    out.placeholders = values.map((v) => derivePlaceholder(key, v));
  }
  if (input.automaton !== undefined) {
    const patterns: Uint8Array[] = [];
    let p = 0;
    for (const n of patternLengths) {
      patterns.push(patternBytes.subarray(p, p + n));
      p += n;
    }
    for (const a of input.automaton.anchors) patterns.push(a);
    out.automaton = buildTables(patterns, input.automaton.families, pause);
  }
  return out;
}

/** The buffers of `tables` a worker can hand over instead of copying. */
export function transferables(tables: SetTables): ArrayBuffer[] {
  const list: ArrayBufferLike[] = [tables.secretOf.buffer, tables.patternBytes.buffer, tables.patternLengths.buffer, tables.patternSecret.buffer, tables.patternDepth.buffer, tables.bmp.buffer, tables.astral.buffer];
  const g = tables.gateway;
  if (g !== undefined) list.push(g.fingerprints.buffer, g.slots.buffer, g.classOf.buffer);
  const t = tables.automaton?.tables;
  if (t !== undefined) list.push(t.table.buffer, t.rowOf.buffer, t.rowState.buffer, t.childStart.buffer, t.edge.buffer, t.fail.buffer, t.dict.buffer, t.outStart.buffer, t.outIds.buffer);
  const out: ArrayBuffer[] = [];
  for (const b of list) if (b instanceof ArrayBuffer && !out.includes(b)) out.push(b);
  return out;
}

/** A value's fingerprint: the first 64 bits of HMAC-SHA256 under the fingerprint key, as 4 × 16 bits. */
export function fingerprintCodes(key: KeyObject, value: string, into: Uint16Array, at: number): void {
  const mac = createHmac('sha256', key).update(value, 'utf8').digest();
  into[at] = mac.readUInt16BE(0);
  into[at + 1] = mac.readUInt16BE(2);
  into[at + 2] = mac.readUInt16BE(4);
  into[at + 3] = mac.readUInt16BE(6);
}

/** Slot of a fingerprint's first probe (its low 32 bits already look random: they are HMAC output). */
function firstSlot(c2: number, c3: number, mask: number): number {
  return ((c2 << 16) | c3) & mask;
}

/** The open-addressing table over fingerprints (4 codes per secret): see GatewayTables.slots. */
export function fingerprintSlots(fingerprints: Uint16Array): Int32Array {
  const n = fingerprints.length / 4;
  let size = 16;
  while (size < n * 2) size *= 2;
  const mask = size - 1;
  const slots = new Int32Array(size);
  for (let i = 0; i < n; i++) {
    const f = i * 4;
    for (let s = firstSlot(fingerprints[f + 2] as number, fingerprints[f + 3] as number, mask); ; s = (s + 1) & mask) {
      const held = slots[s] as number;
      if (held === 0) {
        slots[s] = i + 1;
        break;
      }
      // A slot holds secret |held| - 1, negated once another value turned out to share its fingerprint.
      if (sameFingerprint(fingerprints, Math.abs(held) - 1, i)) {
        slots[s] = -Math.abs(held);
        break;
      }
    }
  }
  return slots;
}

/** The secret index of a fingerprint (a 4-character string), AMBIGUOUS when values share it, -1 when none has it. */
export function lookupFingerprint(fingerprints: Uint16Array, slots: Int32Array, fp: string): number {
  if (fp.length !== 4) return -1;
  const c0 = fp.charCodeAt(0);
  const c1 = fp.charCodeAt(1);
  const c2 = fp.charCodeAt(2);
  const c3 = fp.charCodeAt(3);
  const mask = slots.length - 1;
  for (let s = firstSlot(c2, c3, mask); ; s = (s + 1) & mask) {
    const held = slots[s] as number;
    if (held === 0) return -1;
    const f = (Math.abs(held) - 1) * 4;
    if (fingerprints[f] === c0 && fingerprints[f + 1] === c1 && fingerprints[f + 2] === c2 && fingerprints[f + 3] === c3) return held < 0 ? AMBIGUOUS : Math.abs(held) - 1;
  }
}

function gatewayTables(g: NonNullable<TablesInput['gateway']>, values: readonly string[], secretOf: Int32Array, pause: (() => void) | undefined): GatewayTables {
  const key = createSecretKey(g.fingerprintKey);
  const fingerprints = new Uint16Array(values.length * 4);
  for (let i = 0; i < values.length; i++) {
    if ((i & 511) === 511) pause?.();
    fingerprintCodes(key, values[i] as string, fingerprints, i * 4);
  }
  const slots = fingerprintSlots(fingerprints);

  // Entitlement classes: one per combination of origins (sources with their groups) a value comes from.
  const originsOf: Array<number[] | undefined> = new Array(values.length);
  for (let e = 0; e < secretOf.length; e++) {
    const s = secretOf[e] as number;
    const o = g.originOf[e] as number;
    const list = originsOf[s];
    if (list === undefined) originsOf[s] = [o];
    else if (!list.includes(o)) list.push(o);
  }
  const classIds = new Map<string, number>();
  const classSources: string[][] = [];
  const classGroups: string[][] = [];
  const classOf = new Int32Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const list = (originsOf[i] ?? []).sort((a, b) => a - b);
    const k = list.join(',');
    let id = classIds.get(k);
    if (id === undefined) {
      id = classSources.length;
      classIds.set(k, id);
      const origins = list.map((o) => g.origins[o] as { source: string; groups: string[] });
      classSources.push([...new Set(origins.map((o) => o.source))].sort());
      classGroups.push([...new Set(origins.flatMap((o) => o.groups))].sort());
    }
    classOf[i] = id;
  }
  return { fingerprints, slots, classOf, classSources, classGroups };
}

function sameFingerprint(fps: Uint16Array, a: number, b: number): boolean {
  const x = a * 4;
  const y = b * 4;
  return fps[x] === fps[y] && fps[x + 1] === fps[y + 1] && fps[x + 2] === fps[y + 2] && fps[x + 3] === fps[y + 3];
}
