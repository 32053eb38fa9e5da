// A name defined twice never drops a value silently: `vault import` of several files (or one file that
// sets a name twice) refuses different values for one name, naming it, unless --rename keeps both; serve
// protects every value of every env file, duplicates included.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SOURCES_ENV } from '../helpers/cli.ts';
import { startFicta } from '../helpers/ficta-server.ts';
import { createMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';

const BIN = join(import.meta.dirname, '../../bin/ficta.js');
const FIRST = 'first-api-key-value-0123';
const SECOND = 'second-api-key-value-4567';
const OTHER = 'other-token-value-89ab';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ficta-dup-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run { code: number | null; stdout: string; stderr: string }

function ficta(home: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [BIN, ...args], { cwd: dir, env: { PATH: process.env.PATH ?? '', ...SOURCES_ENV, HOME: home, FICTA_HOME: home, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    proc.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    proc.on('exit', (code) => resolve({ code, stdout, stderr }));
    proc.stdin.end('');
  });
}

function expectNoValues(r: Run): void {
  for (const v of [FIRST, SECOND, OTHER]) expect(r.stdout.includes(v) || r.stderr.includes(v), 'a value was printed').toBe(false);
}

describe('ficta vault import with a name defined twice', () => {
  it('fails as a whole naming the name and its files, imports with --rename, and never prints a value', async () => {
    const home = join(dir, 'home');
    const keyFile = join(dir, 'vault.key');
    const a = join(dir, 'a.env');
    const b = join(dir, 'b.env');
    const twice = join(dir, 'twice.env');
    writeFileSync(a, `API_KEY=${FIRST}\nOTHER_TOKEN=${OTHER}\n`);
    writeFileSync(b, `API_KEY=${SECOND}\nOTHER_TOKEN=${OTHER}\n`);
    writeFileSync(twice, `API_KEY=${FIRST}\nAPI_KEY=${SECOND}\n`);
    const k = { FICTA_VAULT_KEY_FILE: keyFile };
    expect((await ficta(home, ['vault', 'init', '--key-file', keyFile])).code).toBe(0);

    for (const files of [[a, b], [twice]]) {
      const r = await ficta(home, ['vault', 'import', ...files], k);
      expect(r.code).toBe(1);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/API_KEY/);
      expect(r.stderr).toMatch(/--rename/);
      for (const f of files) expect(r.stderr).toContain(f);
      expectNoValues(r);
      const list = await ficta(home, ['vault', 'list', '--json'], k);
      expect(JSON.parse(list.stdout === '' ? '[]' : list.stdout)).toEqual([]);
    }

    const renamed = await ficta(home, ['vault', 'import', '--rename', a, b], k);
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(renamed.stdout).toMatch(/^renamed +API_KEY -> API_KEY_2 /m);
    expect(renamed.stdout).toMatch(/^added +API_KEY$/m);
    expect(renamed.stdout).toMatch(/^added +API_KEY_2$/m);
    expect(renamed.stdout).toMatch(/^added +OTHER_TOKEN$/m);
    expectNoValues(renamed);
    const list = await ficta(home, ['vault', 'list', '--json'], k);
    expect((JSON.parse(list.stdout) as Array<{ name: string }>).map((e) => e.name)).toEqual(['API_KEY', 'API_KEY_2', 'OTHER_TOKEN']);
  });
});

describe('serve with a name defined twice', () => {
  let up: MockUpstream;
  beforeAll(async () => {
    up = await createMockUpstream({ secrets: [FIRST, SECOND] });
  });
  afterAll(async () => {
    await up.close();
  });

  it('protects both values of a name one env file sets twice', async () => {
    const envFile = join(dir, 'serve-twice.env');
    writeFileSync(envFile, `API_KEY=${FIRST}\nAPI_KEY=${SECOND}\n`);
    const proxy = await startFicta({ upstream: up.url, config: { secrets: { envFiles: [envFile] } } });
    try {
      const res = await fetch(`${proxy.url}/openai/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'x', messages: [{ role: 'user', content: `${FIRST} and ${SECOND}` }] }),
      });
      expect(res.status).toBe(200);
      expect(up.leaks).toEqual([]);
      expect(JSON.parse(up.requests.at(-1)!.body.toString()).messages[0].content).toMatch(/^~ficta_[a-z2-7]{20} and ~ficta_[a-z2-7]{20}$/);
    } finally {
      await proxy.close();
    }
  });
});
