// The vault as the running proxy's secret source, driven by the Anthropic SDK against the leak-oracle mock:
// placeholders survive `vault init` (the key is adopted), a `ficta vault add` from another process is
// redacted on the next request without a restart, and a damaged vault fails closed with 503.

import Anthropic from '@anthropic-ai/sdk';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { createFicta, type Ficta } from '../../src/index.ts';
import { createLogger } from '../../src/log/logger.ts';
import { derivePlaceholder } from '../../src/redact/placeholder.ts';
import { openDatabase } from '../../src/util/sqlite.ts';
import { unlockVaultSource } from '../../src/vault/source.ts';
import { SOURCES_ENV } from '../helpers/cli.ts';
import { createMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';
import { tempHome, type TempHome } from '../unit/vault-helpers.ts';

const BIN = join(import.meta.dirname, '../../bin/ficta.js');
const PASS = 'proxy test passphrase';
const FIRST = 'sk-ant-api03-vaultFirstSecret0001';
const SECOND = 'ghp-vault-second-secret-000000000002';
const ADDED_LIVE = 'xoxb-added-while-serving-0000000003';

let t: TempHome;
let up: MockUpstream | undefined;
let ficta: Ficta | undefined;
afterEach(async () => {
  await ficta?.close();
  await up?.close();
  ficta = undefined;
  up = undefined;
  t?.cleanup();
});

function cli(args: string[], stdin = ''): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const env = { PATH: process.env.PATH ?? '', HOME: t.home, FICTA_HOME: t.home, FICTA_VAULT_PASSPHRASE: PASS, ...SOURCES_ENV };
    const p = spawn(process.execPath, [BIN, ...args], { cwd: join(t.home, '..'), env, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    p.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    p.on('exit', (code) => resolve({ code, stderr }));
    p.stdin.end(stdin);
  });
}

async function health(url: string): Promise<{ status: number; secrets?: number }> {
  const r = await fetch(`${url}/healthz`);
  const body = (await r.json()) as { secrets?: number };
  return { status: r.status, ...(body.secrets === undefined ? {} : { secrets: body.secrets }) };
}

async function until(what: string, check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('ficta serving from the vault', () => {
  test('init → import → serve → SDK request redacted → add while serving → next request redacted → damage fails closed', async () => {
    t = tempHome();
    mkdirSync(t.home, { recursive: true, mode: 0o700 });
    // The proxy already ran before the vault existed: its placeholder key is on disk.
    const placeholderKey = Buffer.alloc(32, 0x3c);
    writeFileSync(join(t.home, 'placeholder.key'), `${placeholderKey.toString('hex')}\n`, { mode: 0o600 });
    const envFile = join(t.home, '..', 'app.env');
    writeFileSync(envFile, `FIRST_KEY=${FIRST}\nSECOND_KEY=${SECOND}\n`);
    expect((await cli(['vault', 'init', '--kdf', 'interactive'])).code).toBe(0);
    expect((await cli(['vault', 'import', envFile])).code).toBe(0);

    up = await createMockUpstream({ secrets: [FIRST, SECOND, ADDED_LIVE] });
    const source = await unlockVaultSource({ home: t.home, env: { FICTA_VAULT_PASSPHRASE: PASS }, pollIntervalMs: 20 });
    if (!source.ok) throw source.error;
    const loaded = loadConfig({ env: { FICTA_HOME: t.home }, flags: { host: '127.0.0.1', port: 0, upstreams: { anthropic: up.url, openai: up.url } } });
    if (!loaded.ok) throw loaded.error;
    const logger = createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, cb) => cb() }) });
    ficta = await createFicta({ config: loaded.value, env: {}, logger, sources: [source.value], keyProvider: source.value });
    const running = await ficta.listen();
    const client = new Anthropic({ baseURL: `${running.url}/anthropic`, apiKey: 'test-key', maxRetries: 0 });
    const ask = async (text: string): Promise<string> => {
      const msg = await client.messages.create({ model: 'claude-x', max_tokens: 50, messages: [{ role: 'user', content: text }] });
      const block = msg.content.find((b) => b.type === 'text');
      return block?.type === 'text' ? block.text : '';
    };
    expect(await health(running.url)).toEqual({ status: 200, secrets: 2 });

    // 1. The vault's secrets are redacted, with the placeholders the pre-vault key gave them.
    expect(await ask(`deploy with ${FIRST}`)).toContain(FIRST);
    expect(up.leaks).toEqual([]);
    expect(JSON.stringify(up.requests.at(-1)?.json)).toContain(derivePlaceholder(placeholderKey, FIRST));

    // 2. Another process adds a secret; the running proxy picks it up without a restart.
    await ask(`notify with ${ADDED_LIVE}`).catch(() => undefined); // the mock answers 500 on a leak
    expect(up.leaks.length).toBeGreaterThan(0); // not registered yet: the oracle sees it (control)
    up.leaks.length = 0;
    expect((await cli(['vault', 'add', 'SLACK_TOKEN'], ADDED_LIVE)).code).toBe(0);
    await until('the new secret to be loaded', async () => (await health(running.url)).secrets === 3);
    expect(await ask(`notify with ${ADDED_LIVE}`)).toContain(ADDED_LIVE);
    expect(up.leaks).toEqual([]);

    // 3. A damaged vault makes requests fail closed: 503 ficta_vault_unavailable, nothing forwarded.
    const forwarded = up.requests.length;
    const db = openDatabase(join(t.home, 'vault.db'), { fileMustExist: true });
    const row = db.prepare('SELECT * FROM records ORDER BY id LIMIT 1').get() as Record<string, unknown>;
    db.prepare('DELETE FROM records WHERE id = ?').run(row.id);
    await until('the proxy to report the vault unavailable', async () => (await health(running.url)).status === 503);
    const failed = await ask(`deploy with ${FIRST}`).then(() => undefined, (e: unknown) => e);
    expect(failed).toBeInstanceOf(Anthropic.APIError);
    expect((failed as InstanceType<typeof Anthropic.APIError>).status).toBe(503);
    expect(JSON.stringify((failed as InstanceType<typeof Anthropic.APIError>).error)).toContain('ficta_vault_unavailable');
    expect(up.requests.length).toBe(forwarded);

    // …and recover once the file is whole again.
    db.prepare('INSERT INTO records (id, name_index, key_id, version, nonce, sealed) VALUES (@id, @name_index, @key_id, @version, @nonce, @sealed)').run(row);
    db.close();
    await until('the vault to be available again', async () => (await health(running.url)).status === 200);
    expect(await ask(`deploy with ${FIRST}`)).toContain(FIRST);
    expect(up.leaks).toEqual([]);
  }, 60_000);
});
