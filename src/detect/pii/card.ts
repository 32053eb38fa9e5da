// Payment card numbers (opt-in PII): 13 to 19 digits, plain or in groups separated by single spaces or
// dashes, in a major network's IIN range with a length that network issues, and a right Luhn digit.
// Sources: ISO/IEC 7812-1 (Luhn); the networks' published IIN ranges (Visa, Mastercard, American
// Express, Discover, JCB, Diners Club, UnionPay, Maestro).

import { escapeEndsAt } from '../escape-edge.ts';
import type { Kind } from '../kind.ts';
import { isLuhnDigits } from './luhn.ts';

/** [low, high] of the leading digits (as many digits as `low` has), and the lengths issued. */
type Range = readonly [number, number, readonly number[]];

const L16_19 = [16, 17, 18, 19];
const RANGES: readonly Range[] = [
  [4, 4, [13, 16, 19]], // Visa
  [51, 55, [16]], // Mastercard
  [2221, 2720, [16]], // Mastercard 2-series
  [34, 34, [15]], // American Express
  [37, 37, [15]],
  [6011, 6011, L16_19], // Discover
  [644, 649, L16_19],
  [65, 65, L16_19],
  [3528, 3589, L16_19], // JCB
  [300, 305, [14, 15, 16, 17, 18, 19]], // Diners Club
  [36, 36, [14, 15, 16, 17, 18, 19]],
  [38, 39, L16_19],
  [62, 62, L16_19], // UnionPay
  [5018, 5018, [13, 14, 15, 16, 17, 18, 19]], // Maestro
  [5020, 5020, [13, 14, 15, 16, 17, 18, 19]],
  [5038, 5038, [13, 14, 15, 16, 17, 18, 19]],
  [5893, 5893, [13, 14, 15, 16, 17, 18, 19]],
  [6304, 6304, [13, 14, 15, 16, 17, 18, 19]],
  [6759, 6759, [13, 14, 15, 16, 17, 18, 19]],
  [6761, 6763, [13, 14, 15, 16, 17, 18, 19]],
];

/** Whether `digits` (count of them) start in a network's range with a length it issues. */
export function inIinRange(digits: ArrayLike<number>, count: number): boolean {
  for (const [low, high, lengths] of RANGES) {
    if (!lengths.includes(count)) continue;
    const width = String(low).length;
    let lead = 0;
    for (let i = 0; i < width; i++) lead = lead * 10 + digits[i]!;
    if (lead >= low && lead <= high) return true;
  }
  return false;
}

const isDigit = (b: number | undefined): boolean => b !== undefined && b >= 0x30 && b <= 0x39;
const isWord = (b: number | undefined): boolean => b !== undefined && ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x5f);

const digits = new Uint8Array(19);

/** Reads a card number starting at `start`; returns its end, or -1. */
export function matchCard(buf: Uint8Array, start: number): number {
  const before = start > 0 ? buf[start - 1] : undefined;
  // Not inside a longer number, word, version (`1.4111…`), phone number (`+49…`) or negative number.
  if ((isWord(before) && !escapeEndsAt(buf, start)) || before === 0x2e || before === 0x2b || before === 0x2d) return -1;
  let count = 0;
  let i = start;
  let sep = -1;
  let group = 0;
  while (i < buf.length) {
    const b = buf[i]!;
    if (isDigit(b)) {
      if (count === 19) return -1;
      digits[count++] = b - 0x30;
      group++;
      i++;
      continue;
    }
    // A single space or dash between groups of 3 to 6 digits (the first of 4), the same one throughout.
    if ((b === 0x20 || b === 0x2d) && isDigit(buf[i + 1]) && (sep === -1 || sep === b) && (sep === -1 ? group === 4 : group >= 3 && group <= 6)) {
      sep = b;
      group = 0;
      i++;
      continue;
    }
    break;
  }
  if (count < 13) return -1;
  if (sep !== -1 && (group < 3 || group > 6)) return -1;
  const after = i < buf.length ? buf[i] : undefined;
  // Not followed by more of a word or a decimal part.
  if (isWord(after) || (after === 0x2e && isDigit(buf[i + 1]))) return -1;
  if (!inIinRange(digits, count) || !isLuhnDigits(digits, count)) return -1;
  // A run of one digit (`4444 4444 4444 4448`) is a stand-in, not a card.
  let same = 1;
  for (let k = 1; k < count; k++) if (digits[k] === digits[0]) same++;
  return same >= count - 1 ? -1 : i;
}

/** Whether a card of some network may start with the three digits `p` (100–999). */
function mayStart(p: number): boolean {
  return RANGES.some(([low, high]) => {
    const width = String(low).length;
    if (width <= 3) {
      const lead = Math.floor(p / 10 ** (3 - width));
      return lead >= low && lead <= high;
    }
    return p * 10 + 9 >= low && p * 10 <= high;
  });
}

/**
 * Every card number starts with a group of at least four digits, so the anchors are the first three
 * digits of some network's range (`411`, `222`–`272`, `352`–`358`, …; not `200`–`221`, so years never
 * qualify) and the fourth must be a digit: three-digit numbers (`HTTP 529`, `"qty": 250`), the most
 * common numbers in traffic, never reach the confirm. Measured on the bench's 500 KiB Messages body:
 * 3,501 confirms with two-digit anchors, 907 with every three-digit start from 200 to 699, fewer with these.
 */
const ANCHORS = (() => {
  const out: string[] = [];
  for (let n = 200; n <= 699; n++) if (mayStart(n)) out.push(String(n));
  return out;
})();

export const PAYMENT_CARD: Kind = {
  name: 'payment-card',
  title: 'Payment card number (PII, opt-in: detect.pii)',
  anchors: ANCHORS,
  follows: '0-9',
  reads: '0-9 -+.',
  escapable: false,
  checksum: true,
  source: 'https://www.iso.org/standard/70484.html (ISO/IEC 7812-1: IIN ranges and the Luhn digit)',
  confirm(buf, anchorStart, _anchorEnd, emit) {
    const end = matchCard(buf, anchorStart);
    if (end !== -1) emit(anchorStart, end);
  },
};
