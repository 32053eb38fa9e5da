// The leak oracle: every form a registered value could take on the wire. The mock upstream checks each
// request against it and the test fails if any form arrives.

import { jsonEscape } from '../../src/redact/json-escape.ts';

/** Python-style JSON escaping: non-ASCII as lowercase \uXXXX (json.dumps ensure_ascii). */
export function asciiEscape(s: string): string {
  return jsonEscape(s).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Every character as a \uXXXX escape. */
export function fullUnicodeEscape(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) out += `\\u${s.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

/** The forms of `value` the oracle looks for: raw, JSON-escaped once and twice, \u-escaped, double-escaped, percent-encoded. */
export function leakForms(value: string): string[] {
  const forms = new Set<string>([
    value,
    jsonEscape(value),
    jsonEscape(jsonEscape(value)),
    asciiEscape(value),
    jsonEscape(asciiEscape(value)),
    fullUnicodeEscape(value),
    encodeURIComponent(value),
    encodeURIComponent(value).replace(/%20/g, '+'),
    value.replace(/\//g, '\\/'),
  ]);
  return [...forms];
}

export interface Leak {
  /** Index of the value in the oracle's list (never the value itself, so failures do not print it). */
  secretIndex: number;
  formIndex: number;
  where: string;
}

/** Finds every form of every value in `haystack` (bytes, read as latin1 and as UTF-8). */
export function findLeaks(values: readonly string[], haystack: Buffer, where: string): Leak[] {
  const leaks: Leak[] = [];
  const utf8 = haystack.toString('utf8');
  const lower = utf8.toLowerCase();
  values.forEach((v, secretIndex) => {
    leakForms(v).forEach((form, formIndex) => {
      const hit = utf8.includes(form) || (form.includes('\\u') && lower.includes(form.toLowerCase())) || haystack.includes(Buffer.from(form, 'utf8'));
      if (hit) leaks.push({ secretIndex, formIndex, where });
    });
  });
  return leaks;
}
