// The vault's building blocks: sealing with associated data, the byte formats, and the KDF (presets,
// the worker thread that keeps Argon2id's heap out of the proxy, NFC passphrases, header limits).

import { describe, expect, test } from 'vitest';
import { decodeRecord, decodeState, encodeRecord, encodeState, recordAd, rowDigestInput } from '../../src/vault/format.ts';
import { DEFAULT_KDF_PRESET, argon2idInWorker, checkKdfParams, createKdfParams, deriveKek } from '../../src/vault/kdf.ts';
import { ARGON2ID_LIMITS, argon2id, initSeal, open, seal, sealHeapBytes } from '../../src/vault/seal.ts';

describe('seal', () => {
  test('opens only with the same key, nonce and associated data', async () => {
    await initSeal();
    const key = Buffer.alloc(32, 1);
    const ad = Buffer.from('ad');
    const { nonce, sealed } = seal(key, Buffer.from('plaintext-123'), ad);
    expect(Buffer.from(open(key, nonce, sealed, ad) as Uint8Array).toString()).toBe('plaintext-123');
    expect(open(Buffer.alloc(32, 2), nonce, sealed, ad)).toBeNull();
    expect(open(key, nonce, sealed, Buffer.from('ae'))).toBeNull();
    const flipped = Buffer.from(nonce);
    flipped[0] = (flipped[0] as number) ^ 1;
    expect(open(key, flipped, sealed, ad)).toBeNull();
  });

  test('uses a fresh 24-byte nonce for every seal', async () => {
    await initSeal();
    const key = Buffer.alloc(32, 1);
    const nonces = new Set(Array.from({ length: 100 }, () => seal(key, Buffer.from('same'), Buffer.alloc(0)).nonce.toString('hex')));
    expect(nonces.size).toBe(100);
    expect([...nonces].every((n) => n.length === 48)).toBe(true);
  });
});

describe('format', () => {
  const vaultId = Buffer.alloc(16, 9);
  const index = Buffer.alloc(32, 3);

  test('record associated data changes with every bound field', () => {
    const base = recordAd(vaultId, 7, 1, 2, index).toString('hex');
    const variants = [
      recordAd(Buffer.alloc(16, 8), 7, 1, 2, index),
      recordAd(vaultId, 8, 1, 2, index),
      recordAd(vaultId, 7, 2, 2, index),
      recordAd(vaultId, 7, 1, 3, index),
      recordAd(vaultId, 7, 1, 2, Buffer.alloc(32, 4)),
      recordAd(vaultId, 2 ** 32 + 7, 1, 2, index),
    ].map((b) => b.toString('hex'));
    expect(new Set([base, ...variants]).size).toBe(7);
    expect(rowDigestInput(1, 1, 1, Buffer.alloc(24), index).equals(rowDigestInput(1, 2, 1, Buffer.alloc(24), index))).toBe(false);
  });

  test('a record payload round-trips and is padded to 64 bytes', () => {
    const value = Buffer.from('välue-with-ünicode');
    const enc = encodeRecord({ name: 'NAME_1', source: 'env:X', createdAt: 1_700_000_000_123, updatedAt: 1_700_000_000_456, value });
    expect(enc.length % 64).toBe(0);
    const dec = decodeRecord(enc);
    expect(dec && { ...dec, value: Buffer.from(dec.value).equals(value) }).toEqual({ name: 'NAME_1', source: 'env:X', createdAt: 1_700_000_000_123, updatedAt: 1_700_000_000_456, value: true });
    expect(decodeRecord(Buffer.from([2, 0, 0]))).toBeNull();
    expect(decodeRecord(enc.subarray(0, 20))).toBeNull();
  });

  test('the state payload round-trips', () => {
    const s = { count: 2 ** 33 + 5, generation: 42, acc: Buffer.alloc(32, 5), placeholderKey: Buffer.alloc(32, 6) };
    expect(decodeState(encodeState(s))).toEqual(s);
    expect(decodeState(Buffer.alloc(10))).toBeNull();
  });
});

describe('kdf', () => {
  test('presets are libsodium\'s, and the default is MODERATE', () => {
    expect(ARGON2ID_LIMITS.interactive).toEqual({ ops: 2, mem: 64 * 1024 * 1024 });
    expect(ARGON2ID_LIMITS.moderate).toEqual({ ops: 3, mem: 256 * 1024 * 1024 });
    expect(DEFAULT_KDF_PRESET).toBe('moderate');
    const p = createKdfParams('passphrase');
    expect(p).toMatchObject({ kind: 'argon2id', preset: 'moderate', ops: 3, mem: 256 * 1024 * 1024 });
    expect(p.salt.length).toBe(16);
    expect(createKdfParams('passphrase').salt.equals(p.salt)).toBe(false);
  });

  test('Argon2id at INTERACTIVE runs in a worker: same key as in-thread, and this thread\'s heap does not grow', async () => {
    await initSeal();
    const heapBefore = sealHeapBytes();
    const params = { ...createKdfParams('passphrase', 'interactive') };
    const kek = await deriveKek({ kind: 'passphrase', passphrase: 'correct horse battery staple' }, params);
    if (!kek.ok) throw kek.error;
    // In-thread Argon2id at 64 MiB would have grown this heap past 64 MiB for the life of the process.
    expect(sealHeapBytes()).toBe(heapBefore);
    expect(heapBefore).toBeLessThan(params.mem);
    const small = { passphrase: Buffer.from('pw-123456'), salt: Buffer.alloc(16, 1), ops: 1, mem: 8192 };
    expect((await argon2idInWorker(small)).equals(argon2id(small.passphrase, small.salt, small.ops, small.mem))).toBe(true);
  });

  test('a passphrase is NFC-normalised: composed and decomposed forms derive the same key', async () => {
    const params = createKdfParams('passphrase', 'min');
    const a = await deriveKek({ kind: 'passphrase', passphrase: 'caf\u00e9 au lait' }, params);
    const b = await deriveKek({ kind: 'passphrase', passphrase: 'cafe\u0301 au lait' }, params);
    expect(a.ok && b.ok && a.value.equals(b.value)).toBe(true);
  });

  test('a key file derives its KEK through the salt, and cannot unlock a passphrase vault', async () => {
    const params = createKdfParams('key-file');
    const key = Buffer.alloc(32, 7);
    const a = await deriveKek({ kind: 'key-file', key, path: 'k' }, params);
    const b = await deriveKek({ kind: 'key-file', key, path: 'k' }, createKdfParams('key-file'));
    expect(a.ok && b.ok && !a.value.equals(b.value) && !a.value.equals(key)).toBe(true);
    const mismatch = await deriveKek({ kind: 'key-file', key, path: 'k' }, createKdfParams('passphrase', 'min'));
    expect(!mismatch.ok && mismatch.error.code).toBe('FICTA_VAULT_LOCKED');
  });

  test('header parameters outside the accepted range are refused before any work', () => {
    const base = createKdfParams('passphrase', 'min');
    expect(checkKdfParams({ ...base, mem: 4 * 1024 ** 3 }).ok).toBe(false);
    expect(checkKdfParams({ ...base, ops: 0 }).ok).toBe(false);
    expect(checkKdfParams({ ...base, salt: Buffer.alloc(3) }).ok).toBe(false);
    expect(checkKdfParams(base).ok).toBe(true);
  });
});
