// Creating, opening and unlocking a vault file. Creation is atomic (built aside, hard-linked into place) and
// never replaces an existing file; opening checks the file and header before any key is derived.

import { chmodSync, closeSync, fsyncSync, linkSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { err, ok, type Result } from '../util/result.ts';
import { vaultError } from './errors.ts';
import { FORMAT_VERSION, type StatePayload } from './format.ts';
import { DEFAULT_KDF_PRESET, checkKdfParams, createKdfParams, deriveKek, type KdfPreset, type VaultCredential } from './kdf.ts';
import { createDataKey, headerChecksum, kdfFromHeader, wipeDataKey, wrapDataKey } from './keyring.ts';
import { headerInfo, readHeader, sealState, type VaultInfo } from './rows.ts';
import { KEY_BYTES, initSeal, randomKeyBytes, wipe } from './seal.ts';
import { createVaultStore, openVaultStore, toVaultError, type HeaderRow, type VaultStore } from './store.ts';
import { Vault } from './vault.ts';

export { VAULT_FILE, vaultPath } from './path.ts';
const VAULT_ID_BYTES = 16;

export interface CreateVaultOptions {
  kdf?: KdfPreset;
  /** The proxy's existing placeholder key, so placeholders stay stable; random when absent. */
  placeholderKey?: Buffer;
}

/** Creates a new vault at `path`, atomically; fails with FICTA_VAULT_EXISTS rather than overwrite anything. */
export async function createVault(path: string, credential: VaultCredential, options: CreateVaultOptions = {}): Promise<Result<Vault>> {
  await initSeal();
  if (options.placeholderKey !== undefined && options.placeholderKey.length !== KEY_BYTES) {
    return err(vaultError('FICTA_VAULT_KEY_FILE_INVALID', 'the placeholder key must be 32 bytes'));
  }
  if (exists(path)) return err(existsError(path));
  const kdf = createKdfParams(credential.kind, options.kdf ?? DEFAULT_KDF_PRESET);
  const kekResult = await deriveKek(credential, kdf);
  if (!kekResult.ok) return kekResult;
  const kek = kekResult.value;

  // Built under a temporary name and linked into place: a crash leaves no half-made vault, and link()
  // refuses to replace a vault another process created meanwhile.
  const tmp = join(dirname(path), `.${basename(path)}.init-${process.pid}-${randomKeyBytes(4).toString('hex')}`);
  const dk = createDataKey(1);
  const vaultId = randomKeyBytes(VAULT_ID_BYTES);
  const placeholderKey = Buffer.from(options.placeholderKey ?? randomKeyBytes(KEY_BYTES));
  try {
    closeSync(openSync(tmp, 'wx', 0o600));
    const store = createVaultStore(tmp);
    try {
      const keyRow = wrapDataKey(kek, vaultId, dk, kdf);
      const createdAt = Date.now();
      const checksum = headerChecksum({ format: FORMAT_VERSION, vaultId, createdAt, kdf, activeKey: dk.keyId }, [keyRow]);
      const state: StatePayload = { count: 0, generation: 1, acc: Buffer.alloc(32), placeholderKey };
      store.write(() => {
        store.insertHeader({ format: FORMAT_VERSION, vault_id: vaultId, created_at: createdAt, kdf: kdf.kind, kdf_preset: kdf.preset, kdf_salt: kdf.salt, kdf_ops: kdf.ops, kdf_mem: kdf.mem, active_key: dk.keyId, checksum });
        store.putKey(keyRow);
        store.putState(sealState(dk, vaultId, state));
      });
    } finally {
      store.close();
    }
    const placed = placeWithoutReplacing(tmp, path);
    if (!placed) return err(existsError(path));
    syncDirectory(dirname(path));
  } catch (error) {
    wipe(kek);
    return err(toVaultError(error, path));
  } finally {
    wipeDataKey(dk);
    wipe(placeholderKey);
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${tmp}${suffix}`, { force: true });
  }
  const opened = openVaultStore(path);
  if (!opened.ok) { wipe(kek); return opened; }
  const vault = new Vault(opened.value, kek, kdf, vaultId);
  const verified = vault.verify('unlock');
  if (!verified.ok) { vault.close(); return verified; }
  return ok(vault);
}

/** Opens an existing vault file without unlocking it (file and header checks only). */
export async function openVault(path: string): Promise<Result<LockedVault>> {
  await initSeal();
  const store = openVaultStore(path);
  if (!store.ok) return store;
  try {
    const header = readHeader(store.value);
    return ok(new LockedVault(store.value, header.row));
  } catch (error) {
    store.value.close();
    return err(toVaultError(error, path));
  }
}

/** Opens and unlocks the vault at `path` in one step. */
export async function unlockVault(path: string, credential: VaultCredential): Promise<Result<Vault>> {
  const locked = await openVault(path);
  if (!locked.ok) return locked;
  const vault = await locked.value.unlock(credential);
  if (!vault.ok) locked.value.close();
  return vault;
}

/** A vault whose file and header were checked, waiting for its passphrase or key file. */
export class LockedVault {
  readonly path: string;
  private readonly store: VaultStore;
  private readonly header: HeaderRow;

  constructor(store: VaultStore, header: HeaderRow) {
    this.store = store;
    this.path = store.path;
    this.header = header;
  }

  /** How this vault is unlocked: "passphrase" or "key-file". */
  get credentialKind(): VaultCredential['kind'] {
    return this.header.kdf === 'key-file' ? 'key-file' : 'passphrase';
  }

  /** Header facts and the record count, without unlocking. */
  info(): VaultInfo {
    return headerInfo(this.store, this.header);
  }

  /** SQLite's integrity check of the whole file passes. */
  integrityOk(): boolean {
    return this.store.integrityOk();
  }

  /** Derives the KEK, unwraps the data keys and verifies every record; the Vault then owns the file. */
  async unlock(credential: VaultCredential): Promise<Result<Vault>> {
    const kdf = checkKdfParams(kdfFromHeader(this.header));
    if (!kdf.ok) return kdf;
    const kek = await deriveKek(credential, kdf.value);
    if (!kek.ok) return kek;
    const vault = new Vault(this.store, kek.value, kdf.value, this.header.vault_id);
    const verified = vault.verify('unlock');
    if (!verified.ok) {
      vault.forget();
      return verified;
    }
    tightenMode(this.path);
    return ok(vault);
  }

  close(): void {
    this.store.close();
  }
}

function existsError(path: string) {
  return vaultError('FICTA_VAULT_EXISTS', `a vault already exists at ${path}; it was left untouched`);
}

/** Moves `tmp` to `path` unless something is there; false when it was. */
function placeWithoutReplacing(tmp: string, path: string): boolean {
  try {
    linkSync(tmp, path);
    return true;
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    // File systems without hard links: rename after a check (a narrower race than none at all).
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw cause;
    if (exists(path)) return false;
    renameSync(tmp, path);
    return true;
  }
}

function exists(path: string): boolean {
  try { statSync(path); return true; } catch { return false; }
}

function tightenMode(path: string): void {
  try {
    const mode = statSync(path).mode & 0o777;
    if ((mode & 0o077) !== 0) chmodSync(path, 0o600);
  } catch {
    // Best effort: `vault status` reports a loose mode.
  }
}

/** fsyncs a directory so a rename or link in it is durable (best effort: some file systems refuse). */
export function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some file systems refuse fsync on a directory; the link itself is already atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
