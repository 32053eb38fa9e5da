// Backing up and restoring the vault file. A backup is a consistent copy taken while the vault may be in
// use (SQLite's VACUUM INTO), checked by opening it; a restore puts a copy that was unlocked first in place
// of vault.db in one rename, keeping the old file aside. Neither ever leaves a half-written vault.db.

import { closeSync, existsSync, linkSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { err, ok, type Result } from '../util/result.ts';
import { vaultError } from './errors.ts';
import { openVault, syncDirectory } from './open.ts';
import { randomKeyBytes } from './seal.ts';
import { openVaultStore, toVaultError } from './store.ts';
import type { VaultInfo } from './rows.ts';

const SIDE_FILES = ['-wal', '-shm', '-journal'] as const;

/** Copies the vault at `path` to `dest` (mode 0600; never over an existing file) and checks the copy opens. */
export async function backupVault(path: string, dest: string): Promise<Result<VaultInfo>> {
  if (existsSync(dest)) return err(vaultError('FICTA_VAULT_EXISTS', `${dest} already exists; choose another name (a backup never overwrites a file)`));
  const source = await openVault(path);
  if (!source.ok) return source;
  const sourceInfo = source.value.info();
  const tmp = tempName(dest, 'backup');
  try {
    const copied = copyStore(path, tmp);
    if (!copied.ok) return copied;
    const checked = await checkCopy(tmp, sourceInfo);
    if (!checked.ok) return checked;
    if (!placeWithoutReplacing(tmp, dest)) return err(vaultError('FICTA_VAULT_EXISTS', `${dest} appeared while the backup was written; it was left untouched`));
    syncDirectory(dirname(dest));
    return checked;
  } catch (error) {
    return err(toVaultError(error, dest));
  } finally {
    source.value.close();
    removeWithSideFiles(tmp);
  }
}

export interface RestorePlan {
  /** Where the old vault.db was kept, when there was one. */
  keptAs: string | undefined;
  info: VaultInfo;
}

/**
 * Replaces the vault at `path` with a copy of `from` (the caller has unlocked `from` already, so it is a
 * vault its credentials open). The old file stays as `vault.db.replaced-<time>`; vault.db is replaced in
 * one rename, so it is never missing or half-written.
 */
export async function restoreVault(from: string, path: string): Promise<Result<RestorePlan>> {
  const tmp = tempName(path, 'restore');
  try {
    const copied = copyStore(from, tmp);
    if (!copied.ok) return copied;
    const checked = await checkCopy(tmp, undefined);
    if (!checked.ok) return checked;
    if (!existsSync(path)) {
      if (!placeWithoutReplacing(tmp, path)) return err(vaultError('FICTA_VAULT_EXISTS', `a vault appeared at ${path} during the restore; run it again`));
      syncDirectory(dirname(path));
      return ok({ keptAs: undefined, info: checked.value });
    }
    const keptAs = `${path}.replaced-${new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}`;
    keepAside(path, keptAs);
    renameSync(tmp, path);
    syncDirectory(dirname(path));
    return ok({ keptAs, info: checked.value });
  } catch (error) {
    return err(toVaultError(error, path));
  } finally {
    removeWithSideFiles(tmp);
  }
}

/** VACUUM INTO a new 0600 file. */
function copyStore(path: string, dest: string): Result<void> {
  const store = openVaultStore(path);
  if (!store.ok) return store;
  try {
    closeSync(openSync(dest, 'wx', 0o600));
    store.value.copyTo(dest);
    return ok(undefined);
  } finally {
    store.value.close();
  }
}

/** Opens the copy as a vault: file, header, SQLite integrity, and the same vault as the source. */
async function checkCopy(copy: string, expected: VaultInfo | undefined): Promise<Result<VaultInfo>> {
  const opened = await openVault(copy);
  if (!opened.ok) return opened;
  try {
    const info = opened.value.info();
    if (!opened.value.integrityOk()) return err(vaultError('FICTA_VAULT_CORRUPT', 'the copy failed SQLite\'s integrity check'));
    if (!info.headerIntact) return err(vaultError('FICTA_VAULT_CORRUPT', 'the copy\'s header is damaged'));
    if (expected !== undefined && info.vaultId !== expected.vaultId) return err(vaultError('FICTA_VAULT_CORRUPT', 'the copy is not the same vault'));
    return ok(info);
  } finally {
    opened.value.close();
  }
}

/** Keeps the current vault file as `keptAs` (with any unmerged write-ahead log) and leaves `path` itself in place. */
function keepAside(path: string, keptAs: string): void {
  const store = openVaultStore(path);
  if (store.ok) {
    try {
      store.value.checkpoint();
    } catch {
      // A damaged file cannot be checkpointed; its log moves aside with it below.
    } finally {
      store.value.close();
    }
  }
  linkSync(path, keptAs);
  for (const suffix of SIDE_FILES) {
    const side = `${path}${suffix}`;
    if (!existsSync(side)) continue;
    // A log still holding commits belongs to the old file: it moves with it, never onto the new one.
    if (suffix === '-wal' && statSync(side).size > 0) renameSync(side, `${keptAs}${suffix}`);
    else rmSync(side, { force: true });
  }
}

function tempName(near: string, what: string): string {
  return join(dirname(near), `.${basename(near)}.${what}-${process.pid}-${randomKeyBytes(4).toString('hex')}`);
}

function removeWithSideFiles(path: string): void {
  for (const suffix of ['', ...SIDE_FILES]) rmSync(`${path}${suffix}`, { force: true });
}

/** Moves `tmp` to `path` unless something is there; false when it was. */
function placeWithoutReplacing(tmp: string, path: string): boolean {
  try {
    linkSync(tmp, path);
    return true;
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw cause;
  }
}
