// Whether a hit's span starts and ends on JSON escape boundaries. A form of a value that the automaton
// matches across the edge of an escape (`tok\` in `"tok\" now"`, `tabc…` in `"col1\tabc…"`, `u00e9-…` in
// `"caf\u00e9-…"`) is not that value in the decoded text: replacing it would break the escape and the JSON.
//
// Levels. An escape at level j (inside a string j levels deep) is, in the bytes of the view, a run of
// backslashes whose count has exactly j − 1 trailing zero bits, then the escaped byte: decoding halves a
// run and the odd backslash left over at its level escapes the next byte. So a position p right after a
// run of `a` backslashes splits an escape at level ctz(a) + 1 when the byte there is one a backslash
// escapes (`" \ / b f n r t`, or `u` and four hex digits), and no lower level. Level 1 is decided exactly
// as escape-decode.ts reads escapes (lenient: an invalid escape is a plain backslash). Deeper levels are
// decided only where the arithmetic is certain; where a `\uXXXX` before the run could add a backslash once
// decoded (a hex digit before the run), or the run continues past p by too few backslashes to say, the
// position counts as a boundary: a hit is kept whenever in doubt, so this can only drop hits that are
// certainly not the value at the levels checked.

const BACKSLASH = 0x5c;
const U = 0x75;

/** 1 for a byte that forms a one-character escape after a backslash (`" \ / b f n r t`). */
const SIMPLE = (() => {
  const t = new Uint8Array(256);
  for (const c of '"\\/bfnrt') t[c.charCodeAt(0)] = 1;
  return t;
})();

/** 1 for a hex digit. */
const HEX = (() => {
  const t = new Uint8Array(256);
  for (const c of '0123456789abcdefABCDEF') t[c.charCodeAt(0)] = 1;
  return t;
})();

function hexValue4(buf: Uint8Array, i: number, end: number): number {
  if (i + 4 > end) return -1;
  let v = 0;
  for (let k = i; k < i + 4; k++) {
    const b = buf[k] as number;
    if (HEX[b] !== 1) return -1;
    v = (v << 4) | (b <= 0x39 ? b - 0x30 : (b | 0x20) - 0x57);
  }
  return v;
}

/**
 * How far before a run of backslashes the nearest backslash of a `\u005c` escape ending right before it can
 * lie: the escape's characters `u005c`, four of them written plainly after the last one written as a
 * six-byte `\uXXXX` (4 + 6), plus one.
 */
const UNICODE_REACH = 11;

/** Number of trailing zero bits of a positive integer. */
function ctz(n: number): number {
  return 31 - Math.clz32(n & -n);
}

/**
 * Looks up escape boundaries in one buffer. Remembers the last backslash run it measured, so queries at
 * ascending positions measure each run once (a run can be as long as the input).
 */
export class EscapeBoundaries {
  private readonly buf: Uint8Array;
  private runFloor = -1;
  private runStart = -1;
  private runEnd = -1;

  constructor(buf: Uint8Array) {
    this.buf = buf;
  }

  /**
   * False when position `p` of buf[floor, end) is certainly strictly inside an escape at one of the
   * levels 1..`levels` (counted from the view's own strings); true otherwise. `floor` is the start of the
   * decoded range (a string's content), which is a boundary at every level.
   */
  aligned(p: number, levels: number, floor: number, end: number): boolean {
    const buf = this.buf;
    if (levels <= 0 || p <= floor || p >= end) return true;
    if (buf[p - 1] === BACKSLASH) {
      this.measure(p - 1, floor, end);
      const r = this.runStart;
      const level = ctz(p - r) + 1;
      if (level > levels || !this.cleanRun(r, level, floor)) return true;
      // The run goes on past p: at level − 1 the odd backslash before p pairs with the next one (`\\`),
      // when enough of the run is left to make one there.
      if (this.runEnd > p) return this.runEnd - p < 1 << (level - 1);
      const c = buf[p] as number;
      return !(SIMPLE[c] === 1 || (c === U && hexValue4(buf, p + 1, end) >= 0));
    }
    // Inside the hex digits of a `\uXXXX` escape at some level?
    for (let q = p - 1, t = 0; t < 4 && q > floor; q--, t++) {
      const b = buf[q] as number;
      if (b === U) {
        if (buf[q - 1] === BACKSLASH && hexValue4(buf, q + 1, end) >= 0 && this.escapesAt(q - 1, levels, floor, end)) return false;
        break;
      }
      if (HEX[b] !== 1) break;
    }
    // Between the halves of a surrogate pair written as two `\u` escapes (one code point once decoded)?
    if (p - 6 >= floor && buf[p - 5] === U && buf[p - 6] === BACKSLASH && buf[p] === BACKSLASH) {
      const hi = hexValue4(buf, p - 4, end);
      if (hi >= 0xd800 && hi <= 0xdbff) {
        this.measure(p - 6, floor, end);
        const level = ctz(p - 5 - this.runStart) + 1;
        if (level <= levels && this.cleanRun(this.runStart, level, floor)) {
          this.measure(p, floor, end);
          const e = this.runEnd;
          const lo = hexValue4(buf, e + 1, end);
          if (e - p === 1 << (level - 1) && buf[e] === U && lo >= 0xdc00 && lo <= 0xdfff) return false;
        }
      }
    }
    return true;
  }

  /** Whether the run of backslashes ending at `i` (followed by a `u`) escapes it at a level ≤ `levels`. */
  private escapesAt(i: number, levels: number, floor: number, end: number): boolean {
    this.measure(i, floor, end);
    const level = ctz(i + 1 - this.runStart) + 1;
    return level <= levels && this.cleanRun(this.runStart, level, floor);
  }

  /**
   * Whether a run starting at `r` counts as the run the arithmetic assumes at `level`: always at level 1;
   * deeper only when no `\uXXXX` escape can end right before it, decoding (at some level) to one more
   * backslash of the run. Such an escape stands for `\u005c`: its last byte is a hex digit, and each of its
   * characters is written plainly or as a `\uXXXX` escape of its own, so the backslash nearest the run lies
   * within UNICODE_REACH bytes and is followed by a `u`.
   */
  private cleanRun(r: number, level: number, floor: number): boolean {
    const buf = this.buf;
    if (level === 1 || r === floor || HEX[buf[r - 1] as number] !== 1) return true;
    const lo = r - UNICODE_REACH > floor ? r - UNICODE_REACH : floor;
    for (let q = r - 2; q >= lo; q--) if (buf[q] === BACKSLASH) return buf[q + 1] !== U;
    return true;
  }

  /** Sets runStart/runEnd to the maximal run of backslashes around `i` (a backslash) within [floor, end). */
  private measure(i: number, floor: number, end: number): void {
    if (this.runFloor === floor && i >= this.runStart && i < this.runEnd) return;
    const buf = this.buf;
    let s = i;
    while (s > floor && buf[s - 1] === BACKSLASH) s--;
    let e = i + 1;
    while (e < end && buf[e] === BACKSLASH) e++;
    this.runFloor = floor;
    this.runStart = s;
    this.runEnd = e;
  }
}

/**
 * True when an escape could make position `p` something other than a boundary (a backslash within the
 * six bytes before it): the cheap test that lets almost every hit skip {@link EscapeBoundaries}.
 */
export function nearEscape(buf: Uint8Array, p: number): boolean {
  const lo = p - 6 > 0 ? p - 6 : 0;
  for (let i = p - 1; i >= lo; i--) if (buf[i] === BACKSLASH) return true;
  return false;
}
