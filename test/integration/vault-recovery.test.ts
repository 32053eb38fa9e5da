// Ways out of vault dead ends, as a user runs them: backup and restore (only a vault that unlocks; the old
// file kept aside), a running proxy unlocked again with SIGHUP after rekey/restore (and its 503 saying so),
// a damaged vault naming what to do next, the key-file hint after init, and --json on every change.

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startServe } from '../helpers/cli.ts';
import { runMain } from '../helpers/cli-io.ts';
import { createMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';

const ONE = 'first-secret-value-111';
const TWO = 'second-secret-value-222';
let up: MockUpstream;
let root: string;

beforeAll(async () => {
  up = await createMockUpstream({ secrets: [ONE, TWO] });
  root = mkdtempSync(join(tmpdir(), 'ficta-recovery-'));
});
afterAll(async () => {
  await up.close();
  rmSync(root, { recursive: true, force: true });
});

/** `ficta vault …` in this process (the vault commands are the same code; a child costs ~1 s of CPU). */
function vault(args: string[], options: { env: Record<string, string>; input?: string }): ReturnType<typeof runMain> {
  return runMain(['vault', ...args], options.env, options.input ?? '');
}

/** A key-file vault holding ONE. */
async function keyFileVault(): Promise<{ home: string; key: string; env: Record<string, string> }> {
  const home = mkdtempSync(join(root, 'home-'));
  const key = join(home, '..', `${home.split('/').pop()}.key`);
  const init = await vault(['init', '--key-file', key], { env: { FICTA_HOME: home } });
  expect(init.code, init.stderr).toBe(0);
  expect(init.stdout).toContain(`vault: later commands need it: export FICTA_VAULT_KEY_FILE=${key} (or pass --key-file ${key})`);
  const env = { FICTA_HOME: home, FICTA_VAULT_KEY_FILE: key };
  expect((await vault(['add', 'ONE'], { env, input: ONE })).code).toBe(0);
  return { home, key, env };
}

async function ask(url: string, text: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'x', messages: [{ role: 'user', content: text }] }) });
  return { status: res.status, body: await res.json() };
}

async function until<T>(f: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  let v = await f();
  for (let i = 0; i < 100 && !ok(v); i++) {
    await new Promise((r) => setTimeout(r, 100));
    v = await f();
  }
  return v;
}

describe('vault backup and restore', () => {
  it('backs up while in use, restores only a vault that unlocks, and keeps the old file aside', async () => {
    const { home, key, env } = await keyFileVault();
    const backup = join(root, `${home.split('/').pop()}-backup.db`);
    const serve = await startServe(['--port', '0', '--anthropic-upstream', up.url], env);
    try {
      const b = await vault(['backup', backup, '--json'], { env });
      expect(b.code, b.stderr).toBe(0);
      expect(JSON.parse(b.stdout)).toMatchObject({ backup, records: 1 });
      expect(statSync(backup).mode & 0o777).toBe(0o600);
      const again = await vault(['backup', backup], { env });
      expect([again.code, again.stderr]).toEqual([1, `ficta: vault: ${backup} already exists; choose another name (a backup never overwrites a file)\n`]);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
    // Change the vault, then go back to the backup.
    expect((await vault(['add', 'TWO', '--json'], { env, input: TWO })).stdout).toContain('"outcome": "added"');
    const before = readFileSync(join(home, 'vault.db'));

    const otherKey = join(root, 'other.key');
    writeFileSync(otherKey, `${'cd'.repeat(32)}\n`, { mode: 0o600 });
    const refused = await vault(['restore', backup, '--key-file', otherKey], { env: { FICTA_HOME: home } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^ficta: vault: .*key file does not open this vault/);
    const notVault = join(root, 'not-a-vault.db');
    writeFileSync(notVault, 'hello');
    expect((await vault(['restore', notVault], { env })).code).toBe(1);
    expect(readFileSync(join(home, 'vault.db')).equals(before)).toBe(true);

    const restored = await vault(['restore', backup, '--json'], { env });
    expect(restored.code, restored.stderr).toBe(0);
    const out = JSON.parse(restored.stdout);
    expect(out).toMatchObject({ restored: join(home, 'vault.db'), from: backup, records: 1 });
    expect(out.previous).toMatch(/vault\.db\.replaced-\d{8}T\d{6}Z$/);
    const names = JSON.parse((await vault(['list', '--json'], { env })).stdout).map((r: { name: string }) => r.name);
    expect(names).toEqual(['ONE']);
    // The old vault (with TWO) is intact under its new name.
    const old = await vault(['list', '--json'], { env: { FICTA_HOME: home, FICTA_VAULT_KEY_FILE: key } });
    expect(old.code).toBe(0);
    expect(readdirSync(home).filter((n) => n.startsWith('vault.db.replaced-'))).toHaveLength(1);
    expect(statSync(join(home, 'vault.db')).mode & 0o777).toBe(0o600);
  });

  it('--json on every vault command that changes something', async () => {
    const home = mkdtempSync(join(root, 'json-'));
    const key = join(root, 'json.key');
    const env = { FICTA_HOME: home, FICTA_VAULT_KEY_FILE: key };
    const json = async (args: string[], input?: string): Promise<any> => {
      const r = await vault([...args, '--json'], { env, ...(input === undefined ? {} : { input }) });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      return JSON.parse(r.stdout);
    };
    expect(await json(['init'])).toMatchObject({ created: join(home, 'vault.db'), keyFile: key, keyFileCreated: true });
    expect(await json(['add', 'ONE'], ONE)).toEqual({ name: 'ONE', outcome: 'added', source: 'stdin' });
    const dotenv = join(root, 'two.env');
    writeFileSync(dotenv, `TWO=${TWO}\n`);
    expect(await json(['import', dotenv])).toMatchObject({ files: 1, added: ['TWO'] });
    expect(await json(['rm', 'TWO'])).toEqual({ name: 'TWO', removed: true });
    expect(await json(['rekey'])).toMatchObject({ records: 1, keyId: 2 });
    expect(await json(['passwd', '--new-key-file', join(root, 'json2.key')])).toMatchObject({ keyFileCreated: true });
    expect(await json(['status'])).toMatchObject({ present: true, records: 1 });
    // doctor unlocks it the way serve would, with serve's --key-file.
    const doctor = await runMain(['doctor', '--key-file', join(root, 'json2.key'), '--port', '0', '--anthropic-upstream', 'http://127.0.0.1:9', '--openai-upstream', 'http://localhost:9', '--json'], { FICTA_HOME: home });
    expect(JSON.parse(doctor.stdout).checks).toEqual(
      expect.arrayContaining([
        { level: 'ok', area: 'vault', message: 'unlocks; 1 secret(s) verified' },
        { level: 'ok', area: 'secrets', message: '1 secret(s) would be protected' },
      ]),
    );
  });
});

describe('a running proxy after the vault changed under it', () => {
  it('answers 503 saying how to unlock it again, and SIGHUP does (after passwd, and after restore)', async () => {
    const { home, key, env } = await keyFileVault();
    const serve = await startServe(['--port', '0', '--anthropic-upstream', up.url], env);
    try {
      expect((await ask(serve.url, `a ${ONE}`)).status).toBe(200);
      // passwd re-wraps the data keys the proxy already holds: it keeps working ...
      const newKey = `${key}.new`;
      const passwd = await vault(['passwd', '--new-key-file', newKey], { env });
      expect(passwd.stdout).toContain(`unlock the running ficta serve again with kill -HUP ${serve.child.pid}`);
      expect((await ask(serve.url, `a ${ONE}`)).status).toBe(200);
      // ... until a rekey seals the records under a data key only the new credential opens: it fails closed.
      expect((await vault(['rekey'], { env: { ...env, FICTA_VAULT_KEY_FILE: newKey } })).code).toBe(0);
      const locked = await until(() => ask(serve.url, `b ${ONE}`), (r) => r.status === 503);
      expect(locked.status).toBe(503);
      expect(locked.body.error.type).toBe('ficta_vault_unavailable');
      expect(locked.body.error.message).toContain(`unlock it again with kill -HUP ${serve.child.pid}`);
      // A SIGHUP with the old key still at its path fails, and the proxy stays closed.
      serve.child.kill('SIGHUP');
      await new Promise((r) => setTimeout(r, 300));
      expect((await ask(serve.url, 'x')).status).toBe(503);
      writeFileSync(key, readFileSync(newKey));
      serve.child.kill('SIGHUP');
      const back = await until(() => ask(serve.url, `c ${ONE}`), (r) => r.status === 200);
      expect([back.status, back.body.content[0].text]).toEqual([200, `ECHO: c ${ONE}`]);
      expect(up.leaks).toEqual([]);

      // A restored vault replaces the file: 503 until SIGHUP, then the restored secrets are live.
      const backup = join(root, `${home.split('/').pop()}-hup.db`);
      expect((await vault(['add', 'TWO'], { env, input: TWO })).code).toBe(0);
      expect((await vault(['backup', backup], { env })).code).toBe(0);
      expect((await vault(['rm', 'TWO'], { env })).code).toBe(0);
      expect((await vault(['restore', backup], { env })).code).toBe(0);
      const replaced = await until(() => ask(serve.url, 'd'), (r) => r.status === 503);
      expect(replaced.body.error.message).toContain('was replaced while ficta was running; unlock it again with kill -HUP');
      serve.child.kill('SIGHUP');
      const restored = await until(() => ask(serve.url, `e ${TWO}`), (r) => r.status === 200);
      expect(restored.body.content[0].text).toBe(`ECHO: e ${TWO}`);
      expect(JSON.parse(up.requests.at(-1)!.body.toString()).messages[0].content).toMatch(/^e ~ficta_/);
      expect(up.leaks).toEqual([]);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
    expect(serve.stderr()).toContain('vault unlocked again: 2 secret(s)');
    expect(serve.stderr()).toContain('could not unlock it again');
  });

  it('under ficta run, a vault that becomes unavailable is reported at once and in the summary', async () => {
    const { home, env } = await keyFileVault();
    const script = `const fs = require('node:fs'); const db = process.env.FICTA_HOME + '/vault.db'; fs.renameSync(db, db + '.moved');
      setTimeout(async () => { for (let i = 0; i < 2; i++) { const r = await fetch(process.env.ANTHROPIC_BASE_URL + '/v1/messages', { method: 'POST', body: '{}' }); console.log(r.status); } }, 600);`;
    const r = await runCli(['run', '--anthropic-upstream', up.url, '--', process.execPath, '-e', script], { env });
    expect([r.code, r.stdout]).toEqual([0, '503\n503\n']);
    expect(r.stderr.split('\n').filter((l) => l.includes('vault is unavailable'))).toEqual([`ficta: warning: the vault is unavailable: requests get 503 and nothing is forwarded; details in ${join(home, 'run.log')}`]);
    expect(r.stderr).toContain('  requests        2 (vault_unavailable 2)\n');
    expect(up.leaks).toEqual([]);
  });

  it('a damaged vault stops serve and run with what to do next', async () => {
    const { home, env } = await keyFileVault();
    const db = join(home, 'vault.db');
    const bytes = readFileSync(db);
    bytes.write('not a vault any more', 0);
    writeFileSync(db, bytes);
    const serve = await runCli(['serve', '--port', '0'], { env });
    expect(serve.code).toBe(1);
    expect(serve.stderr).toMatch(/ficta: vault: .*; start without it with --no-vault, inspect it with ficta vault status, or recover a backup with ficta vault restore FILE\n/);
    const run = await runCli(['run', process.execPath, '-e', ''], { env });
    expect(run.code).toBe(125);
    expect(run.stderr).toContain('--no-vault');
    const without = await runCli(['run', '-q', '--no-vault', '--env-file', join(root, 'two.env'), process.execPath, '-e', ''], { env });
    expect(without.code, without.stderr).toBe(0);
    expect(existsSync(db)).toBe(true);
  });
});
