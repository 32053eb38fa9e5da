// What a redacted span of a request may have been: the value written raw, JSON-escaped any number of
// levels (any `\u` mix, `\/`, escape-building), percent-encoded (with or without `+`), or a mix of
// the two. The oracle accepts a span the proxy replaced only when one of these readings gives back
// exactly the registered value it was replaced for.

import { percentDecode, unescapeStrict, utf8Text } from './decode.ts';

/** JSON string levels tried (the generators nest up to 8). */
const MAX_LEVELS = 10;

/** True when the bytes of `span` (a latin1 string of raw bytes) read as `value` in some supported form. */
export function spanEncodes(span: string, value: string): boolean {
  return someReading(span, (text) => text === value);
}

/** True when some supported reading of `span` (raw, percent-decoded, JSON-unescaped levels, mixes) satisfies `ok`. */
export function someReading(span: string, ok: (text: string) => boolean): boolean {
  const text = utf8Text(Buffer.from(span, 'latin1'));
  if (ok(text)) return true;
  for (const base of [text, percentDecode(text, true), percentDecode(text, false)]) {
    let cur: string | undefined = base;
    for (let level = 0; level <= MAX_LEVELS && cur !== undefined; level++) {
      if (ok(cur) || ok(percentDecode(cur, true)) || ok(percentDecode(cur, false))) return true;
      const next: string | undefined = unescapeStrict(cur);
      if (next === cur) break;
      cur = next;
    }
  }
  return false;
}

/** The longest span worth trying for `value` (a value escaped 8 levels deep grows ~2^7 bytes per character). */
export function maxSpanBytes(value: string): number {
  return Buffer.byteLength(value, 'utf8') * 160 + 64;
}
