// The vault's rows and their checks: the header (format version, checksum), the key ring, sealed records
// (with tamper and swap diagnosis), the sealed state, and the comparison with the set MAC it vouches for.

import { vaultError } from './errors.ts';
import { FORMAT_VERSION, decodeRecord, decodeState, encodeRecord, encodeState, recordAd, stateAd, type RecordPayload, type StatePayload } from './format.ts';
import { checkKdfParams, type KdfParams } from './kdf.ts';
import { headerChecksum, kdfFromHeader, unwrapDataKey, wipeDataKey, type DataKey } from './keyring.ts';
import { equalBytes, open, seal, wipe } from './seal.ts';
import type { HeaderRow, KeyRow, RecordRow, StateRow, VaultStore } from './store.ts';

export interface VaultInfo {
  path: string;
  format: number;
  vaultId: string;
  createdAt: number;
  kdf: { kind: KdfParams['kind']; preset: string; ops: number; mem: number };
  records: number;
  /** False when the header checksum does not match (accidental damage). */
  headerIntact: boolean;
}

/** Reads the header and key rows, checking the format version and the header checksum. */
export function readHeader(store: VaultStore): { row: HeaderRow; keys: KeyRow[] } {
  const row = store.header();
  if (row === undefined) throw vaultError('FICTA_VAULT_CORRUPT', `${store.path} has no vault header`);
  if (row.format !== FORMAT_VERSION) {
    throw vaultError('FICTA_VAULT_UNSUPPORTED_VERSION', `${store.path} has format version ${row.format}; this ficta reads version ${FORMAT_VERSION}`);
  }
  const keys = store.keys();
  const kdf = checkKdfParams(kdfFromHeader(row));
  if (!kdf.ok) throw kdf.error;
  const expected = headerChecksum({ format: row.format, vaultId: row.vault_id, createdAt: row.created_at, kdf: kdf.value, activeKey: row.active_key }, keys);
  if (!equalBytes(expected, row.checksum)) throw vaultError('FICTA_VAULT_CORRUPT', `the vault header of ${store.path} is damaged (checksum mismatch); nothing was changed`);
  return { row, keys };
}

/** Header facts and the record count (no key needed). */
export function headerInfo(store: VaultStore, h: HeaderRow): VaultInfo {
  let headerIntact = true;
  try { readHeader(store); } catch { headerIntact = false; }
  return {
    path: store.path,
    format: h.format,
    vaultId: h.vault_id.toString('hex'),
    createdAt: h.created_at,
    kdf: { kind: h.kdf as KdfParams['kind'], preset: h.kdf_preset, ops: h.kdf_ops, mem: h.kdf_mem },
    records: store.recordCount(),
    headerIntact,
  };
}

/** The header columns that describe the KDF. */
export function headerKdfColumns(kdf: KdfParams): Pick<HeaderRow, 'kdf' | 'kdf_preset' | 'kdf_salt' | 'kdf_ops' | 'kdf_mem'> {
  return { kdf: kdf.kind, kdf_preset: kdf.preset, kdf_salt: kdf.salt, kdf_ops: kdf.ops, kdf_mem: kdf.mem };
}

/**
 * Unwraps the key rows `keys` does not hold yet and drops keys that left the ring. A KEK that fails is a
 * wrong passphrase or key file at unlock, and a vault re-keyed out of reach afterwards.
 */
export function syncKeyRing(keys: Map<number, DataKey>, kek: Buffer, vaultId: Buffer, h: HeaderRow, rows: readonly KeyRow[], phase: 'unlock' | 'reload'): void {
  const kdf = kdfFromHeader(h);
  const present = new Set<number>();
  for (const row of rows) {
    present.add(row.key_id);
    if (keys.has(row.key_id)) continue;
    const dk = unwrapDataKey(kek, vaultId, row, kdf);
    if (dk === null) {
      if (phase === 'reload') throw vaultError('FICTA_VAULT_LOCKED', 'the vault was re-keyed under another passphrase or key file since it was unlocked; unlock it again');
      throw h.kdf === 'key-file'
        ? vaultError('FICTA_VAULT_WRONG_KEY', 'the key file does not open this vault')
        : vaultError('FICTA_VAULT_WRONG_PASSPHRASE', 'wrong passphrase');
    }
    keys.set(row.key_id, dk);
  }
  for (const [id, dk] of keys) {
    if (!present.has(id)) { wipeDataKey(dk); keys.delete(id); }
  }
}

/** Seals a record payload as row `id` at `version` under data key `dk`. */
export function sealRecord(vaultId: Buffer, dk: DataKey, id: number, version: number, index: Buffer, payload: RecordPayload): RecordRow {
  const plain = encodeRecord(payload);
  const { nonce, sealed } = seal(dk.record, plain, recordAd(vaultId, id, dk.keyId, version, index));
  wipe(plain);
  return { id, name_index: index, key_id: dk.keyId, version, nonce, sealed };
}

/** Opens a record or throws the most precise tamper error; `all` lets it recognise a row moved from elsewhere. */
export function openRecord(keys: ReadonlyMap<number, DataKey>, vaultId: Buffer, row: RecordRow, all: readonly RecordRow[]): { payload: RecordPayload; plain: Uint8Array } {
  const dk = keys.get(row.key_id);
  const plain = dk === undefined ? null : open(dk.record, row.nonce, row.sealed, recordAd(vaultId, row.id, row.key_id, row.version, row.name_index));
  if (plain === null) {
    if (dk !== undefined) {
      for (const other of all) {
        if (other.id === row.id) continue;
        const moved = open(dk.record, row.nonce, row.sealed, recordAd(vaultId, other.id, row.key_id, row.version, row.name_index));
        if (moved !== null) {
          wipe(moved);
          throw vaultError('FICTA_VAULT_RECORD_SWAPPED', `record ${row.id} holds the sealed data of record ${other.id}: rows were swapped; nothing was changed`);
        }
      }
    }
    throw vaultError('FICTA_VAULT_RECORD_TAMPERED', `record ${row.id} failed authentication (altered or damaged); nothing was changed`);
  }
  const payload = decodeRecord(plain);
  if (payload === null) {
    wipe(plain);
    throw vaultError('FICTA_VAULT_RECORD_TAMPERED', `record ${row.id} has an unreadable payload; nothing was changed`);
  }
  return { payload, plain };
}

/** Opens the sealed state row under the active data key. */
export function openState(store: VaultStore, vaultId: Buffer, active: DataKey): StatePayload {
  const row = store.state();
  if (row === undefined) throw vaultError('FICTA_VAULT_STATE_TAMPERED', 'the vault state row is missing; nothing was changed');
  const plain = row.key_id === active.keyId ? open(active.state, row.nonce, row.sealed, stateAd(vaultId, active.keyId)) : null;
  const state = plain === null ? null : decodeState(plain);
  wipe(plain);
  if (state === null) throw vaultError('FICTA_VAULT_STATE_TAMPERED', 'the vault state failed authentication (altered or damaged); nothing was changed');
  return state;
}

/** Seals the state under data key `dk`. */
export function sealState(dk: DataKey, vaultId: Buffer, state: StatePayload): StateRow {
  const plain = encodeState(state);
  const { nonce, sealed } = seal(dk.state, plain, stateAd(vaultId, dk.keyId));
  wipe(plain);
  return { key_id: dk.keyId, nonce, sealed };
}

/** Compares the rows read with what the sealed state vouches for. */
export function checkSet(state: StatePayload, count: number, acc: Buffer): void {
  if (count < state.count) throw vaultError('FICTA_VAULT_ROWS_DELETED', `${state.count - count} record(s) were deleted outside ficta; nothing was changed`);
  if (count > state.count) throw vaultError('FICTA_VAULT_ROWS_ADDED', `${count - state.count} record(s) were added outside ficta; nothing was changed`);
  if (!equalBytes(acc, state.acc)) throw vaultError('FICTA_VAULT_ROWS_ROLLED_BACK', 'some record was rolled back to an older copy or replaced; nothing was changed');
}
