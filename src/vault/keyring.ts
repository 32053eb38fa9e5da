// The key hierarchy below the key-encryption key: random data keys with ids, wrapped (sealed) by the KEK,
// and the subkeys each data key gives — record sealing, the names' blind index, the set MAC, the state.

import { SUBKEY, SUBKEY_CONTEXT, headerChecksumInput, keyWrapAd, nameIndexInput, rowDigestInput, type HeaderFields } from './format.ts';
import type { KdfParams } from './kdf.ts';
import { KEY_BYTES, blake2b, deriveSubkey, open, randomKeyBytes, seal, wipe } from './seal.ts';
import type { HeaderRow, KeyRow, RecordRow } from './store.ts';

/** One data key of the ring and its subkeys. */
export interface DataKey {
  keyId: number;
  key: Buffer;
  record: Buffer;
  index: Buffer;
  mac: Buffer;
  state: Buffer;
}

/** A new random data key with the given id. */
export function createDataKey(keyId: number): DataKey {
  return deriveDataKey(keyId, randomKeyBytes(KEY_BYTES));
}

function deriveDataKey(keyId: number, key: Buffer): DataKey {
  return {
    keyId,
    key,
    record: deriveSubkey(key, SUBKEY.record, SUBKEY_CONTEXT),
    index: deriveSubkey(key, SUBKEY.index, SUBKEY_CONTEXT),
    mac: deriveSubkey(key, SUBKEY.mac, SUBKEY_CONTEXT),
    state: deriveSubkey(key, SUBKEY.state, SUBKEY_CONTEXT),
  };
}

/** Seals a data key under the KEK, bound to the vault, its id and the KDF parameters. */
export function wrapDataKey(kek: Buffer, vaultId: Buffer, dk: DataKey, kdf: KdfParams): KeyRow {
  const { nonce, sealed } = seal(kek, dk.key, keyWrapAd(vaultId, dk.keyId, kdf));
  return { key_id: dk.keyId, nonce, wrapped: sealed };
}

/** Opens a wrapped data key; null when the KEK is wrong or the row was altered. */
export function unwrapDataKey(kek: Buffer, vaultId: Buffer, row: KeyRow, kdf: KdfParams): DataKey | null {
  const key = open(kek, row.nonce, row.wrapped, keyWrapAd(vaultId, row.key_id, kdf));
  if (key === null || key.length !== KEY_BYTES) return null;
  const copy = Buffer.from(key);
  wipe(key);
  return deriveDataKey(row.key_id, copy);
}

/** Overwrites a data key and its subkeys. */
export function wipeDataKey(dk: DataKey): void {
  for (const b of [dk.key, dk.record, dk.index, dk.mac, dk.state]) wipe(b);
}

/** The keyed blind index of a name (BLAKE2b under the index subkey): look-ups without unsealing names. */
export function nameIndex(dk: DataKey, name: string): Buffer {
  return blake2b(nameIndexInput(name), dk.index);
}

/** The keyed digest of one record row; the vault MAC is the XOR of these over all rows. */
export function rowDigest(dk: DataKey, row: Pick<RecordRow, 'id' | 'version' | 'key_id' | 'nonce' | 'name_index'>): Buffer {
  return blake2b(rowDigestInput(row.id, row.version, row.key_id, row.nonce, row.name_index), dk.mac);
}

/** The header's KDF parameters. */
export function kdfFromHeader(h: HeaderRow): KdfParams {
  return { kind: h.kdf as KdfParams['kind'], preset: h.kdf_preset as KdfParams['preset'], salt: h.kdf_salt, ops: h.kdf_ops, mem: h.kdf_mem };
}

/** The unkeyed header checksum: tells accidental damage apart from a wrong passphrase. */
export function headerChecksum(h: HeaderFields, keys: readonly KeyRow[]): Buffer {
  return blake2b(headerChecksumInput(h, keys.map((k) => ({ keyId: k.key_id, nonce: k.nonce, wrapped: k.wrapped }))), null);
}
