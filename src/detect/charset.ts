// Byte-class tables for credential grammars, and the byte checks every detector shares: run lengths,
// token boundaries (JSON and percent escapes count as boundaries) and the placeholder filter that
// keeps documented examples and `xxxx`-style stand-ins from being taken for credentials.

/** A byte class: entry b is 1 when byte b belongs to it. */
export type CharSet = Uint8Array;

/** Builds a class from a spec such as `A-Za-z0-9_-` (ranges and single bytes; a trailing `-` is literal). */
export function charset(spec: string): CharSet {
  const t = new Uint8Array(256);
  for (let i = 0; i < spec.length; i++) {
    const a = spec.charCodeAt(i);
    if (spec[i + 1] === '-' && i + 2 < spec.length) {
      const b = spec.charCodeAt(i + 2);
      for (let c = a; c <= b; c++) t[c] = 1;
      i += 2;
    } else t[a] = 1;
  }
  return t;
}

export const DIGIT = charset('0-9');
export const HEX_LOWER = charset('0-9a-f');
export const HEX = charset('0-9a-fA-F');
export const ALNUM = charset('A-Za-z0-9');
export const LOWER_NUM = charset('a-z0-9');
export const UPPER_NUM = charset('A-Z0-9');
export const WORD = charset('A-Za-z0-9_');
export const B64URL = charset('A-Za-z0-9_-');
export const B64 = charset('A-Za-z0-9+/');
export const B64_PAD = charset('A-Za-z0-9+/=');

let lastRunChars = 0;

/** Characters in the run the last {@link runEnd} / {@link runStart} found (`\/` counts as one). */
export function runChars(): number {
  return lastRunChars;
}

/**
 * End of the run of `set` bytes starting at `from`, looking at most `max + 1` characters (so a longer run
 * is seen as too long). When the class holds `/`, a JSON-escaped slash `\/` (PHP writes every slash so)
 * is one character of the run.
 */
export function runEnd(buf: Uint8Array, from: number, set: CharSet, max: number): number {
  const slash = set[0x2f] === 1;
  let i = from;
  let chars = 0;
  while (i < buf.length && chars <= max) {
    const b = buf[i]!;
    if (set[b] === 1) i++;
    else if (slash && b === 0x5c && buf[i + 1] === 0x2f) i += 2;
    else break;
    chars++;
  }
  lastRunChars = chars;
  return i;
}

/** Start of the run of `set` bytes ending at `to` (exclusive), looking at most `max + 1` characters back. */
export function runStart(buf: Uint8Array, to: number, set: CharSet, max: number): number {
  const slash = set[0x2f] === 1;
  let i = to;
  let chars = 0;
  while (i > 0 && chars <= max) {
    if (slash && buf[i - 1] === 0x2f && i >= 2 && buf[i - 2] === 0x5c) i -= 2;
    else if (set[buf[i - 1]!] === 1) i--;
    else break;
    chars++;
  }
  lastRunChars = chars;
  return i;
}

/** True when buf[at, at + lit.length) equals the literal. */
export function hasLiteral(buf: Uint8Array, at: number, lit: Uint8Array): boolean {
  if (at < 0 || at + lit.length > buf.length) return false;
  for (let k = 0; k < lit.length; k++) if (buf[at + k] !== lit[k]) return false;
  return true;
}

/** Bytes that may follow a backslash in a JSON escape and then look like a letter before a token. */
const ESCAPE_LETTER = charset('nrtbf');

/**
 * True when a token may start at `start`: the byte before cannot continue it (not a word byte, not in
 * `set`, not a `.` after a word byte as in `box.ico-…`), or it ends a JSON escape (`\n`, `\u0022`) or a
 * percent escape (`%3D`), which read as separators in the text they encode.
 */
export function boundaryBefore(buf: Uint8Array, start: number, set: CharSet): boolean {
  if (start === 0) return true;
  const b = buf[start - 1]!;
  if (b === 0x2e && start >= 2 && WORD[buf[start - 2]!] === 1) return false;
  if (WORD[b] !== 1 && set[b] !== 1) return true;
  if (ESCAPE_LETTER[b] === 1 && start >= 2 && buf[start - 2] === 0x5c) return true;
  if (start >= 6 && buf[start - 6] === 0x5c && buf[start - 5] === 0x75 && HEX[buf[start - 4]!] === 1 && HEX[buf[start - 3]!] === 1 && HEX[b] === 1 && HEX[buf[start - 2]!] === 1) return true;
  return start >= 3 && buf[start - 3] === 0x25 && HEX[buf[start - 2]!] === 1 && HEX[b] === 1;
}

/** True when a token may end at `end`: the next byte cannot continue it. */
export function boundaryAfter(buf: Uint8Array, end: number, set: CharSet): boolean {
  if (end >= buf.length) return true;
  const b = buf[end]!;
  return WORD[b] !== 1 && set[b] !== 1;
}

/** True when the token sits inside a base64 blob: `+` or `/` before it and `+`, `/` or `=` after it. */
export function insideBase64(buf: Uint8Array, start: number, end: number): boolean {
  const before = start > 0 ? buf[start - 1] : undefined;
  const after = end < buf.length ? buf[end] : undefined;
  return (before === 0x2b || before === 0x2f) && (after === 0x2b || after === 0x2f || after === 0x3d);
}

/**
 * Stand-ins people write where a credential would go, compared case-insensitively. A random base62
 * token of 40 characters holds one of the 4-letter ones with probability ~4·10⁻⁵.
 */
const PLACEHOLDER_WORDS = ['example', 'xxxx', 'placeholder', 'your_', 'yourtoken', 'yourkey', 'dummy', 'redacted', 'changeme', 'insert', 'replace'].map((w) => Buffer.from(w, 'latin1'));

function lower(b: number): number {
  return b >= 0x41 && b <= 0x5a ? b | 0x20 : b;
}

/** A run this long of one byte does not occur in random tokens (hex: ~6·10⁻⁵ in 64 characters). */
const MAX_REPEAT = 6;

/**
 * True when buf[start, end) — the variable part of a token — looks like a placeholder, a redaction or a
 * documented example rather than a generated secret: a long run of one byte (unless `runsAllowed`: base64
 * of binary data has runs of `A`), few distinct bytes for its length, or a stand-in word.
 */
export function looksLikePlaceholder(buf: Uint8Array, start: number, end: number, runsAllowed = false): boolean {
  let run = 1;
  // Distinct bytes counted with a stamp per call: no allocation on this path (it runs on every match).
  const stamp = ++seenStamp;
  let distinct = 0;
  let wordStart = false;
  for (let i = start; i < end; i++) {
    const b = buf[i]!;
    if (seen[b] !== stamp) {
      seen[b] = stamp;
      distinct++;
    }
    if (WORD_FIRST[b] === 1) wordStart = true;
    run = i > start && buf[i - 1] === b ? run + 1 : 1;
    if (run >= MAX_REPEAT && !runsAllowed) return true;
  }
  const len = end - start;
  if (len >= 16 && distinct < 8) return true;
  if (!wordStart) return false;
  for (let i = start; i < end; i++) {
    if (WORD_FIRST[buf[i]!] !== 1) continue;
    for (const w of PLACEHOLDER_WORDS) {
      if (i + w.length > end) continue;
      let k = 0;
      while (k < w.length && lower(buf[i + k]!) === w[k]) k++;
      if (k === w.length) return true;
    }
  }
  return false;
}

const seen = new Uint32Array(256);
let seenStamp = 0;

/** Bytes a stand-in word starts with, either case. */
const WORD_FIRST = (() => {
  const t = new Uint8Array(256);
  for (const w of PLACEHOLDER_WORDS) {
    t[w[0]!] = 1;
    if (w[0]! >= 0x61 && w[0]! <= 0x7a) t[w[0]! - 0x20] = 1;
  }
  return t;
})();
