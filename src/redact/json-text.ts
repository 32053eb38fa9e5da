// Byte-level helpers for JSON text: locating the string literal around a position, and decoding a
// string's escapes into a view whose bytes map back to source offsets. Used only where escapes force it
// (a `\u` or `\/` in the body) and when a hit or placeholder needs its context — never on the clean path.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** True when the byte at `i` is preceded by an odd number of backslashes (so it is escaped). */
export function isEscaped(buf: Buffer, i: number, lowerBound = 0): boolean {
  let n = 0;
  for (let k = i - 1; k >= lowerBound && buf[k] === BACKSLASH; k--) n++;
  return (n & 1) === 1;
}

/**
 * Offset of the opening quote of the string literal that contains `pos`, scanning backward; -1 when
 * none is found at or after `lowerBound`. Correct whenever `pos` is inside a string: string content
 * holds no unescaped quote, so the first unescaped quote behind `pos` opens it.
 */
export function findStringStart(buf: Buffer, pos: number, lowerBound = 0): number {
  let i = pos - 1;
  while (i >= lowerBound) {
    i = buf.lastIndexOf(QUOTE, i);
    if (i < lowerBound) return -1;
    if (!isEscaped(buf, i, lowerBound)) return i;
    i--;
  }
  return -1;
}

/** Offset of the closing quote of the string whose content includes `pos`; -1 if it runs past `end`. */
export function findStringEnd(buf: Buffer, pos: number, end: number): number {
  let i = pos;
  while (i < end) {
    i = buf.indexOf(QUOTE, i);
    if (i === -1 || i >= end) return -1;
    if (!isEscaped(buf, i)) return i;
    i++;
  }
  return -1;
}

/** A decoded view of escaped text: `bytes[i]` came from source bytes `[srcStart[i], srcEnd[i])`. */
export interface DecodedView {
  bytes: Buffer;
  srcStart: Int32Array;
  srcEnd: Int32Array;
}

function hexVal(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  const l = b | 0x20;
  if (l >= 0x61 && l <= 0x66) return l - 0x61 + 10;
  return -1;
}

function readHex4(buf: Buffer, i: number, end: number): number {
  if (i + 4 > end) return -1;
  let v = 0;
  for (let k = 0; k < 4; k++) {
    const h = hexVal(buf[i + k] as number);
    if (h < 0) return -1;
    v = (v << 4) | h;
  }
  return v;
}

const SIMPLE: Record<number, number> = {
  0x22: 0x22, 0x5c: 0x5c, 0x2f: 0x2f, 0x62: 0x08, 0x66: 0x0c, 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09,
};

/**
 * Decodes JSON string escapes in `buf[start, end)` leniently (an invalid escape is kept as is), mapping
 * every output byte back to the source bytes that produced it.
 */
export function decodeEscapes(buf: Buffer, start: number, end: number): DecodedView {
  const cap = end - start;
  const out = Buffer.allocUnsafe(cap);
  const srcStart = new Int32Array(cap);
  const srcEnd = new Int32Array(cap);
  let o = 0;
  const emit = (b: number, s: number, e: number): void => {
    out[o] = b;
    srcStart[o] = s;
    srcEnd[o] = e;
    o++;
  };
  let i = start;
  while (i < end) {
    const b = buf[i] as number;
    if (b !== BACKSLASH || i + 1 >= end) {
      emit(b, i, i + 1);
      i++;
      continue;
    }
    const e = buf[i + 1] as number;
    const simple = SIMPLE[e];
    if (simple !== undefined) {
      emit(simple, i, i + 2);
      i += 2;
      continue;
    }
    if (e !== 0x75) {
      emit(b, i, i + 1);
      i++;
      continue;
    }
    let cp = readHex4(buf, i + 2, end);
    if (cp < 0) {
      emit(b, i, i + 1);
      i++;
      continue;
    }
    let len = 6;
    if (cp >= 0xd800 && cp <= 0xdbff && buf[i + 6] === BACKSLASH && buf[i + 7] === 0x75) {
      const lo = readHex4(buf, i + 8, end);
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        len = 12;
      }
    }
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd; // lone surrogate
    const s = i;
    const t = i + len;
    // A \u escape is at least 6 source bytes and yields at most 4 output bytes, so `out` never overflows.
    if (cp < 0x80) emit(cp, s, t);
    else if (cp < 0x800) {
      emit(0xc0 | (cp >> 6), s, t);
      emit(0x80 | (cp & 63), s, t);
    } else if (cp < 0x10000) {
      emit(0xe0 | (cp >> 12), s, t);
      emit(0x80 | ((cp >> 6) & 63), s, t);
      emit(0x80 | (cp & 63), s, t);
    } else {
      emit(0xf0 | (cp >> 18), s, t);
      emit(0x80 | ((cp >> 12) & 63), s, t);
      emit(0x80 | ((cp >> 6) & 63), s, t);
      emit(0x80 | (cp & 63), s, t);
    }
    i = t;
  }
  return { bytes: out.subarray(0, o), srcStart: srcStart.subarray(0, o), srcEnd: srcEnd.subarray(0, o) };
}

/**
 * For sorted positions, whether each span [starts[i], ends[i]) lies inside a single JSON string
 * literal of `buf` (a forward scan of quotes, only as far as the last span).
 */
export function spansInsideStrings(buf: Buffer, starts: readonly number[], ends: readonly number[]): boolean[] {
  const result: boolean[] = new Array<boolean>(starts.length).fill(false);
  if (starts.length === 0) return result;
  const limit = Math.max(...ends);
  // Walk string literals in order: [open, close] pairs.
  let pos = 0;
  let open = -1;
  let close = -1;
  let idx = 0;
  const order = starts.map((_, i) => i).sort((a, b) => (starts[a] as number) - (starts[b] as number));
  while (idx < order.length) {
    const k = order[idx] as number;
    const s = starts[k] as number;
    const e = ends[k] as number;
    if (open !== -1 && s > open && e <= close) {
      result[k] = true;
      idx++;
      continue;
    }
    if (open !== -1 && s <= close) {
      // Starts inside (or before) the current string but does not end in it.
      idx++;
      continue;
    }
    if (pos > limit || pos >= buf.length) {
      idx++;
      continue;
    }
    // Advance to the next string literal.
    const q = buf.indexOf(QUOTE, pos);
    if (q === -1) {
      pos = buf.length;
      open = -1;
      continue;
    }
    const c = findStringEnd(buf, q + 1, buf.length);
    if (c === -1) {
      open = q;
      close = buf.length;
      pos = buf.length;
      continue;
    }
    if (s < q) {
      // The span starts before this string opens: outside any string.
      idx++;
      continue;
    }
    open = q;
    close = c;
    pos = c + 1;
  }
  return result;
}
