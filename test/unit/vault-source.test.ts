// The vault as the proxy's secret source: verified loads, changes by other connections noticed by polling,
// fail-closed errors when the file is tampered with, removed, replaced or re-keyed out of reach.

import { chmodSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, test } from 'vitest';
import { openDatabase } from '../../src/util/sqlite.ts';
import { createVaultSecretSource, unlockVaultSource, vaultExists, type VaultSecretSource } from '../../src/vault/source.ts';
import { unlockVault } from '../../src/vault/open.ts';
import { type Vault } from '../../src/vault/vault.ts';
import { PASSPHRASE, expectCode, expectSecrets, makeVault, tempHome, type TempHome } from './vault-helpers.ts';

const SECRETS = { ALPHA_TOKEN: 'alpha-value-0001', BRAVO_TOKEN: 'bravo-value-0002' };

let t: TempHome;
let source: VaultSecretSource | undefined;
afterEach(() => {
  source?.close();
  source = undefined;
  t?.cleanup();
});

async function setup(): Promise<Vault> {
  t = tempHome();
  const v = await makeVault(t.path, SECRETS);
  const placeholder = v.placeholderKey();
  v.close();
  const reader = await unlockVault(t.path, PASSPHRASE);
  if (!reader.ok) throw reader.error;
  source = createVaultSecretSource(reader.value, { pollIntervalMs: 20 });
  const key = await source.getKey();
  expect(key.ok && key.value.equals(placeholder)).toBe(true);
  // A second, independent connection plays the `ficta vault add` of another process.
  const writer = await unlockVault(t.path, PASSPHRASE);
  if (!writer.ok) throw writer.error;
  return writer.value;
}

/** Resolves on the next change notification (or fails after `ms`). */
function nextChange(s: VaultSecretSource, ms = 3000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { stop(); reject(new Error('no change noticed')); }, ms);
    const stop = s.watch!(() => { clearTimeout(timer); stop(); resolve(); });
  });
}

describe('vault secret source', () => {
  test('loads verified entries as kind "vault" and hands out the sealed placeholder key', async () => {
    const writer = await setup();
    writer.close();
    expect(source!.kind).toBe('vault');
    const loaded = await source!.load();
    expectSecrets(loaded, SECRETS);
    expect(loaded.ok && loaded.value.every((e) => e.source === 'vault')).toBe(true);
  });

  test('notices an add and a remove committed by another connection, without a restart', async () => {
    const writer = await setup();
    const added = nextChange(source!);
    expect(writer.add('CHARLIE_TOKEN', 'charlie-value-0003').ok).toBe(true);
    await added;
    expectSecrets(await source!.load(), { ...SECRETS, CHARLIE_TOKEN: 'charlie-value-0003' });
    const removed = nextChange(source!);
    expect(writer.remove('ALPHA_TOKEN').ok).toBe(true);
    await removed;
    expectSecrets(await source!.load(), { BRAVO_TOKEN: 'bravo-value-0002', CHARLIE_TOKEN: 'charlie-value-0003' });
    writer.close();
  });

  test('a rekey by another connection is followed; a rekey after a new passphrase locks the source', async () => {
    const writer = await setup();
    expect(writer.rekey().ok).toBe(true);
    expectSecrets(await source!.load(), SECRETS);
    expect((await writer.passwd({ kind: 'passphrase', passphrase: 'another passphrase' }, { kdf: 'min' })).ok).toBe(true);
    expectSecrets(await source!.load(), SECRETS); // data keys unchanged: still readable
    expect(writer.rekey().ok).toBe(true);
    expectCode(await source!.load(), 'FICTA_VAULT_LOCKED');
    writer.close();
  });

  test('tampering while running makes load fail closed, and the source recovers when the file is whole again', async () => {
    const writer = await setup();
    writer.close();
    const db = openDatabase(t.path, { fileMustExist: true });
    const row = db.prepare('SELECT * FROM records ORDER BY id LIMIT 1').get() as Record<string, unknown>;
    const changed = nextChange(source!);
    db.prepare('DELETE FROM records WHERE id = ?').run(row.id);
    await changed;
    expectCode(await source!.load(), 'FICTA_VAULT_ROWS_DELETED');
    db.prepare('INSERT INTO records (id, name_index, key_id, version, nonce, sealed) VALUES (@id, @name_index, @key_id, @version, @nonce, @sealed)').run(row);
    db.close();
    expectSecrets(await source!.load(), SECRETS);
  });

  test('a removed or replaced vault file makes load fail with FICTA_VAULT_UNAVAILABLE', async () => {
    const writer = await setup();
    writer.close();
    const aside = join(t.home, 'aside.db');
    renameSync(t.path, aside);
    expectCode(await source!.load(), 'FICTA_VAULT_UNAVAILABLE');
    writeFileSync(t.path, 'x');
    expectCode(await source!.load(), 'FICTA_VAULT_UNAVAILABLE');
    rmSync(t.path);
    renameSync(aside, t.path);
    expectSecrets(await source!.load(), SECRETS);
  });

  test('unsubscribing stops notifications; close releases the vault', async () => {
    const writer = await setup();
    let calls = 0;
    const stop = source!.watch!(() => { calls += 1; });
    stop();
    writer.add('CHARLIE_TOKEN', 'charlie-value-0003');
    await new Promise((r) => setTimeout(r, 100));
    expect(calls).toBe(0);
    writer.close();
    source!.close();
    expectCode(await source!.load(), 'FICTA_VAULT_UNAVAILABLE');
    expectCode(await source!.getKey(), 'FICTA_VAULT_UNAVAILABLE');
  });
});

describe('unlockVaultSource and vaultExists', () => {
  test('unlock from FICTA_VAULT_PASSPHRASE or a key file; neither and no terminal is FICTA_VAULT_LOCKED', async () => {
    t = tempHome();
    expect(vaultExists(t.home)).toBe(false);
    (await makeVault(t.path, SECRETS)).close();
    expect(vaultExists(t.home)).toBe(true);
    const quiet = { stdin: new PassThrough(), stderr: new PassThrough() };
    expectCode(await unlockVaultSource({ home: t.home, env: {}, ...quiet }), 'FICTA_VAULT_LOCKED');
    expectCode(await unlockVaultSource({ home: t.home, env: { FICTA_VAULT_PASSPHRASE: 'not the passphrase' }, ...quiet }), 'FICTA_VAULT_WRONG_PASSPHRASE');
    const unlocked = await unlockVaultSource({ home: t.home, env: { FICTA_VAULT_PASSPHRASE: (PASSPHRASE as { passphrase: string }).passphrase }, ...quiet });
    if (!unlocked.ok) throw unlocked.error;
    source = unlocked.value;
    expectSecrets(await source.load(), SECRETS);
  });

  test('a key-file vault unlocks from FICTA_VAULT_KEY_FILE or --key-file, and refuses a key file others can read', async () => {
    t = tempHome();
    const key = Buffer.alloc(32, 0x5a);
    (await makeVault(t.path, SECRETS, { kind: 'key-file', key, path: 'k' })).close();
    const keyPath = join(t.home, 'vault.key');
    writeFileSync(keyPath, `${key.toString('hex')}\n`, { mode: 0o600 });
    const quiet = { stdin: new PassThrough(), stderr: new PassThrough() };
    const viaEnv = await unlockVaultSource({ home: t.home, env: { FICTA_VAULT_KEY_FILE: keyPath }, ...quiet });
    if (!viaEnv.ok) throw viaEnv.error;
    viaEnv.value.close();
    const viaFlag = await unlockVaultSource({ home: t.home, env: {}, keyFile: keyPath, ...quiet });
    if (!viaFlag.ok) throw viaFlag.error;
    source = viaFlag.value;
    expectSecrets(await source.load(), SECRETS);
    chmodSync(keyPath, 0o644);
    expectCode(await unlockVaultSource({ home: t.home, env: {}, keyFile: keyPath, ...quiet }), 'FICTA_VAULT_KEY_FILE_INVALID');
  });
});
