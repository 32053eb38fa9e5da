// Shared helpers of the vault tests: temp homes, fast vaults (Argon2id MIN), file digests, and comparisons
// that report names and codes only — a failing vault test never prints a secret value.

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { SecretEntry } from '../../src/secrets/types.ts';
import { openDatabase } from '../../src/util/sqlite.ts';
import type { Result } from '../../src/util/result.ts';
import type { VaultCredential } from '../../src/vault/kdf.ts';
import { createVault } from '../../src/vault/open.ts';
import { type Vault } from '../../src/vault/vault.ts';

export const PASSPHRASE: VaultCredential = { kind: 'passphrase', passphrase: 'correct horse battery staple' };

export interface TempHome {
  home: string;
  path: string;
  cleanup: () => void;
}

/** A fresh FICTA_HOME under os.tmpdir(). */
export function tempHome(prefix = 'ficta-vault-'): TempHome {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const home = join(root, 'home');
  return { home, path: join(home, 'vault.db'), cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** Creates a vault with the test-only Argon2id MIN preset and optional secrets. */
export async function makeVault(path: string, secrets: Record<string, string> = {}, credential: VaultCredential = PASSPHRASE): Promise<Vault> {
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
  const created = await createVault(path, credential, { kdf: 'min' });
  if (!created.ok) throw new Error(`createVault failed: ${created.error.code}`);
  const items = Object.entries(secrets).map(([name, value]) => ({ name, value, source: 'test' }));
  if (items.length > 0) {
    const r = created.value.import(items);
    if (!r.ok) throw new Error(`import failed: ${r.error.code}`);
  }
  return created.value;
}

/** SHA-256 over the vault file and its WAL/SHM companions (absent ones count as absent). */
export function fileDigest(path: string): string {
  const h = createHash('sha256');
  for (const suffix of ['', '-wal', '-journal']) {
    const p = `${path}${suffix}`;
    h.update(`${suffix}:`);
    h.update(existsSync(p) ? readFileSync(p) : Buffer.from('absent'));
  }
  return h.digest('hex');
}

/** SHA-256 over every row of every vault table, read through SQLite (for files another connection holds open). */
export function contentDigest(path: string): string {
  const h = createHash('sha256');
  const db = openDatabase(path, { fileMustExist: true });
  try {
    for (const table of ['header', 'keys', 'records', 'state']) {
      for (const row of db.prepare(`SELECT * FROM ${table} ORDER BY rowid`).raw().all() as unknown[][]) {
        for (const cell of row) h.update(Buffer.isBuffer(cell) ? cell : Buffer.from(String(cell)));
      }
    }
  } finally {
    db.close();
  }
  return h.digest('hex');
}

/** A digest of name=value pairs, order-free, so equal sets compare without printing values. */
export function secretsDigest(entries: ReadonlyArray<Pick<SecretEntry, 'name' | 'value'>> | Record<string, string>): string {
  const pairs = Array.isArray(entries) ? entries.map((e) => [e.name, e.value] as const) : Object.entries(entries);
  const h = createHash('sha256');
  for (const [n, v] of [...pairs].sort((a, b) => (a[0] < b[0] ? -1 : 1))) h.update(`${n}\0${v}\0`);
  return h.digest('hex');
}

/** Asserts that the vault holds exactly `expected`, reporting names only. */
export function expectSecrets(actual: Result<SecretEntry[]>, expected: Record<string, string>): void {
  if (!actual.ok) throw new Error(`expected secrets, got error ${actual.error.code}: ${actual.error.message}`);
  expect(actual.value.map((e) => e.name).sort()).toEqual(Object.keys(expected).sort());
  const wrong = actual.value.filter((e) => expected[e.name] !== e.value).map((e) => e.name);
  expect(wrong, 'names whose values differ').toEqual([]);
}

/** Asserts a failed result with this code (prints code and message; messages never hold values). */
export function expectCode(result: Result<unknown>, code: string): void {
  if (result.ok) throw new Error(`expected ${code}, got success`);
  expect({ code: result.error.code, message: result.error.message }).toMatchObject({ code });
}

/** `n` distinct fake secrets with a fixed seed-free pattern. */
export function fakeSecrets(n: number, prefix = 'S'): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < n; i++) out[`${prefix}_${i}`] = `fake-secret-${prefix}-${i}-${(i * 2654435761 >>> 0).toString(36)}`;
  return out;
}
