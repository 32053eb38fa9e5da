// The vault API on real SQLite files and real libsodium: add/replace/remove/import/list/rekey/passwd, value
// rules, sealed names and values, the placeholder key, file modes.

import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, test } from 'vitest';
import { MIN_SECRET_LENGTH } from '../../src/secrets/types.ts';
import { openDatabase } from '../../src/util/sqlite.ts';
import { createVault, openVault, unlockVault } from '../../src/vault/open.ts';
import { openVaultStore } from '../../src/vault/store.ts';
import { PASSPHRASE, expectCode, expectSecrets, fakeSecrets, makeVault, tempHome, type TempHome } from './vault-helpers.ts';

let t: TempHome;
afterEach(() => t?.cleanup());

describe('vault API', () => {
  test('adds, reports unchanged, refuses a different value without replace, and replaces with it', async () => {
    t = tempHome();
    const v = await makeVault(t.path);
    expect(v.add('GITHUB_TOKEN', 'ghp_first-value-0001')).toEqual({ ok: true, value: 'added' });
    expect(v.add('GITHUB_TOKEN', 'ghp_first-value-0001')).toEqual({ ok: true, value: 'unchanged' });
    expectCode(v.add('GITHUB_TOKEN', 'ghp_other-value-0002'), 'FICTA_VAULT_NAME_EXISTS');
    expect(v.add('GITHUB_TOKEN', 'ghp_other-value-0002', { replace: true })).toEqual({ ok: true, value: 'replaced' });
    v.close();
    const again = await unlockVault(t.path, PASSPHRASE);
    if (!again.ok) throw again.error;
    expectSecrets(again.value.entries(), { GITHUB_TOKEN: 'ghp_other-value-0002' });
    again.value.close();
  });

  test('refuses empty, too short, too long and non-UTF-8 values and invalid names', async () => {
    t = tempHome();
    const v = await makeVault(t.path);
    expectCode(v.add('EMPTY', ''), 'FICTA_VAULT_VALUE_INVALID');
    expectCode(v.add('SHORT', 'x'.repeat(MIN_SECRET_LENGTH - 1)), 'FICTA_VAULT_VALUE_INVALID');
    // Counted in characters, as the proxy counts them: 7 two-byte characters are still too short.
    expectCode(v.add('SHORT_UNICODE', 'é'.repeat(MIN_SECRET_LENGTH - 1)), 'FICTA_VAULT_VALUE_INVALID');
    expect(v.add('JUST_LONG_ENOUGH', 'x'.repeat(MIN_SECRET_LENGTH)).ok).toBe(true);
    expectCode(v.add('HUGE', 'x'.repeat(64 * 1024 + 1)), 'FICTA_VAULT_VALUE_INVALID');
    expectCode(v.add('LONE_SURROGATE', 'abcdefgh\uD800'), 'FICTA_VAULT_VALUE_INVALID');
    expectCode(v.add('1BAD', 'abcdefghijk'), 'FICTA_VAULT_NAME_INVALID');
    expectCode(v.add('has space', 'abcdefghijk'), 'FICTA_VAULT_NAME_INVALID');
    v.close();
  });

  test('removes by name and reports an unknown name', async () => {
    t = tempHome();
    const v = await makeVault(t.path, { A_TOKEN: 'aaaaaaaaaaaa', B_TOKEN: 'bbbbbbbbbbbb' });
    expect(v.remove('A_TOKEN').ok).toBe(true);
    expectCode(v.remove('A_TOKEN'), 'FICTA_VAULT_NAME_UNKNOWN');
    expect(v.has('A_TOKEN')).toEqual({ ok: true, value: false });
    expect(v.has('B_TOKEN')).toEqual({ ok: true, value: true });
    expectSecrets(v.entries(), { B_TOKEN: 'bbbbbbbbbbbb' });
    v.close();
  });

  test('import reports added, updated, unchanged and skipped by name; a name given one value twice is one entry', async () => {
    t = tempHome();
    const v = await makeVault(t.path, { KEEP: 'keep-me-12345', CHANGE: 'old-value-12345' });
    const r = v.import([
      { name: 'KEEP', value: 'keep-me-12345', source: 'file:a' },
      { name: 'CHANGE', value: 'new-value-12345', source: 'file:a' },
      { name: 'NEW', value: 'first-0000000', source: 'file:a' },
      { name: 'NEW', value: 'first-0000000', source: 'file:b' },
      { name: 'TINY', value: 'abc', source: 'file:a' },
      { name: 'BLANK', value: '', source: 'file:a' },
    ], { replace: true });
    if (!r.ok) throw r.error;
    expect(r.value).toEqual({ added: ['NEW'], updated: ['CHANGE'], unchanged: ['KEEP'], skipped: [{ name: 'TINY', reason: 'too short' }, { name: 'BLANK', reason: 'empty' }], renamed: [] });
    expectSecrets(v.entries(), { KEEP: 'keep-me-12345', CHANGE: 'new-value-12345', NEW: 'first-0000000' });
    v.close();
  });

  test('import of a name given different values fails whole, naming it and its sources; rename keeps every value', async () => {
    t = tempHome();
    const v = await makeVault(t.path, { KEEP: 'keep-me-12345', NEW_2: 'taken-already-1' });
    const items = [
      { name: 'FRESH', value: 'fresh-value-123', source: 'file:a' },
      { name: 'NEW', value: 'first-0000000', source: 'file:a' },
      { name: 'NEW', value: 'second-000000', source: 'file:b' },
      { name: 'NEW', value: 'third-0000000', source: 'file:b' },
    ];
    const r = v.import(items);
    expectCode(r, 'FICTA_VAULT_DUPLICATE_NAME');
    expect(!r.ok && r.error.message).toContain('NEW (file:a, file:b)');
    expect(!r.ok && r.error.message).not.toContain('0000000');
    expectSecrets(v.entries(), { KEEP: 'keep-me-12345', NEW_2: 'taken-already-1' }); // nothing imported
    const renamed = v.import(items, { rename: true });
    if (!renamed.ok) throw renamed.error;
    // NEW_2 is already in the vault: the next free names are used.
    expect(renamed.value.renamed).toEqual([{ name: 'NEW', as: 'NEW_3', source: 'file:b' }, { name: 'NEW', as: 'NEW_4', source: 'file:b' }]);
    expect(renamed.value.added).toEqual(['FRESH', 'NEW', 'NEW_3', 'NEW_4']);
    expectSecrets(v.entries(), { KEEP: 'keep-me-12345', NEW_2: 'taken-already-1', FRESH: 'fresh-value-123', NEW: 'first-0000000', NEW_3: 'second-000000', NEW_4: 'third-0000000' });
    v.close();
  });

  test('import without replace fails whole on a changed value and names it', async () => {
    t = tempHome();
    const v = await makeVault(t.path, { CHANGE: 'old-value-12345' });
    const r = v.import([{ name: 'FRESH', value: 'fresh-value-123', source: 'f' }, { name: 'CHANGE', value: 'new-value-12345', source: 'f' }]);
    expectCode(r, 'FICTA_VAULT_NAME_EXISTS');
    expect(!r.ok && r.error.message).toContain('CHANGE');
    expectSecrets(v.entries(), { CHANGE: 'old-value-12345' }); // FRESH was rolled back with the rest
    v.close();
  });

  test('list gives names, lengths in characters, sources and times, sorted, without values', async () => {
    t = tempHome();
    const v = await makeVault(t.path);
    const before = Date.now();
    v.add('ZED', 'zzzzzzzzzz', { source: 'stdin' });
    v.add('ALPHA', 'ééééééééé', { source: 'env:ALPHA' });
    const r = v.list();
    if (!r.ok) throw r.error;
    expect(r.value.map((e) => [e.name, e.length, e.source])).toEqual([['ALPHA', 9, 'env:ALPHA'], ['ZED', 10, 'stdin']]);
    expect(r.value.every((e) => e.addedAt >= before && e.updatedAt >= e.addedAt)).toBe(true);
    expect(JSON.stringify(r.value)).not.toContain('zzzzzzzzzz');
    v.close();
  });

  test('replace keeps the added time and moves the updated time', async () => {
    t = tempHome();
    const v = await makeVault(t.path);
    v.add('TOKEN', 'first-value-123');
    const first = v.list();
    await new Promise((r) => setTimeout(r, 5));
    v.add('TOKEN', 'second-value-123', { replace: true });
    const second = v.list();
    if (!first.ok || !second.ok) throw new Error('list failed');
    expect(second.value[0]?.addedAt).toBe(first.value[0]?.addedAt);
    expect(second.value[0]?.updatedAt).toBeGreaterThan(first.value[0]?.updatedAt as number);
    v.close();
  });

  test('neither names nor values appear in the file bytes (database and WAL)', async () => {
    t = tempHome();
    const secrets = { VERY_DISTINCT_NAME_XYZZY: 'distinct-value-plugh-0123456789', OTHER_NAME_FROBOZZ: 'value-grue-9876543210' };
    const v = await makeVault(t.path, secrets);
    const files = [t.path, `${t.path}-wal`].filter(existsSync).map((p) => readFileSync(p));
    v.close();
    files.push(readFileSync(t.path));
    for (const bytes of files) {
      for (const [name, value] of Object.entries(secrets)) {
        expect(bytes.includes(Buffer.from(name)), `name ${name} in file`).toBe(false);
        expect(bytes.includes(Buffer.from(value)), `value of ${name} in file`).toBe(false);
      }
    }
  });

  test('every record is sealed with a fresh nonce, and re-adding changes the ciphertext', async () => {
    t = tempHome();
    const v = await makeVault(t.path, fakeSecrets(20));
    v.add('S_0', 'a-completely-new-value', { replace: true });
    v.close();
    const db = openDatabase(t.path, { fileMustExist: true });
    const nonces = db.prepare('SELECT nonce FROM records').pluck().all() as Buffer[];
    db.close();
    expect(nonces).toHaveLength(20);
    expect(new Set(nonces.map((n) => n.toString('hex'))).size).toBe(20);
    expect(nonces.every((n) => n.length === 24)).toBe(true);
  });

  test('rekey re-seals every record under a new data key in one step, keeping the values and placeholder key', async () => {
    t = tempHome();
    const secrets = fakeSecrets(50);
    const v = await makeVault(t.path, secrets);
    const placeholder = v.placeholderKey();
    const db = openDatabase(t.path, { fileMustExist: true });
    const before = db.prepare('SELECT sealed FROM records ORDER BY id').pluck().all() as Buffer[];
    const r = v.rekey();
    expect(r).toEqual({ ok: true, value: { records: 50, keyId: 2 } });
    const after = db.prepare('SELECT sealed FROM records ORDER BY id').pluck().all() as Buffer[];
    const keyIds = db.prepare('SELECT DISTINCT key_id FROM records').pluck().all();
    const ring = db.prepare('SELECT key_id FROM keys').pluck().all();
    db.close();
    expect(after.some((s, i) => s.equals(before[i] as Buffer))).toBe(false);
    expect(keyIds).toEqual([2]);
    expect(ring).toEqual([2]);
    v.close();
    const again = await unlockVault(t.path, PASSPHRASE);
    if (!again.ok) throw again.error;
    expectSecrets(again.value.entries(), secrets);
    expect(again.value.placeholderKey().equals(placeholder)).toBe(true);
    expect(again.value.add('AFTER_REKEY', 'after-rekey-value').ok).toBe(true);
    again.value.close();
  });

  test('passwd re-wraps the data keys: the old passphrase stops working, records are untouched', async () => {
    t = tempHome();
    const secrets = fakeSecrets(5);
    const v = await makeVault(t.path, secrets);
    const db = openDatabase(t.path, { fileMustExist: true });
    const before = db.prepare('SELECT sealed FROM records ORDER BY id').pluck().all() as Buffer[];
    const next = { kind: 'passphrase' as const, passphrase: 'a whole new passphrase' };
    expect((await v.passwd(next, { kdf: 'min' })).ok).toBe(true);
    const after = db.prepare('SELECT sealed FROM records ORDER BY id').pluck().all() as Buffer[];
    db.close();
    expect(after).toEqual(before);
    v.close();
    expectCode(await unlockVault(t.path, PASSPHRASE), 'FICTA_VAULT_WRONG_PASSPHRASE');
    const again = await unlockVault(t.path, next);
    if (!again.ok) throw again.error;
    expectSecrets(again.value.entries(), secrets);
    again.value.close();
  });

  test('passwd can switch a vault to a key file and back', async () => {
    t = tempHome();
    const v = await makeVault(t.path, { ONE: 'one-value-1234' });
    const keyFile = { kind: 'key-file' as const, key: Buffer.alloc(32, 7), path: 'k' };
    expect((await v.passwd(keyFile)).ok).toBe(true);
    v.close();
    expectCode(await unlockVault(t.path, PASSPHRASE), 'FICTA_VAULT_LOCKED');
    expectCode(await unlockVault(t.path, { ...keyFile, key: Buffer.alloc(32, 8) }), 'FICTA_VAULT_WRONG_KEY');
    const kv = await unlockVault(t.path, keyFile);
    if (!kv.ok) throw kv.error;
    expect((await kv.value.passwd(PASSPHRASE, { kdf: 'min' })).ok).toBe(true);
    kv.value.close();
    const pv = await unlockVault(t.path, PASSPHRASE);
    expect(pv.ok).toBe(true);
    if (pv.ok) pv.value.close();
  });

  test('createVault seals a given placeholder key, or a random one; unlock returns it', async () => {
    t = tempHome();
    const key = Buffer.alloc(32, 0xab);
    mkdirSync(t.home, { recursive: true, mode: 0o700 });
    const v = await createVault(t.path, PASSPHRASE, { kdf: 'min', placeholderKey: key });
    if (!v.ok) throw v.error;
    v.value.close();
    const again = await unlockVault(t.path, PASSPHRASE);
    if (!again.ok) throw again.error;
    expect(again.value.placeholderKey().equals(key)).toBe(true);
    again.value.close();
    const other = tempHome();
    try {
      const w = await makeVault(other.path);
      expect(w.placeholderKey().length).toBe(32);
      expect(w.placeholderKey().equals(Buffer.alloc(32))).toBe(false);
      w.close();
    } finally {
      other.cleanup();
    }
  });

  test('creates vault.db with mode 0600 and refuses to overwrite any existing file', async () => {
    t = tempHome();
    const v = await makeVault(t.path, { A: 'aaaaaaaaaaaa' });
    expect(statSync(t.path).mode & 0o777).toBe(0o600);
    if (existsSync(`${t.path}-wal`)) expect(statSync(`${t.path}-wal`).mode & 0o777).toBe(0o600);
    v.close();
    expectCode(await createVault(t.path, PASSPHRASE, { kdf: 'min' }), 'FICTA_VAULT_EXISTS');
    writeFileSync(`${t.home}/junk.db`, 'not a vault');
    expectCode(await createVault(`${t.home}/junk.db`, PASSPHRASE, { kdf: 'min' }), 'FICTA_VAULT_EXISTS');
    expect(readFileSync(`${t.home}/junk.db`, 'utf8')).toBe('not a vault');
  });

  test('the file is WAL with synchronous=FULL, secure_delete=ON and schema version 1', async () => {
    t = tempHome();
    (await makeVault(t.path, { A_TOKEN: 'aaaaaaaaaaaa' })).close();
    const store = openVaultStore(t.path);
    if (!store.ok) throw store.error;
    const db = store.value.db;
    expect([db.pragma('journal_mode', { simple: true }), db.pragma('synchronous', { simple: true }), db.pragma('secure_delete', { simple: true })]).toEqual(['wal', 2, 1]);
    expect([db.pragma('user_version', { simple: true }), db.pragma('application_id', { simple: true })]).toEqual([1, 0x66637461]);
    store.value.close();
  });

  test('rm leaves no copy of the sealed record in the file (secure_delete)', async () => {
    t = tempHome();
    const v = await makeVault(t.path, fakeSecrets(30));
    const db = openDatabase(t.path, { fileMustExist: true });
    const sealed = db.prepare('SELECT sealed FROM records ORDER BY id LIMIT 1 OFFSET 10').pluck().get() as Buffer;
    db.close();
    expect(v.remove('S_10').ok).toBe(true);
    v.close(); // checkpoints the WAL into the file
    expect(existsSync(`${t.path}-wal`)).toBe(false);
    expect(readFileSync(t.path).includes(sealed)).toBe(false);
  });

  test('status without unlocking: format, KDF parameters from the header, record count', async () => {
    t = tempHome();
    const v = await makeVault(t.path, fakeSecrets(3));
    v.close();
    const locked = await openVault(t.path);
    if (!locked.ok) throw locked.error;
    const info = locked.value.info();
    locked.value.close();
    expect(info).toMatchObject({ format: 1, records: 3, headerIntact: true, kdf: { kind: 'argon2id', preset: 'min', ops: 1, mem: 8192 } });
  });
});
