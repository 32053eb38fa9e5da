// The only module that imports libsodium: XChaCha20-Poly1305 (IETF) sealing, BLAKE2b hashes and subkeys,
// Argon2id, and constant-time comparison. Everything here is synchronous once `initSeal()` has resolved.

import sodium from 'libsodium-wrappers-sumo';
import { randomBytes } from 'node:crypto';

export const KEY_BYTES = 32;
export const NONCE_BYTES = 24;
export const TAG_BYTES = 16;
export const SALT_BYTES = 16;

/** libsodium's own Argon2id presets (crypto_pwhash_*); MIN exists for tests and frozen fixtures only. */
export const ARGON2ID_LIMITS = {
  min: { ops: 1, mem: 8192 },
  interactive: { ops: 2, mem: 64 * 1024 * 1024 },
  moderate: { ops: 3, mem: 256 * 1024 * 1024 },
  sensitive: { ops: 4, mem: 1024 * 1024 * 1024 },
} as const;

let readyPromise: Promise<void> | undefined;
let isReady = false;

/** Loads the libsodium WebAssembly module; every other function here needs it. */
export function initSeal(): Promise<void> {
  readyPromise ??= sodium.ready.then(() => {
    isReady = true;
  });
  return readyPromise;
}

function lib(): typeof sodium {
  if (!isReady) throw new Error('seal: initSeal() was not awaited');
  return sodium;
}

/** Fresh random bytes from the OS (libsodium's randombytes_buf measured ~70 µs a call here). */
export function randomKeyBytes(length: number): Buffer {
  return randomBytes(length);
}

/** Seals `plaintext` under `key` with a fresh 24-byte nonce, binding `ad`. */
export function seal(key: Uint8Array, plaintext: Uint8Array, ad: Uint8Array): { nonce: Buffer; sealed: Buffer } {
  const nonce = randomBytes(NONCE_BYTES);
  const out = lib().crypto_aead_xchacha20poly1305_ietf_encrypt(plaintext, ad, null, nonce, key);
  return { nonce, sealed: Buffer.from(out.buffer, out.byteOffset, out.byteLength) };
}

/** Opens a sealed box; null when the key, nonce, ciphertext or associated data do not match. */
export function open(key: Uint8Array, nonce: Uint8Array, sealed: Uint8Array, ad: Uint8Array): Uint8Array | null {
  if (nonce.length !== NONCE_BYTES || sealed.length < TAG_BYTES) return null;
  try {
    return lib().crypto_aead_xchacha20poly1305_ietf_decrypt(null, sealed, ad, nonce, key);
  } catch {
    // libsodium reports every authentication failure with the same exception; the caller names it.
    return null;
  }
}

/** BLAKE2b of `message`, keyed when `key` is given (a MAC / PRF), `length` bytes long. */
export function blake2b(message: Uint8Array, key: Uint8Array | null, length = 32): Buffer {
  const out = lib().crypto_generichash(length, message, key);
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}

/** Derives subkey number `id` of `key` for the 8-character `context` (crypto_kdf, BLAKE2b). */
export function deriveSubkey(key: Uint8Array, id: number, context: string): Buffer {
  const out = lib().crypto_kdf_derive_from_key(KEY_BYTES, id, context, key);
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}

/** Argon2id (crypto_pwhash, ALG_ARGON2ID13) of `passphrase`; call it from the KDF worker for large `mem`. */
export function argon2id(passphrase: Uint8Array, salt: Uint8Array, ops: number, mem: number): Buffer {
  const s = lib();
  const out = s.crypto_pwhash(KEY_BYTES, passphrase, salt, ops, mem, s.crypto_pwhash_ALG_ARGON2ID13);
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}

/** Constant-time equality of two byte strings of the same length (false when lengths differ). */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  return lib().memcmp(a, b);
}

/** Size of this thread's libsodium WebAssembly heap: it only grows, which is why Argon2id runs in a worker. */
export function sealHeapBytes(): number {
  const module = (lib() as unknown as { libsodium?: { HEAPU8?: Uint8Array } }).libsodium;
  return module?.HEAPU8?.length ?? 0;
}

/** Overwrites `bytes` with zeros (best effort: copies the engine made are out of reach). */
export function wipe(bytes: Uint8Array | null | undefined): void {
  if (bytes !== null && bytes !== undefined) bytes.fill(0);
}
