// Terms kept in the vault (`ficta vault add NAME --term`): the flag survives sealing and reopening, `vault
// list` shows it, the running proxy matches the term in any case on word boundaries and restores each
// casing exactly, counts it by the record's name, and picks up a term added while it serves.

import OpenAI from 'openai';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { createFicta, type Ficta } from '../../src/index.ts';
import { createLogger } from '../../src/log/logger.ts';
import { decodeRecord, encodeRecord } from '../../src/vault/format.ts';
import { createVaultSecretSource } from '../../src/vault/source.ts';
import { runMain } from '../helpers/cli-io.ts';
import { createMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';
import { makeVault, PASSPHRASE, tempHome, type TempHome } from '../unit/vault-helpers.ts';

let t: TempHome | undefined;
let up: MockUpstream | undefined;
let ficta: Ficta | undefined;
afterEach(async () => {
  await ficta?.close();
  await up?.close();
  t?.cleanup();
  ficta = up = t = undefined;
});

describe('terms in the vault', () => {
  test('the term flag round-trips through the record layout; other records keep their layouts', () => {
    const base = { name: 'P', source: 'prompt', createdAt: 1, updatedAt: 2, value: Buffer.from('Falcon') };
    expect(decodeRecord(encodeRecord({ ...base, term: true }))).toMatchObject({ name: 'P', term: true, hosts: [] });
    expect(decodeRecord(encodeRecord({ ...base, term: true, hosts: ['a.example'] }))).toMatchObject({ term: true, hosts: ['a.example'] });
    expect(decodeRecord(encodeRecord(base))).not.toHaveProperty('term');
    expect(encodeRecord(base)[0]).toBe(1);
  });

  test('vault add --term stores a short word as a term; list shows it; a term with a quote is refused', async () => {
    t = tempHome();
    (await makeVault(t.path)).close();
    const env = { FICTA_HOME: t.home, FICTA_VAULT_PASSPHRASE: PASSPHRASE.kind === 'passphrase' ? PASSPHRASE.passphrase : '' };
    const added = await runMain(['vault', 'add', 'project', '--term'], env, 'Orca');
    expect(added.stdout + added.stderr).toMatch(/added project \(a term/);
    expect((await runMain(['vault', 'add', 'short'], env, 'Orca')).stderr).toMatch(/shorter than 8 characters/);
    expect((await runMain(['vault', 'add', 'bad', '--term'], env, 'a"b')).stderr).toMatch(/the term bad is refused: it holds a quote/);
    const listed = await runMain(['vault', 'list', '--json'], env);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ name: 'project', length: 4, term: true })]);
    expect((await runMain(['vault', 'list'], env)).stdout).toMatch(/^project \(term\)\s+4 /m);
  });

  test('the proxy redacts vault terms in every casing, restores each exactly, and sees a new one without a restart', async () => {
    t = tempHome();
    const vault = await makeVault(t.path);
    expect(vault.add('project', 'Orca', { term: true }).ok).toBe(true);
    up = await createMockUpstream({ secrets: [] });
    const source = createVaultSecretSource(vault, { pollIntervalMs: 20 });
    const loaded = loadConfig({ env: { FICTA_HOME: t.home }, flags: { host: '127.0.0.1', port: 0, upstreams: { anthropic: up.url, openai: up.url }, detect: { mode: 'off' } } });
    if (!loaded.ok) throw loaded.error;
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', destination: new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }) });
    ficta = await createFicta({ config: loaded.value, env: {}, logger, sources: [source] });
    const running = await ficta.listen();
    const client = new OpenAI({ baseURL: `${running.url}/openai/v1`, apiKey: 'k', maxRetries: 0 });
    const ask = async (text: string): Promise<string> => (await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: text }] })).choices[0]?.message.content ?? '';

    const text = 'ORCA, Orca and orca ship; orcas and Orcadia do not match';
    expect(await ask(text)).toBe(`ECHO: ${text}`);
    const sent = up.requests.at(-1)!.body.toString();
    expect(sent).not.toMatch(/\borca\b/i);
    expect(sent).toContain('orcas and Orcadia');

    // A term added while serving (another connection, as `ficta vault add` from a shell) joins on the next load.
    const added = await runMain(['vault', 'add', 'customer', '--term'], { FICTA_HOME: t.home, FICTA_VAULT_PASSPHRASE: PASSPHRASE.kind === 'passphrase' ? PASSPHRASE.passphrase : '' }, 'Initech');
    expect(added.code).toBe(0);
    const later = 'INITECH and initech';
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      expect(await ask(later)).toBe(`ECHO: ${later}`);
      if (!/initech/i.test(up.requests.at(-1)!.body.toString())) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(up.requests.at(-1)!.body.toString()).not.toMatch(/initech/i);
    const names = new Set(lines.flatMap((l) => l.split('\n')).filter((l) => l.includes('"event":"request"')).flatMap((l) => Object.keys(JSON.parse(l).redactions ?? {})));
    expect([...names].sort()).toEqual(['customer', 'project']);
    expect(lines.join('')).not.toMatch(/orca|initech/i);
  }, 30_000);
});
