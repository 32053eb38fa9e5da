// What only happens on a terminal, on a real pseudo-terminal: the readable coloured request log, the hidden
// passphrase prompt (3 tries, nothing echoed), Ctrl-C at a prompt (exit 130), and `vault rm` asking first.

import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVault } from '../../src/vault/open.ts';
import { runMain } from '../helpers/cli-io.ts';
import { createMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';
import { runOnPty } from '../helpers/pty.ts';

const SECRET = 'tty-secret-value-8c1f2e';
const PASS = 'correct horse battery';
let up: MockUpstream;
let dir: string;

beforeAll(async () => {
  up = await createMockUpstream({ secrets: [SECRET] });
  dir = mkdtempSync(join(tmpdir(), 'ficta-tty-'));
});
afterAll(async () => {
  await up.close();
  rmSync(dir, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

let template: string | undefined;

/** A fresh FICTA_HOME holding a copy of one passphrase vault (made once). */
async function passphraseVault(): Promise<string> {
  if (template === undefined) {
    template = mkdtempSync(join(dir, 'template-'));
    // The test-only `min` Argon2id cost: every unlock in these tests derives the key again.
    const created = await createVault(join(template, 'vault.db'), { kind: 'passphrase', passphrase: PASS }, { kdf: 'min' });
    if (!created.ok) throw created.error;
    const added = created.value.add('API_TOKEN', SECRET, { source: 'stdin' });
    created.value.close();
    expect(added.ok).toBe(true);
  }
  const home = mkdtempSync(join(dir, 'home-'));
  copyFileSync(join(template, 'vault.db'), join(home, 'vault.db'));
  return home;
}

describe('on a terminal', () => {
  it('serve logs one readable, coloured line per request (method, route, status, ms, counts)', async () => {
    const home = mkdtempSync(join(dir, 'home-'));
    const envFile = join(home, 'app.env');
    writeFileSync(envFile, `API_TOKEN=${SECRET}\n`);
    const port = await freePort();
    const done = join(home, 'done');
    const pending = runOnPty(['serve', '--port', String(port), '--env-file', envFile, '--anthropic-upstream', up.url], { FICTA_HOME: home }, [{ expect: 'ficta listening on' }, { waitfile: done }, { signal: 'SIGTERM' }]);
    let ready = false;
    for (let i = 0; i < 200 && !ready; i++) {
      ready = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
      if (!ready) await new Promise((r) => setTimeout(r, 50));
    }
    const res = await fetch(`http://127.0.0.1:${port}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'x', messages: [{ role: 'user', content: `say ${SECRET}` }] }) });
    expect(res.status).toBe(200);
    await res.text();
    await new Promise((r) => setTimeout(r, 200));
    writeFileSync(done, '');
    const r = await pending;
    expect(r.code).toBe(0);
    const plain = r.output.replace(/\u001b\[\d+m/g, '');
    expect(plain).toMatch(/\d\d:\d\d:\d\d {2}POST {2}\/v1\/messages {2}200 {2}\d+ ms {2}redacted 1 \(API_TOKEN 1\) {2}restored 1 \(API_TOKEN 1\)\r\n/);
    expect(r.output).toContain('\u001b[32m200\u001b[0m');
    expect(r.output).not.toContain('{"level"');
    expect(r.output).not.toContain(SECRET);
  });

  it('serve stops when its terminal hangs up (SIGHUP re-unlocks the vault only while the terminal is there)', async () => {
    const home = mkdtempSync(join(dir, 'home-'));
    const envFile = join(home, 'app.env');
    writeFileSync(envFile, `API_TOKEN=${SECRET}\n`);
    const port = await freePort();
    const r = await runOnPty(['serve', '--port', String(port), '--env-file', envFile], { FICTA_HOME: home }, [{ expect: 'ficta listening on' }, { hangup: true }], 20);
    expect(r.code).toBe(0);
    const gone = await fetch(`http://127.0.0.1:${port}/healthz`).then(() => 'still listening', () => 'gone');
    expect(gone).toBe('gone');
  });

  it('asks for the passphrase without echoing it, 3 tries, and opens on the right one', async () => {
    const home = await passphraseVault();
    const r = await runOnPty(['vault', 'list'], { FICTA_HOME: home }, [
      { expect: 'vault passphrase: ' },
      { send: 'wrong-guess-one\r' },
      { expect: 'try again (2 tries left)' },
      { expect: 'vault passphrase: ' },
      { send: 'wrong-guess-two\r' },
      { expect: 'try again (1 try left)' },
      { expect: 'vault passphrase: ' },
      { send: `${PASS}\r` },
    ]);
    expect(r.code).toBe(0);
    expect(r.output).toMatch(/^API_TOKEN +\d+ +stdin/m);
    for (const typed of ['wrong-guess-one', 'wrong-guess-two', PASS]) expect(r.output).not.toContain(typed);
  });

  it('gives up after the third wrong passphrase (exit 1), and Ctrl-C at the prompt exits 130', async () => {
    const home = await passphraseVault();
    const wrong = await runOnPty(['vault', 'list'], { FICTA_HOME: home }, [
      { expect: 'vault passphrase: ' }, { send: 'nope-nope-1\r' },
      { expect: '2 tries left' }, { expect: 'vault passphrase: ' }, { send: 'nope-nope-2\r' },
      { expect: '1 try left' }, { expect: 'vault passphrase: ' }, { send: 'nope-nope-3\r' },
    ]);
    expect(wrong.code).toBe(1);
    expect(wrong.output).toContain('ficta: vault: wrong passphrase');
    const interrupted = await runOnPty(['vault', 'list'], { FICTA_HOME: home }, [{ expect: 'vault passphrase: ' }, { send: 'half-typ' }, { send: '\u0003' }]);
    expect(interrupted.code).toBe(130);
    expect(interrupted.output).toContain('interrupted');
    // serve too: Ctrl-C at its start-up prompt is an interruption, not an error.
    const serve = await runOnPty(['serve', '--port', '0'], { FICTA_HOME: home }, [{ expect: 'vault passphrase: ' }, { send: '\u0003' }]);
    expect(serve.code).toBe(130);
    const run = await runOnPty(['run', process.execPath, '-e', 'console.log("ran")'], { FICTA_HOME: home }, [{ expect: 'vault passphrase: ' }, { send: '\u0003' }]);
    expect(run.code).toBe(130);
    expect(run.output).not.toContain('ran');
  });

  it('vault rm asks first (n keeps, y removes); --yes does not ask', async () => {
    const home = await passphraseVault();
    const env = { FICTA_HOME: home, FICTA_VAULT_PASSPHRASE: PASS };
    const keep = await runOnPty(['vault', 'rm', 'API_TOKEN'], env, [{ expect: 'remove API_TOKEN from the vault? [y/N] ' }, { send: 'n' }]);
    expect([keep.code, keep.output.includes('vault: API_TOKEN kept')]).toEqual([0, true]);
    expect((await runMain(['vault', 'list', '--json'], env)).stdout).toContain('API_TOKEN');
    const remove = await runOnPty(['vault', 'rm', 'API_TOKEN'], env, [{ expect: '[y/N] ' }, { send: 'y' }]);
    expect([remove.code, remove.output.includes('vault: removed API_TOKEN')]).toEqual([0, true]);
    expect((await runMain(['vault', 'add', 'OTHER'], env, 'another-value-123')).code).toBe(0);
    const yes = await runOnPty(['vault', 'rm', 'OTHER', '--yes'], env, []);
    expect(yes.output).not.toContain('[y/N]');
    expect([yes.code, yes.output.includes('vault: removed OTHER')]).toEqual([0, true]);
    expect(existsSync(join(home, 'vault.db'))).toBe(true);
  });
});
