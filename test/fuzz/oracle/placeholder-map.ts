// The oracle's own derivation of ficta's placeholders, written from the scheme DESIGN §4 and docs/how-it-works.md
// state (`~ficta_` + the first 100 bits of HMAC-SHA256 under the placeholder key, domain-separated,
// as 20 base32 characters), not imported from src/redact: if the proxy's scheme drifts, the fuzz
// suite notices instead of agreeing with it.

import { createHmac } from 'node:crypto';

const PREFIX = '~ficta_';
const DOMAIN = 'ficta/placeholder/v1\u0000';
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const ID_CHARS = 20;

/** Placeholder ↔ value for one case's registered values. */
export interface PlaceholderMap {
  /** Placeholder of each value, in the order given. */
  readonly placeholders: readonly string[];
  readonly values: readonly string[];
  /** Value for a placeholder (exact, lowercase form), or undefined. */
  valueOf(placeholder: string): string | undefined;
  /** Every known placeholder in `text`, in order, as [start, end, value]. */
  find(text: string): Array<{ start: number; end: number; value: string; placeholder: string }>;
  /** Every well-formed placeholder in `text` that belongs to no registered value, in order. */
  findUnknown(text: string): Array<{ start: number; end: number; placeholder: string }>;
  /** The placeholder the proxy gives any text under this case's key (a credential it detected, say). */
  placeholderOf(text: string): string;
}

/** The placeholder the proxy must use for `value` under `key`. */
export function placeholderFor(key: Uint8Array, value: string): string {
  const mac = createHmac('sha256', key).update(DOMAIN, 'utf8').update(value, 'utf8').digest();
  let id = '';
  for (let i = 0; i < ID_CHARS; i++) {
    // Bits [5i, 5i + 5) of the MAC, most significant bit first.
    let v = 0;
    for (let b = 0; b < 5; b++) {
      const bit = 5 * i + b;
      v = (v << 1) | (((mac[bit >> 3] as number) >> (7 - (bit & 7))) & 1);
    }
    id += ALPHABET[v];
  }
  return PREFIX + id;
}

/** Builds the map for `values` under `key`. */
export function createPlaceholderMap(key: Uint8Array, values: readonly string[]): PlaceholderMap {
  const placeholders = values.map((v) => placeholderFor(key, v));
  const byPlaceholder = new Map<string, string>();
  placeholders.forEach((p, i) => byPlaceholder.set(p, values[i] as string));
  return {
    placeholders,
    values,
    valueOf: (p) => byPlaceholder.get(p),
    find(text) {
      const out: Array<{ start: number; end: number; value: string; placeholder: string }> = [];
      let i = text.indexOf(PREFIX);
      while (i !== -1) {
        const candidate = text.slice(i, i + PREFIX.length + ID_CHARS);
        const value = byPlaceholder.get(candidate);
        if (value !== undefined) {
          out.push({ start: i, end: i + candidate.length, value, placeholder: candidate });
          i = text.indexOf(PREFIX, i + candidate.length);
        } else i = text.indexOf(PREFIX, i + 1);
      }
      return out;
    },
    findUnknown(text) {
      const out: Array<{ start: number; end: number; placeholder: string }> = [];
      for (let i = text.indexOf(PREFIX); i !== -1; ) {
        let e = i + PREFIX.length;
        while (e < i + PREFIX.length + ID_CHARS && ALPHABET.includes(text[e] ?? '\u0000')) e++;
        const candidate = text.slice(i, e);
        if (e === i + PREFIX.length + ID_CHARS && !byPlaceholder.has(candidate)) {
          out.push({ start: i, end: e, placeholder: candidate });
          i = text.indexOf(PREFIX, e);
        } else i = text.indexOf(PREFIX, i + 1);
      }
      return out;
    },
    placeholderOf: (text) => placeholderFor(key, text),
  };
}

/** A well-formed placeholder that belongs to no registered value (random id from `pick`). */
export function unknownPlaceholder(pick: (n: number) => number): string {
  let id = '';
  for (let i = 0; i < ID_CHARS; i++) id += ALPHABET[pick(ALPHABET.length)];
  return PREFIX + id;
}

/** The text every placeholder starts with. */
export const PLACEHOLDER_PREFIX_TEXT = PREFIX;
