// The JSON grammar's small pieces for the lexer (RFC 8259): blanks, escapes, hex digits, the literals,
// and the number automaton. Pure tables and functions, no state.

/** The number automaton's states; the accepting ones are ZERO, INT, FRAC and EXP. */
export const N_MINUS = 0;
export const N_ZERO = 1;
export const N_INT = 2;
const N_DOT = 3;
const N_FRAC = 4;
const N_E = 5;
const N_ESIGN = 6;
const N_EXP = 7;
/** numberStep: the number ended before this byte (which belongs to what follows). */
export const NUMBER_ENDED = -1;
/** numberStep: the byte breaks the number (a grammar violation). */
export const NUMBER_BROKEN = -2;

export const LITERALS = [Buffer.from('true'), Buffer.from('false'), Buffer.from('null')] as const;

/** The byte a one-character escape stands for, or -1 (`u` is handled apart). */
export const ESCAPED = (() => {
  const t = new Int16Array(128).fill(-1);
  for (const [c, v] of [['"', 0x22], ['\\', 0x5c], ['/', 0x2f], ['b', 0x08], ['f', 0x0c], ['n', 0x0a], ['r', 0x0d], ['t', 0x09]] as const) t[c.charCodeAt(0)] = v;
  return t;
})();

/** JSON whitespace. */
export function isBlank(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

/** The value of a hex digit, or -1. */
export function hexValue(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  const l = b | 0x20;
  return l >= 0x61 && l <= 0x66 ? l - 0x61 + 10 : -1;
}

/** The literal (index into LITERALS) a byte starts, or -1. */
export function literalAt(b: number): number {
  return b === 0x74 ? 0 : b === 0x66 ? 1 : b === 0x6e ? 2 : -1;
}

/** The number state after `b` in state `s`, or NUMBER_ENDED / NUMBER_BROKEN. */
export function numberStep(s: number, b: number): number {
  const digit = b >= 0x30 && b <= 0x39;
  const exp = b === 0x65 || b === 0x45;
  switch (s) {
    case N_MINUS:
      return digit ? (b === 0x30 ? N_ZERO : N_INT) : NUMBER_BROKEN;
    case N_ZERO:
    case N_INT:
      if (digit && s === N_INT) return N_INT;
      if (b === 0x2e) return N_DOT;
      return exp ? N_E : NUMBER_ENDED;
    case N_DOT:
      return digit ? N_FRAC : NUMBER_BROKEN;
    case N_FRAC:
      if (digit) return N_FRAC;
      return exp ? N_E : NUMBER_ENDED;
    case N_E:
      if (b === 0x2b || b === 0x2d) return N_ESIGN;
      return digit ? N_EXP : NUMBER_BROKEN;
    case N_ESIGN:
      return digit ? N_EXP : NUMBER_BROKEN;
    default:
      return digit ? N_EXP : NUMBER_ENDED;
  }
}
