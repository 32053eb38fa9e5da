// Frozen vectors: fixtures/vault/v1 was written once by format version 1. Today's code must open it and
// read exactly the expected contents, so any change of the on-disk format is deliberate and versioned.

import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { openDatabase } from '../../src/util/sqlite.ts';
import { FORMAT_VERSION } from '../../src/vault/format.ts';
import { openVault, unlockVault } from '../../src/vault/open.ts';
import { expectSecrets, tempHome, type TempHome } from './vault-helpers.ts';

const FIXTURE = join(import.meta.dirname, '../../fixtures/vault/v1');
const expected = JSON.parse(readFileSync(join(FIXTURE, 'expected.json'), 'utf8')) as {
  format: number;
  vaultId: string;
  createdAt: number;
  kdf: { kind: string; preset: string; ops: number; mem: number };
  activeKeyId: number;
  placeholderKey: string;
  secrets: Record<string, string>;
  listing: Array<{ name: string; length: number; source: string; addedAt: number; updatedAt: number }>;
};
const passphrase = readFileSync(join(FIXTURE, 'passphrase.txt'), 'utf8').trimEnd();

let t: TempHome;
afterEach(() => t?.cleanup());

/** A private copy: opening a vault may create WAL files next to it, never in the fixture directory. */
function copyFixture(): string {
  t = tempHome();
  mkdirSync(t.home, { recursive: true, mode: 0o700 });
  copyFileSync(join(FIXTURE, 'vault.db'), t.path);
  return t.path;
}

describe('frozen vault format v1', () => {
  test('is the current format version', () => {
    expect(expected.format).toBe(FORMAT_VERSION);
  });

  test('opens with its passphrase and yields exactly the expected secrets, listing and placeholder key', async () => {
    const path = copyFixture();
    const locked = await openVault(path);
    if (!locked.ok) throw locked.error;
    expect(locked.value.info()).toMatchObject({ format: 1, vaultId: expected.vaultId, createdAt: expected.createdAt, kdf: expected.kdf, records: expected.listing.length, headerIntact: true });
    const unlocked = await locked.value.unlock({ kind: 'passphrase', passphrase });
    if (!unlocked.ok) throw unlocked.error;
    const v = unlocked.value;
    expectSecrets(v.entries(), expected.secrets);
    expect(v.list()).toEqual({ ok: true, value: expected.listing });
    expect(v.placeholderKey().toString('hex')).toBe(expected.placeholderKey);
    v.close();
  });

  test('keeps the layout it was written with: key ring, record versions and an id gap', () => {
    const path = copyFixture();
    const db = openDatabase(path, { fileMustExist: true });
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    expect(db.pragma('application_id', { simple: true })).toBe(0x66637461);
    expect(db.prepare('SELECT key_id FROM keys').pluck().all()).toEqual([expected.activeKeyId]);
    const rows = db.prepare('SELECT id, version, key_id, length(nonce) AS n FROM records ORDER BY id').all() as Array<{ id: number; version: number; key_id: number; n: number }>;
    db.close();
    expect(rows.map((r) => r.id)).toEqual([1, 2, 4, 5]); // record 3 was removed
    expect(rows.every((r) => r.key_id === expected.activeKeyId && r.n === 24)).toBe(true);
    expect(rows.find((r) => r.id === 2)?.version).toBe(3); // replaced once, then re-sealed by rekey
  });

  test('a wrong passphrase on the fixture is FICTA_VAULT_WRONG_PASSPHRASE', async () => {
    const path = copyFixture();
    const r = await unlockVault(path, { kind: 'passphrase', passphrase: `${passphrase}!` });
    expect(!r.ok && r.error.code).toBe('FICTA_VAULT_WRONG_PASSPHRASE');
  });

  test('today\'s code can keep writing to it', async () => {
    const path = copyFixture();
    const v = await unlockVault(path, { kind: 'passphrase', passphrase });
    if (!v.ok) throw v.error;
    expect(v.value.add('ADDED_LATER', 'added-later-value').ok).toBe(true);
    v.value.close();
    const again = await unlockVault(path, { kind: 'passphrase', passphrase });
    if (!again.ok) throw again.error;
    expectSecrets(again.value.entries(), { ...expected.secrets, ADDED_LATER: 'added-later-value' });
    again.value.close();
  });
});
