// The install a user gets from `npm pack`: the tarball holds the compiled build and no sources, and
// `npm install -g ./ficta-<v>.tgz` on a fresh prefix (its dependencies from a loopback registry that
// serves this checkout's node_modules, packed) puts a `ficta` on PATH that serves, redacts, restores and
// opens a vault. The only test that runs the build instead of the sources.

import Anthropic from '@anthropic-ai/sdk';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startServe } from '../helpers/cli.ts';
import { createMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';
import { dependencyClosure, startLocalRegistry, type LocalRegistry } from '../helpers/npm-registry.ts';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };
const FILE_SECRET = 'pack-file-secret-5b1d7e9a';
const VAULT_SECRET = 'pack-vault-secret-c0ffee42';
const PASS = 'a passphrase for the packed vault';

let work: string;
let prefix: string;
let tarball: string;
let registry: LocalRegistry;
let up: MockUpstream;
let installLog: string;

/** npm with only this test's settings: its own cache and HOME, none of the caller's npm_config_*. */
function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: work, npm_config_cache: join(work, 'npm-cache'), npm_config_update_notifier: 'false' };
  return env;
}

/** The installed command found through PATH, as a shell would: the prefix's bin first. */
function userEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: `${join(prefix, 'bin')}:${process.env.PATH}`, HOME: work, FICTA_HOME: home, ...extra };
}

function ficta(args: string[], env: Record<string, string>, input?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('ficta', args, { env, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'ficta-pack-'));
  prefix = join(work, 'prefix');
  mkdirSync(join(work, 'deps'));
  up = await createMockUpstream({ secrets: [FILE_SECRET, VAULT_SECRET] });
  // As a user makes it (`npm pack` runs the prepack build), and the dependencies' tarballs meanwhile.
  const [packed, reg] = await Promise.all([
    run('npm', ['pack', '--pack-destination', work, '--json'], { cwd: ROOT, env: npmEnv(), maxBuffer: 16 * 1024 * 1024 }),
    startLocalRegistry(dependencyClosure(ROOT, Object.keys(PKG.dependencies)), join(work, 'deps'), npmEnv()),
  ]);
  registry = reg;
  tarball = join(work, (JSON.parse(packed.stdout) as Array<{ filename: string }>)[0]!.filename);
  const installed = await run('npm', ['install', '-g', tarball, '--prefix', prefix, '--registry', registry.url, '--no-audit', '--no-fund'], { env: npmEnv() });
  installLog = installed.stdout + installed.stderr;
}, 180_000);

afterAll(async () => {
  await registry?.close();
  await up?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('npm pack and a global install', () => {
  test('the tarball holds the launcher and the build, no sources, tests or dependencies', async () => {
    expect(tarball.endsWith(`ficta-${PKG.version}.tgz`)).toBe(true);
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const files = stdout.trim().split('\n');
    for (const f of ['package/package.json', 'package/bin/ficta', 'package/bin/ficta.js', 'package/dist/cli.js', 'package/dist/kdf-worker.js', 'package/dist/build-stamp.json', 'package/dist/THIRD-PARTY-NOTICES.txt']) {
      expect(files).toContain(f);
    }
    expect(files.filter((f) => /^package\/(src|test|bench|scripts|node_modules)\//.test(f))).toEqual([]);
  });

  test('installs only the runtime dependencies, without asking to approve an install script', () => {
    const installed = join(prefix, 'lib/node_modules/ficta');
    expect(existsSync(join(installed, 'src'))).toBe(false);
    expect(readdirSync(join(installed, 'node_modules')).sort()).toEqual(['better-sqlite3', 'libsodium-sumo', 'libsodium-wrappers-sumo', 'node-addon-api']);
    expect(registry.requests.filter((r) => !r.startsWith('/-/tarballs/')).sort()).toEqual(['/better-sqlite3', '/libsodium-sumo', '/libsodium-wrappers-sumo', '/node-addon-api']);
    expect(installLog).not.toMatch(/install-scripts|allowScripts/);
  });

  test('`ficta` is on PATH and prints its version', async () => {
    const r = await ficta(['--version'], userEnv(join(work, 'home-version')));
    expect(r).toEqual({ code: 0, stdout: `${PKG.version}\n`, stderr: '' });
  });

  test('the installed ficta serves, redacts and restores, and opens a vault', async () => {
    const home = join(work, 'home');
    mkdirSync(home, { mode: 0o700 });
    const env = userEnv(home, { FICTA_VAULT_PASSPHRASE: PASS });
    const init = await ficta(['vault', 'init', '--kdf', 'interactive'], env);
    expect(init.code, init.stderr).toBe(0);
    expect((await ficta(['vault', 'add', 'VAULT_TOKEN'], env, `${VAULT_SECRET}\n`)).code).toBe(0);
    expect((await ficta(['vault', 'list'], env)).stdout).toMatch(/^VAULT_TOKEN\s/m);
    const envFile = join(work, 'app.env');
    writeFileSync(envFile, `FILE_SECRET=${FILE_SECRET}\n`);

    const p = await startServe(['--port', '0', '--env-file', envFile, '--anthropic-upstream', up.url], env, join(prefix, 'bin/ficta'));
    try {
      expect(await (await fetch(`${p.url}/healthz`)).json()).toMatchObject({ status: 'ok', secrets: 2, version: PKG.version });
      const client = new Anthropic({ apiKey: 'k', baseURL: p.url });
      const msg = await client.messages.create({ model: 'm', max_tokens: 16, messages: [{ role: 'user', content: `${FILE_SECRET} and ${VAULT_SECRET}` }] });
      expect(msg.content[0]).toMatchObject({ type: 'text', text: `ECHO: ${FILE_SECRET} and ${VAULT_SECRET}` });
      expect(up.requests).toHaveLength(1);
      expect(up.leaks).toEqual([]);
    } finally {
      p.child.kill('SIGTERM');
    }
    expect((await p.exited).code).toBe(0);
    expect(p.stdout()).toBe(`ficta listening on ${p.url}\n`);
  });
});
