// SQLite statements finalised by the garbage collector, in the processes that use them the most: Node
// ≥ 24.19 aborts (`RemoveEnvironmentCleanupHook` assertion) when V8 collects a better-sqlite3 < 13
// statement. Forced `gc()` from JavaScript does not reproduce it, so these tests only allocate and let
// V8 collect on its own: thousands of vault writes in one process, a serving proxy reloading the vault
// under concurrent writers, and a serving proxy recording hundreds of watermarked documents.

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { proseDocument } from '../../fixtures/watermark/corpus.ts';
import { runCli, startServe, type ServeProcess } from '../helpers/cli.ts';
import { createMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';

const CHILD = join(import.meta.dirname, 'vault-child.ts');
const KEY_HEX = '42'.repeat(32);
const SECRET = 'gc-stress-secret-0123456789';

let up: MockUpstream;
let root: string;
beforeAll(async () => {
  up = await createMockUpstream({ secrets: [SECRET] });
  root = mkdtempSync(join(tmpdir(), 'ficta-gc-'));
});
afterAll(async () => {
  await up.close();
  rmSync(root, { recursive: true, force: true });
});

/** A fresh FICTA_HOME with a key-file vault holding SECRET. */
async function vaultHome(name: string): Promise<{ home: string; keyFile: string; env: Record<string, string> }> {
  const home = join(root, name);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const keyFile = join(root, `${name}.key`);
  writeFileSync(keyFile, `${KEY_HEX}\n`, { mode: 0o600 });
  const env = { FICTA_HOME: home, FICTA_VAULT_KEY_FILE: keyFile, FICTA_ANTHROPIC_UPSTREAM: up.url };
  expect((await runCli(['vault', 'init', '--key-file', keyFile], { env: { FICTA_HOME: home } })).code).toBe(0);
  const add = await runCli(['vault', 'add', 'GC_SECRET'], { env, input: SECRET });
  expect(add.code, add.stderr).toBe(0);
  return { home, keyFile, env };
}

function runChild(args: string[]): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    proc.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

async function health(p: ServeProcess): Promise<{ secrets: number }> {
  return (await (await fetch(`${p.url}/healthz`)).json()) as { secrets: number };
}

async function stop(p: ServeProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  p.child.kill('SIGTERM');
  return p.exited;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('SQLite statements left to the garbage collector', () => {
  test('3,000 vault adds and a 1,000-entry import in one process finish without an abort', async () => {
    const { home, keyFile } = await vaultHome('adds');
    const r = await runChild(['stress', join(home, 'vault.db'), keyFile, '3000', '1000']);
    expect({ code: r.code, signal: r.signal }, r.stderr.slice(0, 400)).toEqual({ code: 0, signal: null });
    expect(r.stdout).toBe('done\n');
  }, 120_000);

  test('a serving proxy reloads the vault while another process adds 600 records, and stays up', async () => {
    const { home, keyFile, env } = await vaultHome('reload');
    const p = await startServe(['--port', '0'], env);
    try {
      const writer = runChild(['add', join(home, 'vault.db'), keyFile, 'LIVE', '600']);
      // Requests while the proxy reloads (every 250 ms) under the writer.
      let done = false;
      void writer.then(() => (done = true));
      let sent = 0;
      while (!done && sent < 400) {
        const res = await fetch(`${p.url}/anthropic/v1/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
          body: JSON.stringify({ model: 'x', max_tokens: 5, messages: [{ role: 'user', content: `n=${sent} ${SECRET}` }] }),
        });
        expect(res.status).toBe(200);
        expect(await res.text()).toContain(SECRET);
        sent++;
      }
      const w = await writer;
      expect({ code: w.code, signal: w.signal }, w.stderr.slice(0, 400)).toEqual({ code: 0, signal: null });
      let count = 0;
      for (let i = 0; i < 40 && count !== 601; i++) {
        await sleep(100);
        count = (await health(p)).secrets;
      }
      expect(count).toBe(601);
      // Idle for a while: a collection that finalises the reload statements comes after the work.
      await sleep(1500);
      expect(p.child.exitCode).toBe(null);
      expect((await health(p)).secrets).toBe(601);
    } finally {
      const exit = await stop(p);
      expect(exit, p.stderr().slice(-600)).toEqual({ code: 0, signal: null });
    }
    expect(up.leaks).toEqual([]);
  }, 120_000);

  test('a serving proxy records 200 watermarked 40 KB documents in its registry and is still alive at the end', async () => {
    const home = join(root, 'wm');
    mkdirSync(home, { recursive: true, mode: 0o700 });
    const envFile = join(root, 'wm.env');
    writeFileSync(envFile, `GC_SECRET=${SECRET}\n`, { mode: 0o600 });
    const p = await startServe(['--port', '0', '--no-vault', '--env-file', envFile], { FICTA_HOME: home, FICTA_ANTHROPIC_UPSTREAM: up.url });
    try {
      for (let i = 0; i < 200; i++) {
        const doc = proseDocument(40_000, 1000 + i);
        const res = await fetch(`${p.url}/anthropic/v1/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'x-claude-code-session-id': `gc-${i % 7}` },
          body: JSON.stringify({
            model: 'x',
            max_tokens: 5,
            messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: doc } }, { type: 'text', text: `q ${SECRET}` }] }],
          }),
        });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
      }
      await sleep(1500);
      expect(p.child.exitCode).toBe(null);
      expect((await health(p)).secrets).toBe(1);
    } finally {
      const exit = await stop(p);
      expect(exit, p.stderr().slice(-600)).toEqual({ code: 0, signal: null });
    }
    // The registry really was written: attribution finds the session of one of the documents.
    const attr = await runCli(['attribute', '--json', '-'], { env: { FICTA_HOME: home }, input: proseDocument(40_000, 1000 + 8) });
    expect(attr.code, attr.stderr).toBe(0);
    expect(attr.stdout).toContain('gc-1');
    expect(up.leaks).toEqual([]);
  }, 120_000);
});
