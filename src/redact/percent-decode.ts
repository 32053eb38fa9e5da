// Percent-decoding over a byte range (`%XX` → one byte, and `+` → space for form-style text), as one level
// of a decoded view: byte for byte, never through a string, so no charset is guessed and nothing else
// changes. Also the walk that maps decoded offsets back to source offsets.

import { findByte } from './byte-search.ts';
import { hexValue } from './escape-decode.ts';
import { mapRun, mapUnit, type DecodeState, type MapPoint } from './decode-state.ts';

const PERCENT = 0x25;
const PLUS = 0x2b;

/** The byte `%XX` at `i` stands for, or -1 when it is not a valid escape. */
function percentByte(src: Uint8Array, i: number, n: number): number {
  if (i + 2 >= n) return -1;
  const hi = hexValue(src[i + 1] as number);
  const lo = hexValue(src[i + 2] as number);
  return (hi | lo) < 0 ? -1 : (hi << 4) | lo;
}

/** Position of the next `%` (or `+` when `plus`) at or after `i` in src, or `n`. */
function nextSpecial(src: Buffer, i: number, n: number, plus: boolean, cursor: { pct: number; plus: number }): number {
  if (cursor.pct < i) {
    cursor.pct = findByte(src, PERCENT, i, n);
    if (cursor.pct === -1) cursor.pct = n;
  }
  if (plus && cursor.plus < i) {
    cursor.plus = findByte(src, PLUS, i, n);
    if (cursor.plus === -1) cursor.plus = n;
  }
  return plus && cursor.plus < cursor.pct ? cursor.plus : cursor.pct;
}

/**
 * Decodes src[start, end) into `out` at `o` (`%XX` → byte; `+` → space when `plus`); returns the new
 * output offset, ORs into `state.built` the watch bits of every byte it decoded and reports each
 * decoded byte to `state.windows`.
 */
export function decodePercentInto(buf: Buffer, start: number, end: number, out: Buffer, o: number, plus: boolean, state: DecodeState): number {
  const src = buf.subarray(start, end);
  const n = src.length;
  const watch = state.watch;
  const windows = state.windows;
  const cursor = { pct: -1, plus: -1 };
  let built = 0;
  let i = 0;
  while (i < n) {
    const at = nextSpecial(src, i, n, plus, cursor);
    if (at > i) {
      if (at - i > 16) src.copy(out, o, i, at);
      else for (let k = i; k < at; k++) out[o + k - i] = src[k] as number;
      o += at - i;
      i = at;
      if (i >= n) break;
    }
    let b: number;
    let len = 1;
    if (src[i] === PLUS) b = 0x20;
    else {
      b = percentByte(src, i, n);
      if (b < 0) b = PERCENT;
      else len = 3;
    }
    if (len === 3 || b === 0x20) {
      built |= watch[b] as number;
      if (state.rel.bytes[b] === 1) windows?.add(o, o + 1);
    }
    out[o++] = b;
    i += len;
  }
  state.built |= built;
  return o;
}

/** Maps decoded offsets of src[start, end) (sorted by `pointKey`) back to source offsets, in one walk. */
export function mapPercentOffsets(buf: Buffer, start: number, end: number, plus: boolean, points: MapPoint[]): void {
  const src = buf.subarray(start, end);
  const n = src.length;
  const cursor = { pct: -1, plus: -1 };
  let i = 0;
  let o = 0;
  let k = 0;
  while (k < points.length && i < n) {
    const at = nextSpecial(src, i, n, plus, cursor);
    if (at > i) {
      k = mapRun(points, k, o, at - i, start + i);
      o += at - i;
      i = at;
      continue;
    }
    const len = src[i] === PLUS || percentByte(src, i, n) < 0 ? 1 : 3;
    k = mapUnit(points, k, o, 1, start + i, start + i + len);
    o += 1;
    i += len;
  }
  for (; k < points.length; k++) (points[k] as MapPoint).src = end;
}
