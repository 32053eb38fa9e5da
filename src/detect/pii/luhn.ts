// The Luhn check digit (ISO/IEC 7812-1), which payment card numbers and some organisations' own
// identifiers carry.

/** True when buf[start, end) is all digits (at least two) and its Luhn sum is a multiple of 10. */
export function isLuhn(buf: Uint8Array, start: number, end: number): boolean {
  if (end - start < 2) return false;
  let sum = 0;
  let double = false;
  for (let i = end - 1; i >= start; i--) {
    const d = buf[i]! - 0x30;
    if (d < 0 || d > 9) return false;
    if (double) sum += d * 2 > 9 ? d * 2 - 9 : d * 2;
    else sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** The same over a list of digit values (0–9), as a card number read with its separators left out. */
export function isLuhnDigits(digits: ArrayLike<number>, count: number): boolean {
  let sum = 0;
  let double = false;
  for (let i = count - 1; i >= 0; i--) {
    const d = digits[i]!;
    if (double) sum += d * 2 > 9 ? d * 2 - 9 : d * 2;
    else sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}
