// Per-tenant placeholders without a table per tenant (DESIGN §11). A value's fingerprint (64 bits of
// HMAC-SHA256 under a key derived from the gateway key) and the tenant's check field (36 bits) make 100
// bits, which an 8-round Feistel network on two 50-bit halves (each round AES-128 under the tenant's key,
// derived from the gateway key and the tenant's name) permutes into the placeholder's 20 base32
// characters. Restore runs the network backwards under the requesting tenant's key, checks the field and
// looks the fingerprint up in one table shared by every tenant. Another tenant's placeholder (or a forged
// one) decrypts to noise that passes the 36-bit check and then names a known fingerprint with probability
// about N / 2^100; without the gateway key a guess of a value cannot be tested against a placeholder.

import { createCipheriv, createHmac, createSecretKey, type Cipher, type KeyObject } from 'node:crypto';
import { FictaError } from '../errors.ts';
import { PLACEHOLDER_ID_LENGTH, PLACEHOLDER_PREFIX } from '../redact/placeholder.ts';
import { fingerprintCodes } from '../redact/set-tables.ts';

/**
 * Feistel rounds. Luby–Rackoff: 4 make a strong pseudorandom permutation, but on 50-bit halves their
 * bound is only ~2^25 queries; 8 rounds (FF3-1's count for format-preserving encryption) push a generic
 * attack far past what a tenant can ask of restore.
 */
export const FEISTEL_ROUNDS = 8;
/** Bits of the check field: a wrong tenant's key passes it with probability 2^-36. */
export const CHECK_BITS = 36;
/** Tenant keys kept (AES contexts); a gateway with more active tenants derives the rest again (~30 µs). */
export const MAX_TENANT_KEYS = 4096;
/**
 * Placeholders and openings remembered across requests, each (tenant, fingerprint or id) one entry of
 * ~150 bytes: an agent re-sends the same secrets every turn, and one direction costs ~6 µs (8 AES calls)
 * measured here, so a request meeting 100 of them would spend 0.6 ms. Bounded, so memory stays flat in
 * tenants × secrets (~10 MB at most for both).
 */
export const MAX_CACHED = 32_768;

const TWO32 = 2 ** 32;
const TWO18 = 2 ** 18;
const TWO14 = 2 ** 14;
const TWO36 = 2 ** 36;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
const BASE32_VALUE: Int8Array = (() => {
  const t = new Int8Array(128).fill(-1);
  for (let i = 0; i < 32; i++) t[BASE32.charCodeAt(i)] = i;
  return t;
})();

/**
 * A value's fingerprint as the shared table keys it: 64 bits as a 4-character string (16 bits each).
 * Never a placeholder, never shown.
 */
export type Fingerprint = string;

/** One tenant's placeholder key. */
export interface TenantKey {
  /** The tenant's placeholder (`~ficta_…`) of a fingerprint. */
  placeholder(fp: Fingerprint): string;
  /** The fingerprint a placeholder id (20 lowercase base32 characters) hides, or undefined when the check fails. */
  open(id: string): Fingerprint | undefined;
}

/** The gateway key's derivations: fingerprints of values, and tenant keys (cached, bounded). */
export interface GatewayKeys {
  fingerprint(value: string): Fingerprint;
  /** The key fingerprints are HMACs under (a set built in a worker computes them there: src/redact/set-tables.ts). */
  readonly fingerprintKey: Uint8Array;
  tenant(name: string): TenantKey;
}

/** Derives the placeholder scheme from the 32-byte gateway key. */
export function createGatewayKeys(key: Uint8Array): GatewayKeys {
  if (key.length !== 32) throw new FictaError('FICTA_CONFIG_INVALID', `gateway: the key must be 32 bytes (got ${key.length})`);
  const master = createSecretKey(key);
  const fingerprintKey = createHmac('sha256', master).update('ficta/gateway/fingerprint-key/v1').digest();
  const fpKey: KeyObject = createSecretKey(fingerprintKey);
  const codes = new Uint16Array(4);
  const tenants = new Map<string, TenantKey>();
  const placeholders = new Map<string, string | null>();
  const openings = new Map<string, string | null>();
  return {
    fingerprintKey,
    fingerprint(value) {
      fingerprintCodes(fpKey, value, codes, 0);
      return String.fromCharCode(codes[0]!, codes[1]!, codes[2]!, codes[3]!);
    },
    tenant(name) {
      let k = tenants.get(name);
      if (k !== undefined) {
        tenants.delete(name);
        tenants.set(name, k);
        return k;
      }
      const prk = createHmac('sha256', master).update('ficta/gateway/tenant/v1\0').update(name, 'utf8').digest();
      const raw = createTenantKey(prk.subarray(0, 16), (prk[16]! & 0x0f) * TWO32 + prk.readUInt32BE(17));
      const prefix = `${name}\u0000`;
      k = {
        placeholder: (fp) => cached(placeholders, prefix + fp, () => raw.placeholder(fp)) as string,
        open: (id) => cached(openings, prefix + id, () => raw.open(id) ?? null) ?? undefined,
      };
      tenants.set(name, k);
      if (tenants.size > MAX_TENANT_KEYS) tenants.delete(tenants.keys().next().value as string);
      return k;
    },
  };
}

/** A bounded memo: the oldest entry goes first (a hit is not refreshed: the bound is what matters). */
function cached(memo: Map<string, string | null>, key: string, make: () => string | null): string | null {
  const hit = memo.get(key);
  if (hit !== undefined) return hit;
  const made = make();
  memo.set(key, made);
  if (memo.size > MAX_CACHED) memo.delete(memo.keys().next().value as string);
  return made;
}

function createTenantKey(aesKey: Buffer, check: number): TenantKey {
  const cipher: Cipher = createCipheriv('aes-128-ecb', aesKey, null);
  cipher.setAutoPadding(false);
  const block = Buffer.alloc(16);
  block[0] = 0x46; // domain byte: a Feistel round input, never anything else under this key
  // F(r, x): the first 50 bits of AES_k(0x46 ‖ r ‖ x as 7 bytes ‖ 0…). One ECB context serves every call.
  const round = (r: number, x: number): number => {
    block[1] = r;
    const hi = Math.floor(x / TWO32);
    block.writeUInt8((hi >>> 16) & 0xff, 2);
    block.writeUInt16BE(hi & 0xffff, 3);
    block.writeUInt32BE(x % TWO32, 5);
    const out = cipher.update(block);
    return (((out[0]! & 0x03) << 16) | (out[1]! << 8) | out[2]!) * TWO32 + out.readUInt32BE(3);
  };
  return {
    placeholder(fp) {
      // fp (64 bits) ‖ check (36 bits) → L = fp's top 50 bits, R = fp's low 14 bits ‖ check.
      const fpHi = fp.charCodeAt(0) * 65536 + fp.charCodeAt(1);
      const fpLo = fp.charCodeAt(2) * 65536 + fp.charCodeAt(3);
      let l = fpHi * TWO18 + Math.floor(fpLo / TWO14);
      let r = (fpLo % TWO14) * TWO36 + check;
      for (let i = 0; i < FEISTEL_ROUNDS; i++) {
        const next = xor50(l, round(i, r));
        l = r;
        r = next;
      }
      return PLACEHOLDER_PREFIX + base32Half(l) + base32Half(r);
    },
    open(id) {
      if (id.length !== PLACEHOLDER_ID_LENGTH) return undefined;
      let l = readHalf(id, 0);
      let r = readHalf(id, 10);
      if (l < 0 || r < 0) return undefined;
      for (let i = FEISTEL_ROUNDS - 1; i >= 0; i--) {
        const prev = xor50(r, round(i, l));
        r = l;
        l = prev;
      }
      if (r % TWO36 !== check) return undefined;
      const fpHi = Math.floor(l / TWO18);
      const fpLo = (l % TWO18) * TWO14 + Math.floor(r / TWO36);
      return String.fromCharCode(Math.floor(fpHi / 65536), fpHi % 65536, Math.floor(fpLo / 65536), fpLo % 65536);
    },
  };
}

/** a XOR b for 50-bit numbers (exact in doubles; bitwise operators only reach 32 bits). */
function xor50(a: number, b: number): number {
  const hi = (Math.floor(a / TWO32) ^ Math.floor(b / TWO32)) >>> 0;
  const lo = ((a % TWO32) ^ (b % TWO32)) >>> 0;
  return hi * TWO32 + lo;
}

/** A 50-bit number as 10 base32 characters, most significant first. */
function base32Half(x: number): string {
  let hi = Math.floor(x / 2 ** 25);
  let lo = x % 2 ** 25;
  let out = '';
  for (let k = 0; k < 5; k++) {
    out = BASE32[lo & 31]! + out;
    lo >>>= 5;
  }
  for (let k = 0; k < 5; k++) {
    out = BASE32[hi & 31]! + out;
    hi >>>= 5;
  }
  return out;
}

/** 10 base32 characters from `at` as a 50-bit number, or -1 for a character outside the alphabet. */
function readHalf(id: string, at: number): number {
  let x = 0;
  for (let k = 0; k < 10; k++) {
    const c = id.charCodeAt(at + k);
    const v = c < 128 ? (BASE32_VALUE[c] as number) : -1;
    if (v < 0) return -1;
    x = x * 32 + v;
  }
  return x;
}
