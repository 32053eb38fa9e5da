// Checksums that credential formats carry, so a hit can be confirmed without asking the provider:
// GitHub's and npm's CRC32 in base62 (github.blog 2021-04-05 "Behind GitHub's new authentication token
// formats"; github.blog 2021-09-23 "Announcing npm's new access token format").

const CRC_TABLE = (() => {
  const t = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  return t;
})();

/** CRC-32 (IEEE 802.3, as zlib computes it) of buf[start, end). */
export function crc32(buf: Uint8Array, start = 0, end = buf.length): number {
  let c = -1;
  for (let i = start; i < end; i++) c = CRC_TABLE[(c ^ buf[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

/** The base62 alphabet of GitHub- and npm-style checksums: digits, then upper, then lower case. */
export const BASE62_DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `n` (an unsigned 32-bit integer) in base62, left-padded with `0` to `width` characters. */
export function base62(n: number, width = 6): string {
  let s = '';
  let v = n;
  while (v > 0) {
    s = BASE62_DIGITS[v % 62]! + s;
    v = Math.floor(v / 62);
  }
  return s.padStart(width, '0');
}

/**
 * True when buf[bodyStart, end) is a random part followed by its 6-character base62 CRC32, as in
 * GitHub (`ghp_` + 30 + 6) and npm (`npm_` + 30 + 6) tokens.
 */
export function hasBase62Crc32(buf: Uint8Array, bodyStart: number, end: number): boolean {
  const split = end - 6;
  if (split <= bodyStart) return false;
  const want = base62(crc32(buf, bodyStart, split));
  for (let k = 0; k < 6; k++) if (buf[split + k] !== want.charCodeAt(k)) return false;
  return true;
}

const BECH32_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const BECH32_GEN = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

/**
 * True when buf[start, end) is a valid Bech32 string (BIP 173) with human-readable part `hrp`,
 * compared case-insensitively: age secret keys (`AGE-SECRET-KEY-1…`) carry this checksum.
 */
export function isBech32(buf: Uint8Array, start: number, end: number, hrp: string): boolean {
  if (end - start < hrp.length + 7) return false;
  let chk = 1;
  const step = (v: number): void => {
    const top = chk >>> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= BECH32_GEN[i]!;
  };
  for (let i = 0; i < hrp.length; i++) step(hrp.charCodeAt(i) >>> 5);
  step(0);
  for (let i = 0; i < hrp.length; i++) step(hrp.charCodeAt(i) & 31);
  for (let i = 0; i < hrp.length; i++) {
    const b = buf[start + i]!;
    if ((b >= 0x41 && b <= 0x5a ? b | 0x20 : b) !== hrp.charCodeAt(i)) return false;
  }
  if (buf[start + hrp.length] !== 0x31) return false;
  for (let i = start + hrp.length + 1; i < end; i++) {
    const b = buf[i]!;
    const v = BECH32_CHARSET.indexOf(String.fromCharCode(b >= 0x41 && b <= 0x5a ? b | 0x20 : b));
    if (v < 0) return false;
    step(v);
  }
  return chk === 1;
}
