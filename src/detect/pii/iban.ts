// IBANs (opt-in PII): a country code, two check digits and the country's BBAN, as many characters as the
// country's IBANs have, written whole or in groups of four separated by single spaces, with a mod-97
// remainder of 1 (ISO 13616). Lengths from the SWIFT IBAN Registry.

import { escapeEndsAt } from '../escape-edge.ts';
import type { Kind } from '../kind.ts';

/** Length of every IBAN of a country (SWIFT IBAN Registry). */
export const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BI: 27, BR: 29, BY: 28, CH: 21, CR: 22, CY: 28, CZ: 24,
  DE: 22, DJ: 27, DK: 18, DO: 28, EE: 20, EG: 29, ES: 24, FI: 18, FK: 18, FO: 18, FR: 27, GB: 22, GE: 22, GI: 23, GL: 18, GR: 27,
  GT: 28, HR: 21, HU: 28, IE: 22, IL: 23, IQ: 23, IS: 26, IT: 27, JO: 30, KW: 30, KZ: 20, LB: 28, LC: 32, LI: 21, LT: 20, LU: 20,
  LV: 21, LY: 25, MC: 27, MD: 24, ME: 22, MK: 19, MN: 20, MR: 27, MT: 31, MU: 30, NI: 28, NL: 18, NO: 15, OM: 23, PK: 24, PL: 28,
  PS: 29, PT: 25, QA: 29, RO: 24, RS: 22, RU: 33, SA: 24, SC: 31, SD: 18, SE: 24, SI: 19, SK: 24, SM: 27, SO: 23, ST: 25, SV: 28,
  TL: 23, TN: 24, TR: 26, UA: 29, VA: 22, VG: 24, XK: 20, YE: 30,
};

const isUpper = (b: number | undefined): boolean => b !== undefined && b >= 0x41 && b <= 0x5a;
const isDigit = (b: number | undefined): boolean => b !== undefined && b >= 0x30 && b <= 0x39;
const isAlnum = (b: number | undefined): boolean => isUpper(b) || isDigit(b) || (b !== undefined && b >= 0x61 && b <= 0x7a);

const chars = new Uint8Array(34);

/** Reads an IBAN starting at `start`; returns its end, or -1. */
export function matchIban(buf: Uint8Array, start: number): number {
  if (start > 0 && (isAlnum(buf[start - 1]) || buf[start - 1] === 0x5f) && !escapeEndsAt(buf, start)) return -1;
  if (!isUpper(buf[start]) || !isUpper(buf[start + 1])) return -1;
  const length = IBAN_LENGTHS[String.fromCharCode(buf[start]!, buf[start + 1]!)];
  if (length === undefined) return -1;
  // Written whole, or in groups of four separated by single spaces (`DE89 3704 0044 …`).
  const spaced = buf[start + 4] === 0x20;
  let n = 0;
  let i = start;
  while (n < length) {
    if (spaced && n > 0 && n % 4 === 0) {
      if (buf[i] !== 0x20) return -1;
      i++;
    }
    const b = buf[i];
    if (b === undefined || (!isUpper(b) && !isDigit(b)) || (n >= 2 && n < 4 && !isDigit(b))) return -1;
    chars[n++] = b;
    i++;
  }
  if (i < buf.length && (isAlnum(buf[i]) || buf[i] === 0x5f)) return -1;
  return mod97(chars, length) === 1 ? i : -1;
}

/** The IBAN's number mod 97: the first four characters moved to the end, letters as 10–35. */
function mod97(c: Uint8Array, length: number): number {
  let r = 0;
  for (let k = 0; k < length; k++) {
    const b = c[(k + 4) % length]!;
    if (b <= 0x39) r = (r * 10 + (b - 0x30)) % 97;
    else r = (r * 100 + (b - 0x41 + 10)) % 97;
  }
  return r;
}

export const IBAN: Kind = {
  name: 'iban',
  title: 'International Bank Account Number (PII, opt-in: detect.pii)',
  anchors: Object.keys(IBAN_LENGTHS),
  follows: '0-9',
  reads: 'A-Z0-9 ',
  escapable: false,
  checksum: true,
  source: 'https://www.swift.com/standards/data-standards/iban-international-bank-account-number (ISO 13616, SWIFT IBAN Registry)',
  confirm(buf, anchorStart, _anchorEnd, emit) {
    const end = matchIban(buf, anchorStart);
    if (end !== -1) emit(anchorStart, end);
  },
};
