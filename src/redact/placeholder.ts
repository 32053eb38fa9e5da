// The placeholder grammar: `~ficta_` + 20 base32 characters (100 bits of HMAC-SHA256 of the value under
// a persistent key). `~` was chosen as the first byte because it is rare in model traffic: it occurs 0
// times in the 100 KB of Claude Code and Codex request captures in shared/fixtures/wire, so restore can
// skip whole chunks with one Buffer.indexOf (DESIGN §4: ~100 GB/s for a rare byte vs ~9 GB/s for `_`).

import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';

export const PLACEHOLDER_PREFIX = '~ficta_';
export const PLACEHOLDER_ID_LENGTH = 20;
export const PLACEHOLDER_LENGTH = PLACEHOLDER_PREFIX.length + PLACEHOLDER_ID_LENGTH;
/** The byte every placeholder starts with. */
export const PLACEHOLDER_FIRST_BYTE = 0x7e; // '~'

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
const DOMAIN = 'ficta/placeholder/v1\0';

/**
 * Key objects per key buffer: createHmac with a raw buffer prepares the key on every call (26 µs a
 * placeholder measured here, 6 µs with a KeyObject) — detection derives one per new credential it meets.
 */
const keyObjects = new WeakMap<Uint8Array, KeyObject>();

/** Derives the placeholder of `value`: deterministic for the key, never an unkeyed hash. */
export function derivePlaceholder(key: Uint8Array, value: string): string {
  let k = keyObjects.get(key);
  if (k === undefined) {
    k = createSecretKey(key);
    keyObjects.set(key, k);
  }
  const mac = createHmac('sha256', k).update(DOMAIN).update(value, 'utf8').digest();
  let out = PLACEHOLDER_PREFIX;
  // 20 base32 characters = 100 bits: take 5 bits at a time from the MAC.
  let acc = 0;
  let bits = 0;
  let i = 0;
  while (out.length < PLACEHOLDER_LENGTH) {
    if (bits < 5) {
      acc = (acc << 8) | (mac[i++] as number);
      bits += 8;
    }
    bits -= 5;
    out += BASE32[(acc >>> bits) & 31];
  }
  return out;
}

/** Lookup table: 1 for bytes that may appear in a placeholder id (base32, either case). */
export const ID_BYTE: Uint8Array = (() => {
  const t = new Uint8Array(256);
  for (const ch of BASE32) {
    t[ch.charCodeAt(0)] = 1;
    t[ch.toUpperCase().charCodeAt(0)] = 1;
  }
  return t;
})();

const PREFIX_LOWER = Buffer.from(PLACEHOLDER_PREFIX, 'latin1');

export type PlaceholderProbe =
  /** A complete placeholder shape starts here; `id` is lowercased. */
  | { kind: 'full'; id: string }
  /** The bytes up to the end of the buffer could still become a placeholder. */
  | { kind: 'partial' }
  /** Looks like the start of a placeholder but is malformed (a mangled copy): counts as a restore miss. */
  | { kind: 'mangled' }
  | { kind: 'none' };

/**
 * Classifies the bytes at `pos` (which holds `~`): a full placeholder shape, a prefix cut off by
 * `end`, a mangled one (`~ficta_` followed by a short or broken id), or nothing.
 */
export function probePlaceholder(buf: Uint8Array, pos: number, end: number): PlaceholderProbe {
  const plen = PREFIX_LOWER.length;
  let k = 1;
  for (; k < plen; k++) {
    if (pos + k >= end) return { kind: 'partial' };
    const b = buf[pos + k] as number;
    const want = PREFIX_LOWER[k] as number;
    // Case-insensitive for letters: a model that upper-cases the token still restores (ids are unique either way).
    if (b !== want && (b | 0x20) !== want) return { kind: 'none' };
  }
  let idLen = 0;
  while (idLen < PLACEHOLDER_ID_LENGTH) {
    const at = pos + plen + idLen;
    if (at >= end) return { kind: 'partial' };
    if (ID_BYTE[buf[at] as number] !== 1) break;
    idLen++;
  }
  if (idLen < PLACEHOLDER_ID_LENGTH) return { kind: 'mangled' };
  let id = '';
  for (let j = 0; j < PLACEHOLDER_ID_LENGTH; j++) id += String.fromCharCode((buf[pos + plen + j] as number) | 0x20);
  return { kind: 'full', id };
}

/** The id part of a placeholder string (lowercased). */
export function placeholderId(placeholder: string): string {
  return placeholder.slice(PLACEHOLDER_PREFIX.length).toLowerCase();
}
