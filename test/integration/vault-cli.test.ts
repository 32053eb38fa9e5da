// `ficta vault …` as a user runs it: `node bin/ficta.js` in a child process with its own FICTA_HOME. Checks
// exit codes (0/1/2), one-line errors, values never printed nor taken from argv, modes, placeholder.key.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { openDatabase } from '../../src/util/sqlite.ts';
import { unlockVault } from '../../src/vault/open.ts';
import { SOURCES_ENV } from '../helpers/cli.ts';
import { expectSecrets, tempHome, type TempHome } from '../unit/vault-helpers.ts';

const BIN = join(import.meta.dirname, '../../bin/ficta.js');
const VALUES = ['piped-value-0123456789', 'env-value-abcdefghij', 'dotenv-value-one-111', 'dotenv-value-two-222', 'changed-value-999999'] as const;

let t: TempHome;
afterEach(() => t?.cleanup());

interface Run { code: number | null; stdout: string; stderr: string }

function ficta(args: string[], options: { stdin?: string; env?: Record<string, string> } = {}): Promise<Run> {
  return new Promise((resolve) => {
    // A clean environment: nothing of the developer's FICTA_* leaks into the test.
    const env = { PATH: process.env.PATH ?? '', HOME: t.home, FICTA_HOME: t.home, ...SOURCES_ENV, ...options.env };
    const proc = spawn(process.execPath, [BIN, ...args], { cwd: join(t.home, '..'), env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    proc.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    proc.on('exit', (code) => resolve({ code, stdout, stderr }));
    proc.stdin.end(options.stdin ?? '');
  });
}

/** No secret value ever appears in what the command printed. */
function expectNoValues(r: Run): void {
  for (const v of VALUES) expect(r.stdout.includes(v) || r.stderr.includes(v), 'a value was printed').toBe(false);
}

function expectOneLineError(r: Run, code: 1 | 2, pattern: RegExp): void {
  expect(r.code).toBe(code);
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(/^ficta: /);
  expect(r.stderr).toMatch(pattern);
}

describe('ficta vault (key file)', () => {
  test('init → add → import → list → rm → rekey → passwd → status, end to end', async () => {
    t = tempHome();
    const keyFile = join(t.home, '..', 'vault.key');
    const placeholder = 'ab'.repeat(32);
    mkdirSync(t.home, { recursive: true, mode: 0o700 });
    writeFileSync(join(t.home, 'placeholder.key'), `${placeholder}\n`, { mode: 0o600 });

    const init = await ficta(['vault', 'init', '--key-file', keyFile]);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('created');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(keyFile, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    expect(statSync(join(t.home, 'vault.db')).mode & 0o777).toBe(0o600);
    expect(statSync(t.home).mode & 0o777).toBe(0o700);
    expect(existsSync(join(t.home, 'placeholder.key'))).toBe(false);

    expectOneLineError(await ficta(['vault', 'init', '--key-file', keyFile]), 1, /already exists/);

    const k = { FICTA_VAULT_KEY_FILE: keyFile };
    const added = await ficta(['vault', 'add', 'PIPED_TOKEN'], { stdin: `${VALUES[0]}\n`, env: k });
    expect([added.code, added.stdout]).toEqual([0, 'vault: added PIPED_TOKEN\n']);
    expectOneLineError(await ficta(['vault', 'add', 'PIPED_TOKEN'], { stdin: VALUES[4], env: k }), 1, /--replace/);
    expect((await ficta(['vault', 'add', 'PIPED_TOKEN', '--replace'], { stdin: VALUES[4], env: k })).code).toBe(0);
    const fromEnv = await ficta(['vault', 'add', 'ENV_TOKEN', '--from-env', 'MY_TOKEN'], { env: { ...k, MY_TOKEN: VALUES[1] } });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    expectOneLineError(await ficta(['vault', 'add', 'ARGV_TOKEN', 'value-on-the-command-line'], { env: k }), 2, /never taken from the command line/);
    expectOneLineError(await ficta(['vault', 'add', 'SHORT'], { stdin: 'abc', env: k }), 1, /shorter than 8/);

    const envFile = join(t.home, '..', 'app.env');
    writeFileSync(envFile, `ONE=${VALUES[2]}\nexport TWO="${VALUES[3]}"\nTINY=abc\nEMPTY=\nENV_TOKEN=${VALUES[1]}\n`);
    const imported = await ficta(['vault', 'import', envFile], { env: k });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/^added +ONE$/m);
    expect(imported.stdout).toMatch(/^added +TWO$/m);
    expect(imported.stdout).toMatch(/^unchanged +ENV_TOKEN$/m);
    expect(imported.stdout).toMatch(/^skipped +TINY \(too short\)$/m);
    expect(imported.stdout).toMatch(/^skipped +EMPTY \(empty\)$/m);

    const list = await ficta(['vault', 'list'], { env: k });
    expect(list.code).toBe(0);
    expect(list.stdout.split('\n')[0]).toMatch(/^NAME +LENGTH +SOURCE +ADDED +UPDATED$/);
    for (const name of ['PIPED_TOKEN', 'ENV_TOKEN', 'ONE', 'TWO']) expect(list.stdout).toMatch(new RegExp(`^${name} `, 'm'));
    const json = await ficta(['vault', 'list', '--json'], { env: k });
    const rows = JSON.parse(json.stdout) as Array<{ name: string; length: number; source: string }>;
    expect(rows.map((r) => [r.name, r.length, r.source])).toEqual([
      ['ENV_TOKEN', VALUES[1].length, 'env:MY_TOKEN'], ['ONE', VALUES[2].length, `file:${envFile}`],
      ['PIPED_TOKEN', VALUES[4].length, 'stdin'], ['TWO', VALUES[3].length, `file:${envFile}`],
    ]);

    expect((await ficta(['vault', 'rm', 'ONE'], { env: k })).stdout).toBe('vault: removed ONE\n');
    expectOneLineError(await ficta(['vault', 'rm', 'ONE'], { env: k }), 1, /no secret named ONE/);
    expect((await ficta(['vault', 'rekey'], { env: k })).stdout).toMatch(/rekeyed: 3 record\(s\) re-sealed under data key 2/);

    const newKey = join(t.home, '..', 'new.key');
    const passwd = await ficta(['vault', 'passwd', '--new-key-file', newKey], { env: k });
    expect(passwd.code, passwd.stderr).toBe(0);
    expectOneLineError(await ficta(['vault', 'list'], { env: k }), 1, /key file does not open this vault/);

    const status = await ficta(['vault', 'status'], {});
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/^records: +3$/m);
    expect(status.stdout).toMatch(/^unlock: +key file$/m);
    expect(status.stdout).toMatch(/vault\.db 600, home 700/);
    const verify = await ficta(['vault', 'status', '--verify', '--key-file', newKey]);
    expect(verify.stdout).toMatch(/verified: 3 record/);

    for (const r of [init, added, fromEnv, imported, list, json, passwd, status, verify]) expectNoValues(r);
    const v = await unlockVault(join(t.home, 'vault.db'), { kind: 'key-file', key: Buffer.from(readFileSync(newKey, 'utf8').trim(), 'hex'), path: newKey });
    if (!v.ok) throw v.error;
    expectSecrets(v.value.entries(), { PIPED_TOKEN: VALUES[4], ENV_TOKEN: VALUES[1], TWO: VALUES[3] });
    expect(v.value.placeholderKey().toString('hex')).toBe(placeholder);
    v.value.close();
  }, 60_000);

  test('usage errors exit 2; a missing or damaged vault and a locked one exit 1 with one line', async () => {
    t = tempHome();
    expect((await ficta(['vault', '--help'])).code).toBe(0);
    expect((await ficta(['vault'])).code).toBe(2);
    expectOneLineError(await ficta(['vault', 'frobnicate']), 2, /vault: unknown command "frobnicate"/);
    expectOneLineError(await ficta(['vault', 'lst']), 2, /unknown command "lst" \(did you mean "list"\?\)/);
    expectOneLineError(await ficta(['vault', 'list', '--bogus']), 2, /usage/);
    expectOneLineError(await ficta(['vault', 'init', '--kdf', 'weak']), 2, /--kdf must be one of/);
    expectOneLineError(await ficta(['vault', 'list']), 1, /no vault at/);
    // No vault is an answer, not an error.
    const none = await ficta(['vault', 'status']);
    expect([none.code, none.stdout]).toEqual([0, `vault: none at ${join(t.home, 'vault.db')} (ficta vault init to create one)\n`]);
    expect(JSON.parse((await ficta(['vault', 'status', '--json'])).stdout)).toEqual({ present: false, path: join(t.home, 'vault.db') });
    mkdirSync(t.home, { recursive: true });
    writeFileSync(join(t.home, 'vault.db'), '');
    expectOneLineError(await ficta(['vault', 'status']), 1, /empty \(truncated\); recover a backup with ficta vault restore FILE\n$/);
    expectOneLineError(await ficta(['vault', 'init', '--key-file', join(t.home, 'k')]), 1, /already exists/);
    expect(readFileSync(join(t.home, 'vault.db'), 'utf8')).toBe('');
  }, 60_000);
});

describe('ficta vault (passphrase)', () => {
  test('init with FICTA_VAULT_PASSPHRASE runs Argon2id in its worker under bin/ficta.js; wrong or missing passphrase exit 1', async () => {
    t = tempHome();
    const pass = { FICTA_VAULT_PASSPHRASE: 'a long enough passphrase' };
    const init = await ficta(['vault', 'init', '--kdf', 'interactive'], { env: pass });
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toMatch(/Argon2id interactive: 2 passes, 64 MiB/);
    const db = openDatabase(join(t.home, 'vault.db'), { fileMustExist: true });
    expect(db.prepare('SELECT kdf, kdf_preset, kdf_ops, kdf_mem FROM header').get()).toEqual({ kdf: 'argon2id', kdf_preset: 'interactive', kdf_ops: 2, kdf_mem: 64 * 1024 * 1024 });
    db.close();
    expect((await ficta(['vault', 'add', 'PIPED_TOKEN'], { stdin: VALUES[0], env: pass })).code).toBe(0);
    expectOneLineError(await ficta(['vault', 'list'], { env: { FICTA_VAULT_PASSPHRASE: 'not the passphrase' } }), 1, /wrong passphrase/);
    // stdin is not a terminal and no passphrase is set: locked, not a prompt that hangs.
    expectOneLineError(await ficta(['vault', 'list']), 1, /locked/);
    expectOneLineError(await ficta(['vault', 'add', 'X_TOKEN'], { stdin: 'some-value-123' }), 1, /locked/);
    expectOneLineError(await ficta(['vault', 'init'], { env: { FICTA_HOME: join(t.home, 'other'), FICTA_VAULT_PASSPHRASE: 'short' } }), 1, /at least 8 characters/);
    const list = await ficta(['vault', 'list', '--json'], { env: pass });
    expect(JSON.parse(list.stdout)).toHaveLength(1);
  }, 60_000);
});
