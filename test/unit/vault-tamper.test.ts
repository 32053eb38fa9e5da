// Damage and tampering: each case gives its own error code, leaves the file byte-for-byte unchanged, and
// never turns into a fresh empty vault.

import { copyFileSync, mkdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, test } from 'vitest';
import { openDatabase } from '../../src/util/sqlite.ts';
import { createVault, unlockVault } from '../../src/vault/open.ts';
import { type Vault } from '../../src/vault/vault.ts';
import { PASSPHRASE, contentDigest, expectCode, expectSecrets, fileDigest, makeVault, tempHome, type TempHome } from './vault-helpers.ts';

const SECRETS = { ALPHA_TOKEN: 'alpha-value-0001', BRAVO_TOKEN: 'bravo-value-0002', CHARLIE_TOKEN: 'charlie-value-0003' };

let t: TempHome;
afterEach(() => t?.cleanup());

/** Runs SQL against the closed vault file with a plain connection, like an attacker with write access. */
function edit(path: string, fn: (db: ReturnType<typeof openDatabase>) => void, create = false): void {
  const db = openDatabase(path, { fileMustExist: !create });
  try { fn(db); } finally { db.close(); }
}

function flipBit(buf: Buffer, at: number): Buffer {
  const out = Buffer.from(buf);
  out[at] = (out[at] as number) ^ 0x01;
  return out;
}

async function closedVault(): Promise<void> {
  t = tempHome();
  (await makeVault(t.path, SECRETS)).close();
}

/** Unlocking fails with `code`, and neither unlocking nor the failed attempt changed a byte on disk. */
async function expectUnlockFails(code: string, credential = PASSPHRASE): Promise<void> {
  const before = fileDigest(t.path);
  expectCode(await unlockVault(t.path, credential), code);
  expect(fileDigest(t.path)).toBe(before);
  // Still not a silent new vault: creating over it is refused too.
  expectCode(await createVault(t.path, PASSPHRASE, { kdf: 'min' }), 'FICTA_VAULT_EXISTS');
  expect(fileDigest(t.path)).toBe(before);
}

describe('vault tamper and damage detection', () => {
  test('a wrong passphrase is FICTA_VAULT_WRONG_PASSPHRASE', async () => {
    await closedVault();
    await expectUnlockFails('FICTA_VAULT_WRONG_PASSPHRASE', { kind: 'passphrase', passphrase: 'correct horse battery stapler' });
  });

  test('a wrong key file is FICTA_VAULT_WRONG_KEY, and a passphrase for a key-file vault is FICTA_VAULT_LOCKED', async () => {
    t = tempHome();
    (await makeVault(t.path, SECRETS, { kind: 'key-file', key: Buffer.alloc(32, 1), path: 'a' })).close();
    await expectUnlockFails('FICTA_VAULT_WRONG_KEY', { kind: 'key-file', key: Buffer.alloc(32, 2), path: 'b' });
    await expectUnlockFails('FICTA_VAULT_LOCKED', PASSPHRASE);
  });

  test('a flipped bit in a sealed record is FICTA_VAULT_RECORD_TAMPERED', async () => {
    await closedVault();
    edit(t.path, (db) => {
      const row = db.prepare('SELECT id, sealed FROM records ORDER BY id LIMIT 1').get() as { id: number; sealed: Buffer };
      db.prepare('UPDATE records SET sealed = ? WHERE id = ?').run(flipBit(row.sealed, 5), row.id);
    });
    await expectUnlockFails('FICTA_VAULT_RECORD_TAMPERED');
  });

  test('a flipped bit in the raw file bytes of a ciphertext is FICTA_VAULT_RECORD_TAMPERED', async () => {
    await closedVault();
    let sealed: Buffer = Buffer.alloc(0);
    edit(t.path, (db) => { sealed = db.prepare('SELECT sealed FROM records ORDER BY id LIMIT 1').pluck().get() as Buffer; });
    const bytes = readFileSync(t.path);
    const at = bytes.indexOf(sealed);
    expect(at).toBeGreaterThan(0);
    writeFileSync(t.path, flipBit(bytes, at + 10));
    await expectUnlockFails('FICTA_VAULT_RECORD_TAMPERED');
  });

  test('an edited version or name index (bound as associated data) is FICTA_VAULT_RECORD_TAMPERED', async () => {
    await closedVault();
    edit(t.path, (db) => db.prepare('UPDATE records SET version = version + 1 WHERE id = (SELECT min(id) FROM records)').run());
    await expectUnlockFails('FICTA_VAULT_RECORD_TAMPERED');
    t.cleanup();
    await closedVault();
    edit(t.path, (db) => {
      const rows = db.prepare('SELECT id, name_index FROM records ORDER BY id').all() as Array<{ id: number; name_index: Buffer }>;
      const [a, b] = rows as [typeof rows[0], typeof rows[0]];
      db.prepare('UPDATE records SET name_index = ? WHERE id = ?').run(Buffer.alloc(32), a.id);
      db.prepare('UPDATE records SET name_index = ? WHERE id = ?').run(a.name_index, b.id);
      db.prepare('UPDATE records SET name_index = ? WHERE id = ?').run(b.name_index, a.id);
    });
    await expectUnlockFails('FICTA_VAULT_RECORD_TAMPERED');
  });

  test('two swapped rows are FICTA_VAULT_RECORD_SWAPPED', async () => {
    await closedVault();
    edit(t.path, (db) => {
      const rows = db.prepare('SELECT id, name_index, key_id, version, nonce, sealed FROM records ORDER BY id').all() as Array<Record<string, unknown> & { id: number }>;
      const [a, b] = rows as [typeof rows[0], typeof rows[0]];
      const put = db.prepare('UPDATE records SET name_index = @name_index, key_id = @key_id, version = @version, nonce = @nonce, sealed = @sealed WHERE id = @target');
      db.prepare('UPDATE records SET name_index = randomblob(32) WHERE id = ?').run(a.id); // keeps UNIQUE satisfied
      put.run({ ...a, target: b.id });
      put.run({ ...b, target: a.id });
    });
    await expectUnlockFails('FICTA_VAULT_RECORD_SWAPPED');
  });

  test('a deleted row is FICTA_VAULT_ROWS_DELETED', async () => {
    await closedVault();
    edit(t.path, (db) => db.prepare('DELETE FROM records WHERE id = (SELECT max(id) FROM records)').run());
    await expectUnlockFails('FICTA_VAULT_ROWS_DELETED');
  });

  test('a removed row put back is FICTA_VAULT_ROWS_ADDED', async () => {
    t = tempHome();
    const v = await makeVault(t.path, SECRETS);
    let saved: Record<string, unknown> = {};
    edit(t.path, (db) => { saved = db.prepare('SELECT * FROM records WHERE id = (SELECT max(id) FROM records)').get() as Record<string, unknown>; });
    expect(v.remove('CHARLIE_TOKEN').ok).toBe(true);
    v.close();
    edit(t.path, (db) => db.prepare('INSERT INTO records (id, name_index, key_id, version, nonce, sealed) VALUES (@id, @name_index, @key_id, @version, @nonce, @sealed)').run(saved));
    await expectUnlockFails('FICTA_VAULT_ROWS_ADDED');
  });

  test('a row rolled back to its older sealed copy is FICTA_VAULT_ROWS_ROLLED_BACK', async () => {
    t = tempHome();
    const v = await makeVault(t.path, SECRETS);
    let old: Record<string, unknown> = {};
    edit(t.path, (db) => { old = db.prepare('SELECT * FROM records WHERE id = (SELECT min(id) FROM records)').get() as Record<string, unknown>; });
    expect(v.add('ALPHA_TOKEN', 'alpha-rotated-0009', { replace: true })).toEqual({ ok: true, value: 'replaced' });
    v.close();
    // The old copy authenticates on its own (its version is in its associated data); only the set MAC knows.
    edit(t.path, (db) => db.prepare('UPDATE records SET name_index = @name_index, key_id = @key_id, version = @version, nonce = @nonce, sealed = @sealed WHERE id = @id').run(old));
    await expectUnlockFails('FICTA_VAULT_ROWS_ROLLED_BACK');
  });

  test('an altered state row is FICTA_VAULT_STATE_TAMPERED', async () => {
    await closedVault();
    edit(t.path, (db) => {
      const sealed = db.prepare('SELECT sealed FROM state').pluck().get() as Buffer;
      db.prepare('UPDATE state SET sealed = ?').run(flipBit(sealed, 3));
    });
    await expectUnlockFails('FICTA_VAULT_STATE_TAMPERED');
  });

  test('a damaged header is FICTA_VAULT_CORRUPT, not a wrong passphrase', async () => {
    await closedVault();
    edit(t.path, (db) => {
      const salt = db.prepare('SELECT kdf_salt FROM header').pluck().get() as Buffer;
      db.prepare('UPDATE header SET kdf_salt = ?').run(flipBit(salt, 0));
    });
    await expectUnlockFails('FICTA_VAULT_CORRUPT');
  });

  test('an unknown format version is FICTA_VAULT_UNSUPPORTED_VERSION (schema and header)', async () => {
    await closedVault();
    edit(t.path, (db) => db.pragma('user_version = 2'));
    await expectUnlockFails('FICTA_VAULT_UNSUPPORTED_VERSION');
    t.cleanup();
    await closedVault();
    edit(t.path, (db) => db.prepare('UPDATE header SET format = 2').run());
    await expectUnlockFails('FICTA_VAULT_UNSUPPORTED_VERSION');
  });

  test('a truncated or emptied file is FICTA_VAULT_TRUNCATED', async () => {
    await closedVault();
    const size = readFileSync(t.path).length;
    truncateSync(t.path, Math.floor(size / 2));
    await expectUnlockFails('FICTA_VAULT_TRUNCATED');
    truncateSync(t.path, 0);
    await expectUnlockFails('FICTA_VAULT_TRUNCATED');
  });

  test('a file that is not a ficta vault is FICTA_VAULT_CORRUPT; a missing one FICTA_VAULT_NOT_FOUND', async () => {
    t = tempHome();
    mkdirSync(t.home, { recursive: true });
    writeFileSync(t.path, Buffer.alloc(8192, 0x41));
    await expectUnlockFails('FICTA_VAULT_CORRUPT');
    edit(`${t.home}/other.db`, (db) => db.exec('CREATE TABLE x (y)'), true);
    copyFileSync(`${t.home}/other.db`, t.path);
    await expectUnlockFails('FICTA_VAULT_CORRUPT');
    expectCode(await unlockVault(`${t.home}/absent.db`, PASSPHRASE), 'FICTA_VAULT_NOT_FOUND');
  });

  test('every code above is distinct', () => {
    const codes = ['FICTA_VAULT_WRONG_PASSPHRASE', 'FICTA_VAULT_WRONG_KEY', 'FICTA_VAULT_RECORD_TAMPERED', 'FICTA_VAULT_RECORD_SWAPPED',
      'FICTA_VAULT_ROWS_DELETED', 'FICTA_VAULT_ROWS_ADDED', 'FICTA_VAULT_ROWS_ROLLED_BACK', 'FICTA_VAULT_STATE_TAMPERED',
      'FICTA_VAULT_CORRUPT', 'FICTA_VAULT_UNSUPPORTED_VERSION', 'FICTA_VAULT_TRUNCATED', 'FICTA_VAULT_NOT_FOUND'];
    expect(new Set(codes).size).toBe(codes.length);
  });
});

describe('an unlocked vault meets a file changed by someone else', () => {
  async function openBoth(): Promise<Vault> {
    t = tempHome();
    return makeVault(t.path, SECRETS);
  }

  test('a write re-verifies first: a row deleted by another connection blocks the add and changes nothing', async () => {
    const v = await openBoth();
    edit(t.path, (db) => db.prepare('DELETE FROM records WHERE id = (SELECT min(id) FROM records)').run());
    const before = contentDigest(t.path);
    expectCode(v.add('DELTA_TOKEN', 'delta-value-0004'), 'FICTA_VAULT_ROWS_DELETED');
    expectCode(v.entries(), 'FICTA_VAULT_ROWS_DELETED');
    expect(contentDigest(t.path)).toBe(before);
    v.close();
  });

  test('the whole vault set back to an older consistent copy is FICTA_VAULT_ROLLED_BACK for a running reader', async () => {
    const v = await openBoth();
    let oldState: Record<string, unknown> = {};
    edit(t.path, (db) => { oldState = db.prepare('SELECT * FROM state').get() as Record<string, unknown>; });
    const writer = await unlockVault(t.path, PASSPHRASE);
    if (!writer.ok) throw writer.error;
    expect(writer.value.add('DELTA_TOKEN', 'delta-value-0004').ok).toBe(true);
    writer.value.close();
    expectSecrets(v.entries(), { ...SECRETS, DELTA_TOKEN: 'delta-value-0004' });
    // Undo the add everywhere (row and state), as restoring an old backup would.
    edit(t.path, (db) => {
      db.prepare('DELETE FROM records WHERE id = (SELECT max(id) FROM records)').run();
      db.prepare('UPDATE state SET key_id = @key_id, nonce = @nonce, sealed = @sealed').run(oldState);
    });
    expectCode(v.entries(), 'FICTA_VAULT_ROLLED_BACK');
    v.close();
    // A fresh process has no memory of the newer generation: an old backup is a valid vault (see docs/vault.md).
    const fresh = await unlockVault(t.path, PASSPHRASE);
    expect(fresh.ok).toBe(true);
    if (fresh.ok) fresh.value.close();
  });
});
