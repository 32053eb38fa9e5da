// Tenancy through the real proxy with the official Anthropic SDK as each tenant: entitled restores, another
// group's value withheld, another tenant's placeholder unchanged, refusals before anything is forwarded,
// and restore on a second instance that never saw the request.

import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthResult, Tenancy, Tenant } from '../../src/gateway/tenant.ts';
import type { SecretSource } from '../../src/secrets/types.ts';
import { ok } from '../../src/util/result.ts';
import { startFicta, type TestFicta } from '../helpers/ficta-server.ts';
import { createMockUpstream, echoScript, type MockUpstream } from '../helpers/mock-upstream.ts';

const KEY = Buffer.alloc(32, 0x5a);
const PLATFORM = 'platform-db-password-9f3k';
const BILLING = 'sk_live_billingKey77Qx';
const TOKENS: Record<string, Tenant> = {
  'tok-alice-0123456789abcdef': { name: 'alice', groups: ['platform'] },
  'tok-bob-0123456789abcdefgh': { name: 'bob', groups: ['billing'] },
};

/** The tenancy gw-ops implements for real (token file, limits): here a fixed table, `/t/<token>` or `x-ficta-token`. */
function testTenancy(): Tenancy & { released: number } {
  const t = {
    key: KEY,
    released: 0,
    authenticate(req: import('node:http').IncomingMessage, rawTarget: string): AuthResult {
      const m = /^\/t\/([^/?]+)(.*)$/.exec(rawTarget);
      const token = m?.[1] ?? (req.headers['x-ficta-token'] as string | undefined);
      const tenant = token === undefined ? undefined : TOKENS[token];
      if (tenant === undefined) return { ok: false, status: 401, type: 'ficta_unauthorized', message: 'ficta: unknown token; nothing was forwarded' };
      return { ok: true, tenant, target: m === null ? rawTarget : m[2] || '/', release: () => t.released++ };
    },
  };
  return t;
}

const orgSource: SecretSource = {
  kind: 'test-org',
  load: async () =>
    ok([
      { name: 'DB_PASSWORD', value: PLATFORM, source: 'platform', groups: ['platform'] },
      { name: 'STRIPE_KEY', value: BILLING, source: 'billing', groups: ['billing'] },
    ]),
};

let up: MockUpstream;
let gw: TestFicta;
let gw2: TestFicta;
let tenancy: ReturnType<typeof testTenancy>;
const client = (base: string, headers: Record<string, string> = {}): Anthropic => new Anthropic({ baseURL: base, apiKey: 'test-key', maxRetries: 0, defaultHeaders: headers });

beforeAll(async () => {
  up = await createMockUpstream({ secrets: [PLATFORM, BILLING] });
  tenancy = testTenancy();
  gw = await startFicta({ upstream: up.url, sources: [orgSource], tenancy });
  gw2 = await startFicta({ upstream: up.url, sources: [orgSource], tenancy: testTenancy() });
});
afterAll(async () => {
  await gw?.close();
  await gw2?.close();
  await up?.close();
});

const text = (msg: Anthropic.Message): string => msg.content.map((b) => (b.type === 'text' ? b.text : '')).join('');

describe('ficta gateway tenancy', () => {
  it("restores the tenant's groups' values, withholds another group's (tenant:not-entitled), and logs tenant and groups", async () => {
    const alice = client(`${gw.url}/t/tok-alice-0123456789abcdef/anthropic`);
    const stream = alice.messages.stream({ model: 'claude-x', max_tokens: 50, messages: [{ role: 'user', content: `db ${PLATFORM} and ${BILLING}` }] });
    const got = text(await stream.finalMessage());
    expect(got).toContain(`db ${PLATFORM} and ~ficta_`);
    expect(got).not.toContain(BILLING);
    expect(up.leaks).toEqual([]);
    const line = gw.requestLogs().at(-1)!;
    expect(line.tenant).toBe('alice');
    expect(line.groups).toEqual(['platform']);
    expect(line.withheld).toEqual({ STRIPE_KEY: { 'tenant:not-entitled': 1 } });
    expect(line.restores).toEqual({ DB_PASSWORD: 1 });
    expect(tenancy.released).toBeGreaterThan(0);
    expect(gw.logs.join('\n')).not.toMatch(/~ficta_[a-z2-7]{20}/);
  });

  it('counts a withheld value in a whole (non-streamed) body that holds nothing else to restore', async () => {
    const alice = client(`${gw.url}/t/tok-alice-0123456789abcdef/anthropic`);
    const msg = await alice.messages.create({ model: 'claude-x', max_tokens: 50, messages: [{ role: 'user', content: `only ${BILLING}` }], tools: [{ name: 'run', description: 'run', input_schema: { type: 'object' } }] });
    expect(JSON.stringify(msg)).not.toContain(BILLING);
    expect(gw.requestLogs().at(-1)!.withheld).toEqual({ STRIPE_KEY: { 'tenant:not-entitled': 2 } });
  });

  it('accepts the token in x-ficta-token and never forwards it', async () => {
    const bob = client(`${gw.url}/anthropic`, { 'x-ficta-token': 'tok-bob-0123456789abcdefgh' });
    const msg = await bob.messages.create({ model: 'claude-x', max_tokens: 50, messages: [{ role: 'user', content: `key ${BILLING}` }] });
    expect(text(msg)).toContain(`key ${BILLING}`);
    const seen = up.requests.at(-1)!;
    expect(seen.headers['x-ficta-token']).toBeUndefined();
    expect(JSON.stringify(seen.headers)).not.toContain('tok-bob');
  });

  it('refuses an unknown or missing token with a provider-shaped 401 and forwards nothing', async () => {
    const before = up.requests.length;
    for (const base of [`${gw.url}/t/tok-mallory-0123456789abcd/anthropic`, `${gw.url}/anthropic`]) {
      const err = await client(base)
        .messages.create({ model: 'claude-x', max_tokens: 5, messages: [{ role: 'user', content: PLATFORM }] })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Anthropic.AuthenticationError);
      expect((err as InstanceType<typeof Anthropic.AuthenticationError>).status).toBe(401);
    }
    expect(up.requests.length).toBe(before);
    expect(gw.requestLogs().slice(-2).map((l) => l.outcome)).toEqual(['unauthorized', 'unauthorized']);
  });

  it("leaves another tenant's placeholder unchanged when a tenant echoes it, and counts it", async () => {
    const alice = client(`${gw.url}/t/tok-alice-0123456789abcdef/anthropic`);
    await alice.messages.create({ model: 'claude-x', max_tokens: 5, messages: [{ role: 'user', content: `x ${PLATFORM}` }] });
    const alicePlaceholder = /~ficta_[a-z2-7]{20}/.exec(JSON.stringify(up.requests.at(-1)!.json))![0];
    // Bob (even one entitled to the value would not be: the placeholder is alice's) echoes it.
    const bob = client(`${gw.url}/t/tok-bob-0123456789abcdefgh/anthropic`);
    const msg = await bob.messages.create({ model: 'claude-x', max_tokens: 5, messages: [{ role: 'user', content: `say ${alicePlaceholder}` }] });
    expect(text(msg)).toContain(alicePlaceholder);
    expect(text(msg)).not.toContain(PLATFORM);
    const line = gw.requestLogs().at(-1)!;
    expect(line.tenant).toBe('bob');
    expect(line.foreignPlaceholders).toBeGreaterThanOrEqual(1);
    expect(line.restores).toEqual({});
  });

  it('restores on a second instance a placeholder it never issued (provider-side state)', async () => {
    const alice = client(`${gw.url}/t/tok-alice-0123456789abcdef/anthropic`);
    await alice.messages.create({ model: 'claude-x', max_tokens: 5, messages: [{ role: 'user', content: `remember ${PLATFORM}` }] });
    const issued = /~ficta_[a-z2-7]{20}/.exec(JSON.stringify(up.requests.at(-1)!.json))![0];
    up.setScript(() => ({
      json: { id: 'msg_s', type: 'message', role: 'assistant', model: 'claude-x', stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 }, content: [{ type: 'text', text: `stored: ${issued}` }] },
    }));
    try {
      const onSecond = client(`${gw2.url}/t/tok-alice-0123456789abcdef/anthropic`);
      const msg = await onSecond.messages.create({ model: 'claude-x', max_tokens: 5, messages: [{ role: 'user', content: 'what did I tell you?' }] });
      expect(text(msg)).toBe(`stored: ${PLATFORM}`);
      const bobOnSecond = client(`${gw2.url}/t/tok-bob-0123456789abcdefgh/anthropic`);
      expect(text(await bobOnSecond.messages.create({ model: 'claude-x', max_tokens: 5, messages: [{ role: 'user', content: 'and me?' }] }))).toBe(`stored: ${issued}`);
    } finally {
      up.setScript(echoScript());
    }
  });
});
