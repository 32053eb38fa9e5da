// Lenient JSON string-escape decoding over a byte range (`\n`, `\"`, `\\`, `\/`, `\uXXXX`, surrogate
// pairs), as one level of a decoded view, and the walk that maps decoded offsets back to source offsets.
// Invalid escapes are kept as they are; every escape is at least as long as what it decodes to.

import { mapRun, mapUnit, type DecodeState, type MapPoint } from './decode-state.ts';
import type { Relevance } from './relevance.ts';
import { FORM_DEPTHS } from './secret-set.ts';

const BACKSLASH = 0x5c;

/** Byte produced by a one-character escape (`\n` → 0x0a), or -1. */
const SIMPLE = (() => {
  const t = new Int16Array(256).fill(-1);
  const pairs: Array<[string, number]> = [['"', 0x22], ['\\', 0x5c], ['/', 0x2f], ['b', 0x08], ['f', 0x0c], ['n', 0x0a], ['r', 0x0d], ['t', 0x09]];
  for (const [c, v] of pairs) t[c.charCodeAt(0)] = v;
  return t;
})();

/** Hex digit value per byte, or -1. */
const HEX = (() => {
  const t = new Int8Array(256).fill(-1);
  for (let i = 0; i < 10; i++) t[0x30 + i] = i;
  for (let i = 0; i < 6; i++) {
    t[0x41 + i] = 10 + i;
    t[0x61 + i] = 10 + i;
  }
  return t;
})();

/** The hex digit value of a byte, or -1. */
export function hexValue(b: number): number {
  return HEX[b] as number;
}

/** The code point a `\uXXXX` byte pair at `p` stands for once decoded (a following low surrogate joined), or -1. */
export function codePointAt(buf: Uint8Array, p: number): number {
  const cp = hex4(buf, p + 2, buf.length);
  if (cp < 0xd800 || cp > 0xdbff) return cp;
  if (buf[p + 6] !== BACKSLASH || buf[p + 7] !== 0x75) return cp;
  const lo = hex4(buf, p + 8, buf.length);
  return lo >= 0xdc00 && lo <= 0xdfff ? 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00) : cp;
}

function hex4(buf: Uint8Array, i: number, end: number): number {
  if (i + 4 > end) return -1;
  const a = HEX[buf[i] as number] as number;
  const b = HEX[buf[i + 1] as number] as number;
  const c = HEX[buf[i + 2] as number] as number;
  const d = HEX[buf[i + 3] as number] as number;
  return (a | b | c | d) < 0 ? -1 : (a << 12) | (b << 8) | (c << 4) | d;
}

// The escape at the current position, set by readEscape (module scratch: no object per escape).
let escLen = 0;

/**
 * Reads the escape at `i` (a backslash) in buf[.., end): returns the code point it stands for and sets
 * `escLen` to its source length; returns -1 with `escLen` 1 when it is not a valid escape (the backslash
 * is then kept as a plain byte). A lone surrogate escape is kept as written too: a reader that works in
 * UTF-16 (JavaScript's JSON.parse) keeps it as a code unit, which joins the other half of its pair when
 * that half is written one level deeper or shallower (`\\ud83d\udd11`, `\ud83d\\udd11`); kept, the two
 * escapes meet as a pair in the next view down and decode there.
 */
function readEscape(buf: Uint8Array, i: number, end: number): number {
  escLen = 1;
  if (i + 1 >= end) return -1;
  const simple = SIMPLE[buf[i + 1] as number] as number;
  if (simple >= 0) {
    escLen = 2;
    return simple;
  }
  if (buf[i + 1] !== 0x75) return -1;
  let cp = hex4(buf, i + 2, end);
  if (cp < 0) return -1;
  escLen = 6;
  if (cp >= 0xd800 && cp <= 0xdbff && buf[i + 6] === BACKSLASH && buf[i + 7] === 0x75) {
    const lo = hex4(buf, i + 8, end);
    if (lo >= 0xdc00 && lo <= 0xdfff) {
      escLen = 12;
      return 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
    }
  }
  if (cp >= 0xd800 && cp <= 0xdfff) {
    escLen = 1;
    return -1;
  }
  return cp;
}

/** Whether buf[i] starts a `\uXXXX` escape of a surrogate (kept as written when lone: readEscape). */
function surrogateEscapeAt(buf: Uint8Array, i: number, end: number): boolean {
  const cp = buf[i + 1] === 0x75 ? hex4(buf, i + 2, end) : -1;
  return cp >= 0xd800 && cp <= 0xdfff;
}

function utf8Length(cp: number): number {
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

function writeUtf8(out: Uint8Array, o: number, cp: number): number {
  if (cp < 0x80) {
    out[o] = cp;
    return o + 1;
  }
  if (cp < 0x800) {
    out[o] = 0xc0 | (cp >> 6);
    out[o + 1] = 0x80 | (cp & 63);
    return o + 2;
  }
  if (cp < 0x10000) {
    out[o] = 0xe0 | (cp >> 12);
    out[o + 1] = 0x80 | ((cp >> 6) & 63);
    out[o + 2] = 0x80 | (cp & 63);
    return o + 3;
  }
  out[o] = 0xf0 | (cp >> 18);
  out[o + 1] = 0x80 | ((cp >> 12) & 63);
  out[o + 2] = 0x80 | ((cp >> 6) & 63);
  out[o + 3] = 0x80 | (cp & 63);
  return o + 4;
}

/**
 * Plain bytes copied one by one before looking for the next backslash with indexOf: an indexOf call costs
 * about as much as 60 bytes of this loop, and escapes in JSON text are often closer than that.
 */
const SHORT_RUN_BYTES = 64;

/**
 * A run of backslashes this long, 2^(FORM_DEPTHS − 1), is an escape of a string nested deeper than the
 * compiled forms reach (an escape at depth d is a run of at least 2^(d−1) backslashes).
 */
export const DEEP_RUN_BYTES = 1 << (FORM_DEPTHS - 1);

/**
 * Decodes the escapes of src[start, end) into `out` at `o`; returns the new output offset. ORs into
 * `state.built` the `state.watch` bits of every byte an escape decoded to, and reports to
 * `state.windows` (when set) the output of every escape that can build or hide a value the compiled
 * forms miss (relevance.ts): a `\u` escape, or an escaped backslash before `u`, standing for a relevant
 * character (a lone surrogate kept as written included); `\/` or an escaped backslash before `/` when a value holds a slash; escapes in runs of
 * DEEP_RUN_BYTES backslashes when a value holds a character JSON escapes.
 */
export function decodeEscapesInto(buf: Buffer, start: number, end: number, out: Buffer, o: number, state: DecodeState): number {
  // A subarray bounds every indexOf to the range (many small ranges stay linear).
  const src = buf.subarray(start, end);
  const n = src.length;
  const watch = state.watch;
  const windows = state.windows;
  const rel = state.rel;
  let built = 0;
  let deepEnd = 0;
  let i = 0;
  while (i < n) {
    const stop = i + SHORT_RUN_BYTES < n ? i + SHORT_RUN_BYTES : n;
    let k = i;
    while (k < stop && src[k] !== BACKSLASH) out[o++] = src[k++] as number;
    if (k === stop && k < n) {
      let bs = src.indexOf(BACKSLASH, k);
      if (bs === -1) bs = n;
      o += src.copy(out, o, k, bs);
      k = bs;
    }
    i = k;
    if (i >= n) break;
    if (i >= deepEnd && windows !== undefined && rel.deep) {
      let r = i + 1;
      while (r < n && src[r] === BACKSLASH) r++;
      deepEnd = r - i >= DEEP_RUN_BYTES ? r : i;
    }
    const next = src[i + 1];
    const after = src[i + 2];
    const cp = readEscape(src, i, n);
    const from = o;
    if (cp < 0) {
      out[o++] = BACKSLASH;
    } else {
      o = writeUtf8(out, o, cp);
      for (let b = from; b < o; b++) built |= watch[out[b] as number] as number;
    }
    if (
      windows !== undefined &&
      ((next === 0x75 && (cp >= 0 ? rel.codePoint(cp) : surrogateEscapeAt(src, i, n))) ||
        i < deepEnd ||
        (rel.slash && (next === 0x2f || (next === BACKSLASH && after === 0x2f))) ||
        (next === BACKSLASH && after === 0x75 && relevantAt(src, i + 1, rel)))
    ) {
      windows.add(from, o);
    }
    i += escLen;
  }
  state.built |= built;
  return o;
}

function relevantAt(src: Uint8Array, p: number, rel: Relevance): boolean {
  const cp = codePointAt(src, p);
  return cp >= 0 && rel.codePoint(cp);
}

/** Maps decoded offsets of src[start, end) (sorted by `pointKey`) back to source offsets, in one walk. */
export function mapEscapeOffsets(buf: Buffer, start: number, end: number, points: MapPoint[]): void {
  const src = buf.subarray(start, end);
  const n = src.length;
  let i = 0;
  let o = 0;
  let k = 0;
  while (k < points.length && i < n) {
    let bs = src.indexOf(BACKSLASH, i);
    if (bs === -1) bs = n;
    if (bs > i) {
      // A copied run: decoded [o, o + run) is source [i, i + run).
      const run = bs - i;
      k = mapRun(points, k, o, run, start + i);
      o += run;
      i = bs;
      continue;
    }
    const cp = readEscape(src, i, n);
    const outLen = cp < 0 ? 1 : utf8Length(cp);
    k = mapUnit(points, k, o, outLen, start + i, start + i + escLen);
    o += outLen;
    i += escLen;
  }
  for (; k < points.length; k++) (points[k] as MapPoint).src = end;
}
