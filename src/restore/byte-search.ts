// The searches that let the JSON lexer skip string content at memory speed: the next quote or
// backslash (answers cached per buffer, so many small advances over one large buffer search each
// region once), and the closing quote of a string whose content does not matter (backslash parity);
// and, for strict lexing, the next byte that is not plain string content.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Bytes looked at one by one before a search call (a call costs more than a short string's bytes). */
const NEAR = 32;

/** closingQuote: no closing quote before `to`, and the byte at `to` is not escaped. */
export const OPEN = -1;
/** closingQuote: no closing quote before `to`, and the byte at `to` is escaped (a backslash run ended odd). */
export const OPEN_ESCAPED = -2;

export class ByteSearch {
  private cached: Buffer | null = null;
  private quoteAt = -2;
  private slashAt = -2;

  reset(): void {
    this.cached = null;
  }

  /**
   * The closing quote of a string in buf[i, to) when no escape is pending at `i`: the first quote
   * after an even run of backslashes. Otherwise OPEN or OPEN_ESCAPED.
   */
  closingQuote(buf: Buffer, i: number, to: number): number {
    // Short strings (keys, enum values) end within a few bytes: look before paying for a search call.
    const near = Math.min(to, i + NEAR);
    let p = i;
    for (; p < near; p++) {
      const b = buf[p];
      if (b === QUOTE) return p;
      if (b === BACKSLASH) break;
    }
    if (p === to) return OPEN;
    if (p < near) p = i;
    // A quote found past `to` is kept, so a run of short advances over one long string searches it once.
    if (this.cached !== buf) {
      this.cached = buf;
      this.quoteAt = -2;
      this.slashAt = -2;
    }
    for (;;) {
      let q = this.quoteAt;
      if (q === -2 || (q !== -1 && q < p)) q = buf.indexOf(QUOTE, p);
      if (q === -1 || q >= to) {
        this.quoteAt = q;
        let k = to - 1;
        while (k >= i && buf[k] === BACKSLASH) k--;
        return ((to - 1 - k) & 1) === 1 ? OPEN_ESCAPED : OPEN;
      }
      // No escape is pending at i, so the run of backslashes before the quote, counted down to i, decides.
      let k = q - 1;
      while (k >= i && buf[k] === BACKSLASH) k--;
      if (((q - 1 - k) & 1) === 0) return q;
      p = q + 1;
    }
  }

  /** The first quote or backslash in buf[i, to), or `to`. */
  nextSpecial(buf: Buffer, i: number, to: number): number {
    const near = Math.min(to, i + NEAR);
    for (let p = i; p < near; p++) {
      const b = buf[p];
      if (b === QUOTE || b === BACKSLASH) return p;
    }
    if (near === to) return to;
    const q = this.next(buf, i, QUOTE);
    const s = this.next(buf, i, BACKSLASH);
    let n = q === -1 ? s : s === -1 ? q : Math.min(q, s);
    if (n === -1 || n > to) n = to;
    return n;
  }

  /** The next `byte` at or after `from` in `buf`, or -1 (cached per buffer). */
  private next(buf: Buffer, from: number, byte: number): number {
    if (this.cached !== buf) {
      this.cached = buf;
      this.quoteAt = -2;
      this.slashAt = -2;
    }
    let at = byte === QUOTE ? this.quoteAt : this.slashAt;
    if (at === -2 || (at !== -1 && at < from)) at = buf.indexOf(byte, from);
    if (byte === QUOTE) this.quoteAt = at;
    else this.slashAt = at;
    return at;
  }
}

/** The first quote, backslash or control character (below 0x20) in buf[from, to), or `to` (byte by byte: no search finds a range). */
export function plainEnd(buf: Buffer, from: number, to: number): number {
  for (let i = from; i < to; i++) {
    const b = buf[i] as number;
    if (b < 0x20 || b === QUOTE || b === BACKSLASH) return i;
  }
  return to;
}
