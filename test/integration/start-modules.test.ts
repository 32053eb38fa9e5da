// What `ficta serve` loads before its ready line (start-up time is module loading): without a vault,
// neither libsodium nor better-sqlite3 — the vault's crypto and storage, and the watermark registry's
// SQLite, load only when used. Recorded with a module load hook in the serve process itself.

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { BIN, runCli, SOURCES_ENV } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'ficta-start-modules-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TRACER = join(dir, 'tracer.mjs');
writeFileSync(
  TRACER,
  `import { registerHooks } from 'node:module';\nimport { appendFileSync } from 'node:fs';\nregisterHooks({ load(url, context, next) { appendFileSync(process.env.TRACE_FILE, url + '\\n'); return next(url, context); } });\n`,
);

/** The module URLs `ficta serve` loaded up to its ready line. */
async function loadedUntilReady(home: string, env: Record<string, string> = {}): Promise<string[]> {
  const trace = join(dir, `trace-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(trace, '');
  const child = spawn(process.execPath, ['--import', TRACER, `${BIN}.js`, 'serve', '--port', '0'], {
    cwd: dir,
    env: { PATH: process.env.PATH, HOME: home, FICTA_HOME: home, TRACE_FILE: trace, ...SOURCES_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const closed = new Promise((resolve) => child.once('close', resolve));
  const ready = await new Promise<boolean>((resolve) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('ficta listening on ')) resolve(true);
    });
    void closed.then(() => resolve(false));
  });
  // Read at the ready line, before shutdown can load anything more.
  const loaded = readFileSync(trace, 'utf8').split('\n').filter(Boolean);
  child.kill('SIGTERM');
  await closed;
  expect(ready, stderr).toBe(true);
  return loaded;
}

const PACKAGES = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)\//;
const packages = (urls: readonly string[]): Set<string> => new Set(urls.map((u) => PACKAGES.exec(u)?.[1]).filter((p): p is string => p !== undefined));

describe('ficta serve start-up', () => {
  test('without a vault it loads neither libsodium nor better-sqlite3, nor the vault or watermark registry modules', async () => {
    const home = join(dir, 'plain');
    const loaded = await loadedUntilReady(home);
    const pkgs = packages(loaded);
    expect(pkgs).toContain('hono'); // the trace works
    expect([...pkgs].filter((p) => /sodium|sqlite/.test(p))).toEqual([]);
    expect(loaded.filter((u) => /\/src\/(vault\/(seal|store|open|source)|watermark\/registry|util\/sqlite)\.ts$/.test(u))).toEqual([]);
  });

  test('with a vault it loads libsodium and better-sqlite3 to unlock it', async () => {
    const home = join(dir, 'vault');
    const env = { FICTA_VAULT_PASSPHRASE: 'start modules passphrase' };
    const init = await runCli(['vault', 'init', '--kdf', 'interactive'], { env: { HOME: home, FICTA_HOME: home, ...env } });
    expect(init.code, init.stderr).toBe(0);
    const pkgs = packages(await loadedUntilReady(home, env));
    expect(pkgs).toContain('libsodium-wrappers-sumo');
    expect(pkgs).toContain('better-sqlite3');
  });
});
