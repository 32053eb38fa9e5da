// Which spans of a JSON text lie inside one of its string literals: a forward walk over the quotes (the
// closing quote is the first one after an even run of backslashes), as far as the last span. A value can
// only be replaced there without changing the document's structure.

import { findByte } from './byte-search.ts';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The first quote at or after `from` (and before `end`) not escaped by an odd run of backslashes that
 * starts at or after `from` — the quote closing a string whose content starts at `from` — or -1.
 */
export function closingQuote(buf: Buffer, from: number, end: number = buf.length): number {
  let i = from;
  for (;;) {
    const q = findByte(buf, QUOTE, i, end);
    if (q === -1) return -1;
    if (!escapedAfter(buf, q, from)) return q;
    i = q + 1;
  }
}

/** The last quote in [floor, p) not escaped by a run of backslashes starting at or after `floor`, or -1. */
export function openingQuote(buf: Buffer, p: number, floor: number): number {
  let hi = p;
  while (hi > floor) {
    // A subarray bounds the backward search to [floor, hi).
    const q = buf.subarray(floor, hi).lastIndexOf(QUOTE);
    if (q === -1) return -1;
    if (!escapedAfter(buf, floor + q, floor)) return floor + q;
    hi = floor + q;
  }
  return -1;
}

function escapedAfter(buf: Buffer, q: number, floor: number): boolean {
  let n = 0;
  for (let k = q - 1; k >= floor && buf[k] === BACKSLASH; k--) n++;
  return (n & 1) === 1;
}

/** For spans sorted by start, whether each [start, end) lies inside a single string literal of `buf`. */
export function insideStrings(buf: Buffer, spans: ReadonlyArray<{ start: number; end: number }>): boolean[] {
  const result = new Array<boolean>(spans.length).fill(false);
  let open = -1;
  let close = -1;
  let pos = 0;
  for (let i = 0; i < spans.length; i++) {
    const { start, end } = spans[i] as { start: number; end: number };
    while (close < start && pos < start) {
      const q = findByte(buf, QUOTE, pos);
      if (q === -1 || q >= start) {
        pos = q === -1 ? buf.length : q;
        break;
      }
      open = q;
      close = closingQuote(buf, q + 1);
      if (close === -1) close = buf.length; // unterminated: runs to the end
      pos = close + 1;
    }
    result[i] = open !== -1 && open < start && end <= close;
  }
  return result;
}
