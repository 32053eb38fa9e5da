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

/**
 * A decoded view of escaped text. `map(a, b)` gives the source span that produced decoded bytes
 * [a, b); it re-walks the source, so it costs nothing unless a hit needs it.
 */
export interface DecodedView {
  bytes: Buffer;
  map(a: number, b: number): [number, number];
}

function hexVal(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  const l = b | 0x20;
  if (l >= 0x61 && l <= 0x66) return l - 0x61 + 10;
  return -1;
}

/** The value of four hex digits at `i`, or -1. */
export function readHex4(buf: Buffer, i: number, end: number): number {
  if (i + 4 > end) return -1;
  let v = 0;
  for (let k = 0; k < 4; k++) {
    const h = hexVal(buf[i + k] as number);
    if (h < 0) return -1;
    v = (v << 4) | h;
  }
  return v;
}

/** Byte produced by a one-character escape (`\n` → 0x0a), or -1. */
const SIMPLE = (() => {
  const t = new Int16Array(256).fill(-1);
  const pairs: Array<[string, number]> = [['"', 0x22], ['\\', 0x5c], ['/', 0x2f], ['b', 0x08], ['f', 0x0c], ['n', 0x0a], ['r', 0x0d], ['t', 0x09]];
  for (const [c, v] of pairs) t[c.charCodeAt(0)] = v;
  return t;
})();

/**
 * Decodes the escape at `i` (which holds a backslash): returns the source length consumed and the code
 * point (or -1 with length 1 when the escape is invalid and the backslash is kept as is).
 */
function decodeEscapeAt(buf: Buffer, i: number, end: number): { len: number; cp: number } {
  if (i + 1 >= end) return { len: 1, cp: -1 };
  const e = buf[i + 1] as number;
  const simple = SIMPLE[e] as number;
  if (simple >= 0) return { len: 2, cp: simple };
  if (e !== 0x75) return { len: 1, cp: -1 };
  let cp = readHex4(buf, i + 2, end);
  if (cp < 0) return { len: 1, cp: -1 };
  let len = 6;
  if (cp >= 0xd800 && cp <= 0xdbff && buf[i + 6] === BACKSLASH && buf[i + 7] === 0x75) {
    const lo = readHex4(buf, i + 8, end);
    if (lo >= 0xdc00 && lo <= 0xdfff) {
      cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
      len = 12;
    }
  }
  if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd; // lone surrogate
  return { len, cp };
}

function utf8Length(cp: number): number {
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

function writeUtf8(out: Buffer, o: number, cp: number): number {
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
 * Decodes JSON string escapes in `buf[start, end)` leniently (an invalid escape is kept as is). Runs
 * without a backslash are copied in bulk.
 */
export function decodeEscapes(buf: Buffer, start: number, end: number): DecodedView {
  // Every escape is at least as long in the source as its UTF-8 output, so `end - start` suffices.
  const out = Buffer.allocUnsafe(end - start);
  let o = 0;
  let i = start;
  while (i < end) {
    let bs = buf.indexOf(BACKSLASH, i);
    if (bs === -1 || bs >= end) bs = end;
    if (bs > i) {
      buf.copy(out, o, i, bs);
      o += bs - i;
      i = bs;
      if (i >= end) break;
    }
    const { len, cp } = decodeEscapeAt(buf, i, end);
    if (cp < 0) out[o++] = BACKSLASH;
    else o = writeUtf8(out, o, cp);
    i += len;
  }
  const bytes = out.subarray(0, o);
  return { bytes, map: (a, b) => mapDecodedSpan(buf, start, end, a, b) };
}

/** Source span [s, e) in `buf[start, end)` that produced decoded bytes [a, b). */
function mapDecodedSpan(buf: Buffer, start: number, end: number, a: number, b: number): [number, number] {
  let o = 0;
  let i = start;
  let srcA = -1;
  while (i < end) {
    const { len, cp } = buf[i] === BACKSLASH ? decodeEscapeAt(buf, i, end) : { len: 1, cp: -1 };
    const produced = buf[i] === BACKSLASH && cp >= 0 ? utf8Length(cp) : 1;
    const next = o + produced;
    if (srcA === -1 && a < next) srcA = i;
    if (b <= next) return [srcA, i + len];
    o = next;
    i += len;
  }
  return [srcA === -1 ? end : srcA, end];
}
