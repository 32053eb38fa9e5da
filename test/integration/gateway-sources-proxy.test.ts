// `[[sources]]` through the real proxy with tenants (Anthropic SDK): a directory source rotated the way
// Kubernetes does it, the retired value still redacted and restored only to entitled tenants, reload on
// demand, and a source that has never loaded keeping the instance not ready (503, nothing forwarded).

import Anthropic from '@anthropic-ai/sdk';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthResult, Tenancy, Tenant } from '../../src/gateway/tenant.ts';
import { startFicta, type TestFicta } from '../helpers/ficta-server.ts';
import { createMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';

const OLD = 'platform-db-pass-OLD-1';
const NEW = 'platform-db-pass-NEW-2';
const BILLING = 'billing-key-value-333';
const BILLING2 = 'billing-key-value-444';
const TOKENS: Record<string, Tenant> = { 'tok-alice': { name: 'alice', groups: ['platform'] }, 'tok-bob': { name: 'bob', groups: ['billing'] } };

const tenancy: Tenancy = {
  key: Buffer.alloc(32, 0x21),
  authenticate(_req, rawTarget): AuthResult {
    const m = /^\/t\/([^/?]+)(.*)$/.exec(rawTarget);
    const tenant = m === null ? undefined : TOKENS[m[1]!];
    return tenant === undefined ? { ok: false, status: 401, type: 'ficta_unauthorized', message: 'ficta: unknown token' } : { ok: true, tenant, target: m![2] || '/' };
  },
};

function swap(dir: string, generation: string, files: Record<string, string>): void {
  const gen = join(dir, `..${generation}`);
  mkdirSync(gen);
  for (const [n, v] of Object.entries(files)) writeFileSync(join(gen, n), `${v}\n`);
  symlinkSync(`..${generation}`, join(dir, '..data_tmp'));
  renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
  for (const n of Object.keys(files)) {
    try {
      symlinkSync(join('..data', n), join(dir, n));
    } catch {
      // linked by an earlier generation
    }
  }
}

let root: string;
let up: MockUpstream;
let gw: TestFicta;
const say = async (token: string, text: string): Promise<string> => {
  const c = new Anthropic({ baseURL: `${gw.url}/t/${token}/anthropic`, apiKey: 'k', maxRetries: 0 });
  const msg = await c.messages.create({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: text }] });
  return msg.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
};

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'ficta-gw-sources-'));
  mkdirSync(join(root, 'platform'));
  swap(join(root, 'platform'), 'a', { DB_PASSWORD: OLD });
  writeFileSync(join(root, 'billing.env'), `STRIPE_KEY=${BILLING}\n`);
  up = await createMockUpstream({ secrets: [OLD, NEW, BILLING, BILLING2] });
  gw = await startFicta({
    upstream: up.url,
    tenancy,
    config: {
      sources: [
        { name: 'platform', type: 'dir', path: join(root, 'platform'), groups: ['platform'], refresh: '1h' },
        { name: 'billing', type: 'dotenv', path: join(root, 'billing.env'), groups: ['billing'] },
      ],
    },
  });
});
afterAll(async () => {
  await gw?.close();
  await up?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('[[sources]] in the gateway', () => {
  it('rotates a directory value: the new one is protected, the retired one still redacted and restored to entitled tenants only', async () => {
    expect(await say('tok-alice', `a ${OLD}`)).toContain(OLD);
    const version = gw.ficta.registry.current().version;
    swap(join(root, 'platform'), 'b', { DB_PASSWORD: NEW });
    const end = Date.now() + 5000;
    while (gw.ficta.registry.current().version === version && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
    expect(gw.ficta.sources().find((s) => s.name === 'platform')).toMatchObject({ version: 2, values: 1, retained: 1, lastResult: 'ok' });
    expect(await say('tok-alice', `new ${NEW} old ${OLD}`)).toContain(`new ${NEW} old ${OLD}`);
    const bob = await say('tok-bob', `new ${NEW} old ${OLD}`);
    expect(bob).not.toContain(NEW);
    expect(bob).not.toContain(OLD);
    expect(gw.requestLogs().at(-1)!.withheld).toEqual({ DB_PASSWORD: { 'tenant:not-entitled': 2 } });
    expect(up.leaks).toEqual([]);
  });

  it('reload() reads every source again (SIGHUP) and counts by source', async () => {
    writeFileSync(join(root, 'billing.env'), `STRIPE_KEY=${BILLING2}\n`);
    await gw.ficta.reload();
    expect(await say('tok-bob', `k ${BILLING2} ${BILLING}`)).toBe(`ECHO: k ${BILLING2} ${BILLING}`);
    expect(up.leaks).toEqual([]);
    expect(gw.ficta.sources().map((s) => [s.name, s.values, s.retained])).toEqual([
      ['platform', 1, 1],
      ['billing', 1, 1],
    ]);
  });

  it('answers 503 ficta_not_ready and forwards nothing while a source has never loaded', async () => {
    const missing = join(root, 'later.env');
    const lone = await startFicta({ upstream: up.url, tenancy, config: { sources: [{ name: 'later', type: 'dotenv', path: missing, groups: ['platform'] }] } });
    try {
      expect(lone.ficta.ready()).toBe(false);
      const before = up.requests.length;
      const c = new Anthropic({ baseURL: `${lone.url}/t/tok-alice/anthropic`, apiKey: 'k', maxRetries: 0 });
      const err = await c.messages.create({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
      expect((err as { status?: number }).status).toBe(503);
      expect(JSON.stringify((err as { error?: unknown }).error)).toContain('ficta_not_ready');
      expect(up.requests.length).toBe(before);
      expect(lone.logs.some((l) => l.includes('"source_load_failed"'))).toBe(true);
      writeFileSync(missing, `LATE=late-value-5555\n`);
      await lone.ficta.reload();
      expect(lone.ficta.ready()).toBe(true);
      const msg = await c.messages.create({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'late-value-5555' }] });
      expect(msg.content[0]?.type === 'text' && msg.content[0].text).toBe('ECHO: late-value-5555');
      expect(JSON.stringify(up.requests.at(-1)!.json)).not.toContain('late-value-5555');
    } finally {
      await lone.close();
    }
  });
});
