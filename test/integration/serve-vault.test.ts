// `ficta serve` with the sealed vault as a user runs it: init → import → serve (vault used by default,
// unlocked from FICTA_VAULT_KEY_FILE) → a request redacted with the vault's secrets → `vault add` while
// serving → the next request redacts it → a damaged vault makes requests fail closed with 503.

import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startServe } from '../helpers/cli.ts';
import { createMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';

const FIRST = 'sk-ant-api03-vAuLtFiRsTsEcReT0001';
const LATER = 'xoxb-added-while-serving-42424242';
let up: MockUpstream;
let root: string;
let home: string;
let keyFile: string;

beforeAll(async () => {
  up = await createMockUpstream({ secrets: [FIRST, LATER] });
  root = mkdtempSync(join(tmpdir(), 'ficta-sv-'));
  home = join(root, 'home');
  keyFile = join(root, 'vault.key');
});
afterAll(async () => {
  await up.close();
  rmSync(root, { recursive: true, force: true });
});

const env = (): Record<string, string> => ({ FICTA_HOME: home, FICTA_VAULT_KEY_FILE: keyFile, FICTA_ANTHROPIC_UPSTREAM: up.url });

describe('ficta serve with the vault', () => {
  it('uses the vault by default, picks up an add while serving, and fails closed when the vault is damaged', async () => {
    expect((await runCli(['vault', 'init', '--key-file', keyFile], { env: { FICTA_HOME: home } })).code).toBe(0);
    writeFileSync(join(root, 'app.env'), `ANTHROPIC_API_KEY=${FIRST}\nSHORT=abc\n`);
    const imp = await runCli(['vault', 'import', join(root, 'app.env')], { env: env() });
    expect(imp.code, imp.stderr).toBe(0);

    const doctor = await runCli(['doctor', '--json'], { env: env() });
    const report = JSON.parse(doctor.stdout);
    expect(report.checks.filter((c: { area: string }) => c.area === 'vault').map((c: { message: string }) => c.message).join(' | ')).toMatch(/1 record.*unlocks; 1 secret\(s\) verified/);
    expect(doctor.stdout).not.toContain(FIRST);

    const p = await startServe(['--port', '0'], env());
    try {
      expect(existsSync(join(home, 'placeholder.key'))).toBe(false); // the vault holds the key
      const client = new Anthropic({ baseURL: `${p.url}/anthropic`, apiKey: 'k', maxRetries: 0 });
      const ask = async (text: string): Promise<string> => {
        const m = await client.messages.create({ model: 'x', max_tokens: 5, messages: [{ role: 'user', content: text }] });
        return m.content[0]?.type === 'text' ? m.content[0].text : '';
      };
      expect(await ask(`key ${FIRST}`)).toBe(`ECHO: key ${FIRST}`);
      expect(JSON.parse(up.requests.at(-1)!.body.toString()).messages[0].content).toMatch(/^key ~ficta_/);

      // Not registered yet: the oracle does not watch for it, and it goes out as is.
      up.secrets = [FIRST];
      await ask(`token ${LATER}`);
      expect(up.requests.at(-1)!.body.toString()).toContain(LATER);
      up.secrets = [FIRST, LATER];

      const add = await runCli(['vault', 'add', 'SLACK_TOKEN'], { env: env(), input: LATER });
      expect(add.code, add.stderr).toBe(0);
      let seen = '';
      for (let i = 0; i < 40; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const health = (await (await fetch(`${p.url}/healthz`)).json()) as { secrets: number };
        if (health.secrets === 2) break;
      }
      expect(await ask(`token ${LATER}`)).toBe(`ECHO: token ${LATER}`);
      seen = JSON.parse(up.requests.at(-1)!.body.toString()).messages[0].content;
      expect(seen).toMatch(/^token ~ficta_/);
      expect(up.leaks).toEqual([]);

      // Replace the vault file with a damaged copy under the running proxy (as a bad restore or sync
      // would): it must stop forwarding, not forward unredacted.
      const db = join(home, 'vault.db');
      const bytes = readFileSync(db);
      bytes.fill(0x41, 4096, 8192);
      writeFileSync(`${db}.bad`, bytes);
      renameSync(`${db}.bad`, db);
      let status = 0;
      for (let i = 0; i < 40 && status !== 503; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const before = up.requests.length;
        const res = await fetch(`${p.url}/anthropic/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ messages: [{ role: 'user', content: FIRST }] }) });
        status = res.status;
        if (status === 503) {
          expect(((await res.json()) as any).error.type).toBe('ficta_vault_unavailable');
          expect(up.requests.length).toBe(before);
        } else await res.text();
      }
      expect(status).toBe(503);
      expect(up.leaks).toEqual([]);
    } finally {
      p.child.kill('SIGTERM');
      await p.exited;
    }
    expect(p.stderr()).not.toContain(FIRST);
    expect(p.stderr()).not.toContain(LATER);
  });

  it('refuses to start when the vault exists but cannot be unlocked without a terminal', async () => {
    const r = await runCli(['serve', '--port', '0'], { env: { FICTA_HOME: home } });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^ficta: vault: /);
  });
});
