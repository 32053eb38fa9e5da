// Which spans of a JSON text lie inside one of its string literals: a forward walk over the quotes (the
// closing quote is the first one after an even run of backslashes), as far as the last span. A value can
// only be replaced there without changing the document's structure.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The position of the quote closing a string whose content starts at `from`, or -1. */
export function closingQuote(buf: Buffer, from: number): number {
  let i = from;
  for (;;) {
    const q = buf.indexOf(QUOTE, i);
    if (q === -1) return -1;
    let n = 0;
    for (let k = q - 1; k >= from && buf[k] === BACKSLASH; k--) n++;
    if ((n & 1) === 0) return q;
    i = q + 1;
  }
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
      const q = buf.indexOf(QUOTE, pos);
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
