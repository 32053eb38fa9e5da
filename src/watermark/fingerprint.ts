// Keyed winnowing fingerprints (Schleimer, Wilkerson, Aiken, SIGMOD 2003) over normalised text: NFKC,
// lower case, letters and digits only, JSON escapes undone, so reformatted or escaped copies still match.

import { createCipheriv } from 'node:crypto';
import type { WatermarkKeys } from './key.ts';

/**
 * Normalised characters per k-gram. 32 (about six English words) keeps common phrases from matching
 * unrelated documents while a 25 % excerpt of a 40 KB document still shares hundreds of k-grams.
 */
export const FINGERPRINT_K = 32;
/**
 * Winnowing window: any shared run of K + W − 1 = 63 normalised characters (about 12 words) is
 * guaranteed to share a fingerprint; density is about 2 / (W + 1) ≈ 6 % of positions.
 */
export const FINGERPRINT_W = 32;

const JSON_ESCAPE = /\\(u[0-9a-fA-F]{4}|[nrtbf"\\/])/g;
let alnumTable: Uint8Array | undefined;

/** Normalises text to the code points fingerprints are computed over. */
export function normaliseForFingerprint(text: string): Int32Array {
  let s = text;
  if (s.includes('\\')) s = s.replace(JSON_ESCAPE, (m) => (m[1] === 'u' ? String.fromCharCode(parseInt(m.slice(2), 16)) : ' '));
  // NFKC and case folding are the identity on ASCII apart from A–Z, which the loop lowers.
  const ascii = !/[^\x00-\x7f]/.test(s);
  if (!ascii) s = s.normalize('NFKC').toLowerCase();
  const out = new Int32Array(s.length);
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c < 128) {
      if (c >= 65 && c <= 90) c += 32;
      if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) out[n++] = c;
      continue;
    }
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const cp = s.codePointAt(i)!;
      i++;
      if (/[\p{L}\p{N}]/u.test(String.fromCodePoint(cp))) out[n++] = cp;
      continue;
    }
    alnumTable ??= buildAlnumTable();
    if (alnumTable[c] === 1) out[n++] = c;
  }
  return out.subarray(0, n);
}

function buildAlnumTable(): Uint8Array {
  const t = new Uint8Array(0x10000);
  const re = /[\p{L}\p{N}]/u;
  for (let c = 0x80; c < 0x10000; c++) if ((c < 0xd800 || c > 0xdfff) && re.test(String.fromCharCode(c))) t[c] = 1;
  return t;
}

/**
 * The keyed fingerprints of `text`: winnowed 64-bit rolling k-gram hashes (random tables from the key),
 * each passed through AES-128 under the fingerprint key and cut to 53 bits (exact in a JS number and
 * a SQLite INTEGER). Distinct values, in first-seen order.
 */
export function fingerprintText(text: string, keys: WatermarkKeys): number[] {
  return fingerprintCodes(normaliseForFingerprint(text), keys);
}

/** Fingerprints of already normalised code points. */
export function fingerprintCodes(codes: Int32Array, keys: WatermarkKeys): number[] {
  const m = codes.length - FINGERPRINT_K + 1;
  if (m <= 0) return [];
  const t = keys.hashTables;
  const ha = new Uint32Array(m);
  const hb = new Uint32Array(m);
  // Cyclic-polynomial (buzhash) rolling hash: h = rotl(h, 1) ^ T[in] ^ rotl(T[out], K). With K = 32 the
  // outgoing rotation is the identity.
  let a = 0;
  let b = 0;
  for (let i = 0; i < codes.length; i++) {
    const cin = codes[i]!;
    a = ((a << 1) | (a >>> 31)) ^ t[cin & 4095]! ^ t[4096 + ((cin >>> 12) & 511)]!;
    b = ((b << 1) | (b >>> 31)) ^ t[4608 + (cin & 4095)]! ^ t[8704 + ((cin >>> 12) & 511)]!;
    if (i >= FINGERPRINT_K) {
      const cout = codes[i - FINGERPRINT_K]!;
      a ^= t[cout & 4095]! ^ t[4096 + ((cout >>> 12) & 511)]!;
      b ^= t[4608 + (cout & 4095)]! ^ t[8704 + ((cout >>> 12) & 511)]!;
    }
    if (i >= FINGERPRINT_K - 1) {
      ha[i - FINGERPRINT_K + 1] = a >>> 0;
      hb[i - FINGERPRINT_K + 1] = b >>> 0;
    }
  }
  const picked = winnow(ha, FINGERPRINT_W);
  const block = Buffer.alloc(picked.length * 16);
  for (let j = 0; j < picked.length; j++) {
    block.writeUInt32LE(ha[picked[j]!]!, j * 16);
    block.writeUInt32LE(hb[picked[j]!]!, j * 16 + 4);
  }
  const cipher = createCipheriv('aes-128-ecb', keys.fingerprintKey, null);
  cipher.setAutoPadding(false);
  const enc = cipher.update(block);
  const seen = new Set<number>();
  const out: number[] = [];
  for (let j = 0; j < picked.length; j++) {
    const fp = (enc.readUInt32LE(j * 16) & 0x1fffff) * 0x100000000 + enc.readUInt32LE(j * 16 + 4);
    if (!seen.has(fp)) {
      seen.add(fp);
      out.push(fp);
    }
  }
  return out;
}

/** Robust winnowing: the rightmost minimum of every window of `w` hashes, each position once. */
function winnow(h: Uint32Array, w: number): number[] {
  const picked: number[] = [];
  const m = h.length;
  const win = Math.min(w, m);
  let min = -1;
  for (let end = win - 1; end < m; end++) {
    const start = end - win + 1;
    if (min < start) {
      min = start;
      for (let i = start + 1; i <= end; i++) if (h[i]! <= h[min]!) min = i;
      picked.push(min);
    } else if (h[end]! <= h[min]!) {
      min = end;
      picked.push(min);
    }
  }
  return picked;
}
