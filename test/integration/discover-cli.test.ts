// Zero-config discovery under `ficta run` with an SDK client: `.env`, `.env.local`, `.env.*.local` in the
// working directory and secret-looking environment variables are registered without any flag, one
// start-up line per source; `--no-discover` turns it off, `--env-file` replaces it unless `--discover`.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, SOURCES_ENV, type CliResult } from '../helpers/cli.ts';
import { badJsonLines } from '../helpers/json-lines.ts';
import { createMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';

const SDK_SCRIPT = join(import.meta.dirname, '../helpers/sdk-script.mjs');
const FROM_ENV_FILE = 'dotenv-value-Qm9vYmFy9x';
const FROM_LOCAL = 'local-value-Wm1hbmdv7y';
const FROM_DEV_LOCAL = 'dev-local-value-Tz0lk3';
const FROM_VAR = 'exported-token-Pq8sLm2x';
const URL_PASSWORD = 'Zr7uKw2pQe';
const ALL = [FROM_ENV_FILE, FROM_LOCAL, FROM_DEV_LOCAL, FROM_VAR, URL_PASSWORD];
const PROMPT = `values ${FROM_ENV_FILE} ${FROM_LOCAL} ${FROM_DEV_LOCAL} ${FROM_VAR} and postgres://app:${URL_PASSWORD}@db/app`;

let up: MockUpstream;
let open: MockUpstream;
let dir: string;
let home: string;

beforeAll(async () => {
  up = await createMockUpstream({ secrets: ALL });
  open = await createMockUpstream();
  dir = mkdtempSync(join(tmpdir(), 'ficta-discover-'));
  home = mkdtempSync(join(tmpdir(), 'ficta-discover-home-'));
  writeFileSync(join(dir, '.env'), `APP_SECRET=${FROM_ENV_FILE}\nPORT=3000\n`);
  writeFileSync(join(dir, '.env.local'), `LOCAL_SECRET=${FROM_LOCAL}\n`);
  writeFileSync(join(dir, '.env.development.local'), `DEV_SECRET=${FROM_DEV_LOCAL}\n`);
  writeFileSync(join(dir, '.env.example'), 'NOT_LOADED=example-value-123456\n');
});
afterAll(async () => {
  await up.close();
  await open.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

function ficta(args: string[], upstream: MockUpstream): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const env = {
      PATH: process.env.PATH,
      ...SOURCES_ENV,
      FICTA_HOME: home,
      FICTA_OPENAI_UPSTREAM: upstream.url,
      FICTA_ANTHROPIC_UPSTREAM: upstream.url,
      PROMPT,
      GH_TOKEN: FROM_VAR,
      MY_SERVICE_URL: `postgres://app:${URL_PASSWORD}@db/app`,
      TERM_PROGRAM: 'not-a-secret-value',
    };
    const child = spawn(BIN, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

describe('zero-config discovery', () => {
  it('registers .env, .env.local, .env.*.local and secret-looking variables under ficta run, with one line per source', async () => {
    const r = await ficta(['run', '-q', '--', process.execPath, SDK_SCRIPT], up);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`ECHO: ${PROMPT}\nwithout token: 401\n`);
    expect(up.leaks).toEqual([]);
    expect(JSON.parse(up.requests.at(-1)!.body.toString()).messages[0].content).toMatch(/^values ~ficta_/);
    expect(r.stderr.split('\n').filter((l) => l !== '')).toEqual([
      'ficta: discovered 1 secret in ./.env',
      'ficta: discovered 1 secret in ./.env.local',
      'ficta: discovered 1 secret in ./.env.development.local',
      // PROMPT holds the URL too: its password is confirmed there as well.
      'ficta: discovered 3 secrets in the environment (GH_TOKEN, MY_SERVICE_URL, PROMPT); --no-discover turns this off',
    ]);
    for (const v of ALL) expect(r.stderr).not.toContain(v);
    // With --log-format json every stderr line is JSON: one `discovered` line per source, names under `secrets`.
    const json = await ficta(['run', '-q', '--log-format', 'json', '--', process.execPath, SDK_SCRIPT], up);
    expect(json.code, json.stderr).toBe(0);
    expect(badJsonLines(json.stderr)).toEqual([]);
    const lines = json.stderr.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l.event, l.source, l.count])).toEqual([
      ['discovered', './.env', 1],
      ['discovered', './.env.local', 1],
      ['discovered', './.env.development.local', 1],
      ['discovered', 'the environment', 3],
    ]);
    expect(lines[3]).toMatchObject({ level: 'info', secrets: ['GH_TOKEN', 'MY_SERVICE_URL', 'PROMPT'] });
    for (const v of ALL) expect(json.stderr).not.toContain(v);
  });

  it('--no-discover registers nothing it was not told about', async () => {
    const r = await ficta(['run', '-q', '--no-discover', '--detect', 'off', '--', process.execPath, SDK_SCRIPT], open);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^ficta: warning: nothing to protect: no secrets registered .* and detection is off/);
    expect(r.stderr.split('\n').filter((l) => l !== '')).toHaveLength(1);
    expect(JSON.parse(open.requests.at(-1)!.body.toString()).messages[0].content).toBe(PROMPT);
  });

  it('with --env-file discovery is off unless --discover adds it', async () => {
    writeFileSync(join(home, 'named.env'), `NAMED=named-value-Xy7qPz\n`);
    const named = await ficta(['run', '-q', '--env-file', join(home, 'named.env'), '--detect', 'off', '--', process.execPath, SDK_SCRIPT], open);
    expect(named.stderr).toBe('');
    expect(JSON.parse(open.requests.at(-1)!.body.toString()).messages[0].content).toBe(PROMPT);
    const both = await ficta(['run', '-q', '--env-file', join(home, 'named.env'), '--discover', '--', process.execPath, SDK_SCRIPT], up);
    expect(both.code, both.stderr).toBe(0);
    expect(both.stderr).toContain('ficta: discovered 1 secret in ./.env\n');
    expect(up.leaks).toEqual([]);
  });
});
