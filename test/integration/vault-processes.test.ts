// The vault across processes: two writers at once, a kill -9 inside a large import, a running reader that
// never sees a half-written import, and a watching source that does not keep Node alive.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { createVaultSecretSource } from '../../src/vault/source.ts';
import { unlockVault } from '../../src/vault/open.ts';
import { expectSecrets, makeVault, tempHome, type TempHome } from '../unit/vault-helpers.ts';

const CHILD = join(import.meta.dirname, 'vault-child.ts');
const KEY = Buffer.alloc(32, 0x42);
const BASE = { BASE_ONE: 'base-value-0001', BASE_TWO: 'base-value-0002' };

let t: TempHome;
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  t?.cleanup();
});

async function setup(): Promise<{ keyPath: string }> {
  t = tempHome();
  mkdirSync(t.home, { recursive: true, mode: 0o700 });
  const keyPath = join(t.home, 'vault.key');
  writeFileSync(keyPath, `${KEY.toString('hex')}\n`, { mode: 0o600 });
  (await makeVault(t.path, BASE, { kind: 'key-file', key: KEY, path: keyPath })).close();
  return { keyPath };
}

function child(args: string[]): { proc: ChildProcess; lines: string[]; waitFor: (line: string) => Promise<void>; exited: Promise<{ code: number | null; signal: string | null; stderr: string }> } {
  const proc = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(proc);
  const lines: string[] = [];
  let stderr = '';
  const waiters: Array<{ line: string; resolve: () => void }> = [];
  let buf = '';
  proc.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    let nl;
    while ((nl = buf.indexOf('\n')) !== -1) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      lines.push(line);
      for (const w of waiters.filter((x) => x.line === line)) w.resolve();
    }
  });
  proc.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
  const exited = new Promise<{ code: number | null; signal: string | null; stderr: string }>((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal, stderr })));
  const waitFor = (line: string): Promise<void> => (lines.includes(line) ? Promise.resolve() : new Promise((resolve, reject) => {
    waiters.push({ line, resolve });
    void exited.then((e) => reject(new Error(`child exited (${e.code ?? e.signal}) before "${line}": ${e.stderr.slice(0, 300)}`)));
  }));
  return { proc, lines, waitFor, exited };
}

async function unlockWithKey(keyPath: string) {
  const v = await unlockVault(t.path, { kind: 'key-file', key: KEY, path: keyPath });
  if (!v.ok) throw new Error(`unlock failed: ${v.error.code}: ${v.error.message}`);
  return v.value;
}

describe('vault across processes', () => {
  test('1,000 adds split across two concurrent processes leave exactly 1,000 new records', async () => {
    const { keyPath } = await setup();
    const a = child(['add', t.path, keyPath, 'A', '500']);
    const b = child(['add', t.path, keyPath, 'B', '500']);
    const [ea, eb] = await Promise.all([a.exited, b.exited]);
    expect([ea.code, eb.code], `${ea.stderr}${eb.stderr}`.slice(0, 500)).toEqual([0, 0]);
    const v = await unlockWithKey(keyPath);
    const entries = v.entries();
    v.close();
    if (!entries.ok) throw entries.error;
    const names = new Set(entries.value.map((e) => e.name));
    expect(names.size).toBe(1002);
    for (let i = 0; i < 500; i++) expect(names.has(`A_${i}`) && names.has(`B_${i}`)).toBe(true);
  }, 60_000);

  test('kill -9 inside a large import leaves a vault that opens, with none of the import', async () => {
    const { keyPath } = await setup();
    const walBefore = statSize(`${t.path}-wal`);
    const c = child(['import', t.path, keyPath, '20000', 'during']);
    await c.waitFor('inside');
    // The transaction outgrew SQLite's page cache (16 MB), so its pages already reached the WAL; only the
    // commit frame is missing. Recovery must ignore them.
    expect(statSize(`${t.path}-wal`)).toBeGreaterThan(walBefore);
    c.proc.kill('SIGKILL');
    expect((await c.exited).signal).toBe('SIGKILL');
    const v = await unlockWithKey(keyPath);
    expectSecrets(v.entries(), BASE);
    expect(v.add('AFTER_CRASH', 'after-crash-value').ok).toBe(true);
    v.close();
  }, 60_000);

  test('kill -9 right after an import committed leaves all of it', async () => {
    const { keyPath } = await setup();
    const c = child(['import', t.path, keyPath, '5000', 'after']);
    await c.waitFor('committed');
    c.proc.kill('SIGKILL');
    await c.exited;
    const v = await unlockWithKey(keyPath);
    const entries = v.entries();
    v.close();
    if (!entries.ok) throw entries.error;
    expect(entries.value.length).toBe(5002);
  }, 60_000);

  test('a running source reloading during another process\'s import sees all of it or none of it', async () => {
    const { keyPath } = await setup();
    const reader = await unlockWithKey(keyPath);
    const source = createVaultSecretSource(reader, { pollIntervalMs: 5 });
    const counts = new Set<number>();
    let reloads = 0;
    const stop = source.watch!(() => { reloads += 1; });
    const c = child(['import', t.path, keyPath, '5000', 'none']);
    const done = c.exited;
    let finished = false;
    void done.then(() => { finished = true; });
    while (!finished) {
      const r = await source.load();
      if (!r.ok) throw new Error(`load failed: ${r.error.code}`);
      counts.add(r.value.length);
      await new Promise((res) => setTimeout(res, 2));
    }
    expect((await done).code).toBe(0);
    const last = await source.load();
    if (!last.ok) throw last.error;
    counts.add(last.value.length);
    stop();
    source.close();
    expect([...counts].every((n) => n === 2 || n === 5002), `counts seen: ${[...counts].join(',')}`).toBe(true);
    expect(counts.has(5002)).toBe(true);
    expect(reloads).toBeGreaterThan(0);
  }, 60_000);

  test('a watching source does not keep the process alive', async () => {
    const { keyPath } = await setup();
    const c = child(['watch', t.path, keyPath]);
    const started = Date.now();
    const exit = await c.exited;
    expect(exit.code).toBe(0);
    expect(c.lines).toContain('watching');
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 30_000);
});

function statSize(path: string): number {
  try { return statSync(path).size; } catch { return 0; }
}
