// A gateway tenant's view of the shared set: its own placeholders, restore only of its groups' sources and
// of the detected values its own requests carried; every other placeholder left unchanged and counted.

import { describe, expect, it } from 'vitest';
import { sampleOf } from '../../fixtures/detect/tokens.ts';
import { createDetector } from '../../src/detect/detector.ts';
import { kindByName } from '../../src/detect/kinds.ts';
import { createDetectedStore } from '../../src/detect/store.ts';
import { tenantSet } from '../../src/gateway/tenant-set.ts';
import { createGatewayKeys } from '../../src/gateway/tenant-placeholder.ts';
import type { Tenant } from '../../src/gateway/tenant.ts';
import { anthropicMessages } from '../../src/providers/anthropic-messages.ts';
import { redactBody } from '../../src/redact/body.ts';
import { gateRequest } from '../../src/redact/gate.ts';
import { buildSecretSet, type SecretInput, type SecretSet } from '../../src/redact/secret-set.ts';
import { createBodyRestorer } from '../../src/restore/body-restorer.ts';
import { createRestoreStats, type RestoreStats } from '../../src/restore/restore-bytes.ts';
import { createSseRestorer } from '../../src/restore/sse-restorer.ts';
import { mulberry32 } from '../../src/util/prng.ts';
import { runThrough, splits } from '../helpers/chunking.ts';
import { collect } from '../helpers/sse-client.ts';

const KEY = Buffer.alloc(32, 3);
const PLATFORM = 'platform-db-password-1';
const BILLING = 'billing-stripe-key-222';
const EVERYONE = 'org-wide-sentry-dsn-33';
const ENTRIES: SecretInput[] = [
  { name: 'DB_PASSWORD', value: PLATFORM, source: 'platform', groups: ['platform', 'sre'] },
  { name: 'STRIPE_KEY', value: BILLING, source: 'billing', groups: ['billing'] },
  { name: 'SENTRY_DSN', value: EVERYONE, source: 'shared', groups: ['*'] },
];
const alice: Tenant = { name: 'alice', groups: ['platform'] };
const bob: Tenant = { name: 'bob', groups: ['billing'] };
const carol: Tenant = { name: 'carol', groups: ['platform'] };

function gatewaySet(entries: SecretInput[] = ENTRIES, detect = false): SecretSet {
  const keys = createGatewayKeys(KEY);
  const detection = detect ? { detector: createDetector(), store: createDetectedStore({ fingerprint: (v) => keys.fingerprint(v) }), mode: 'redact' as const } : undefined;
  return buildSecretSet(entries, KEY, detection, keys);
}

/** What a tenant's request turns `text` into on the way out. */
function redactFor(set: SecretSet, text: string): string {
  return redactBody(set, Buffer.from(JSON.stringify({ content: text })), 'json', new Map()).bytes.toString('utf8');
}

function placeholdersIn(json: string): string[] {
  return [...json.matchAll(/~ficta_[a-z2-7]{20}/g)].map((m) => m[0]);
}

function restoreJson(set: SecretSet, body: string, stats: RestoreStats = createRestoreStats()): string {
  const r = createBodyRestorer(set, 'json', stats);
  return Buffer.concat([...r.push(Buffer.from(body)), ...r.end()]).toString('utf8');
}

describe('gateway tenant views', () => {
  it('give each tenant its own placeholders of the same value, and redact every source for every tenant', () => {
    const set = gatewaySet();
    const text = `${PLATFORM} ${BILLING} ${EVERYONE}`;
    const a = placeholdersIn(redactFor(tenantSet(set, alice), text));
    const b = placeholdersIn(redactFor(tenantSet(set, bob), text));
    expect(a).toHaveLength(3);
    expect(b).toHaveLength(3);
    for (let i = 0; i < 3; i++) expect(a[i]).not.toBe(b[i]);
    expect(placeholdersIn(redactFor(tenantSet(set, alice), text))).toEqual(a);
    for (const out of [redactFor(tenantSet(set, alice), text), redactFor(tenantSet(set, bob), text)]) {
      for (const v of [PLATFORM, BILLING, EVERYONE]) expect(out).not.toContain(v);
      expect(gateRequest(tenantSet(set, bob), { target: '/v1/messages', headers: [], body: Buffer.from(out), bodyKind: 'json' })).toEqual([]);
    }
  });

  it("restores only what the tenant's groups are entitled to; the rest stays and is counted tenant:not-entitled", () => {
    const set = gatewaySet();
    const view = tenantSet(set, alice);
    const [pPlatform, pBilling, pEveryone] = placeholdersIn(redactFor(view, `${PLATFORM} ${BILLING} ${EVERYONE}`)) as [string, string, string];
    const stats = createRestoreStats();
    const out = JSON.parse(restoreJson(tenantSet(set, alice), JSON.stringify({ t: `${pPlatform} ${pBilling} ${pEveryone}` }), stats)).t;
    expect(out).toBe(`${PLATFORM} ${pBilling} ${EVERYONE}`);
    expect([...stats.denied.entries()].map(([i, n]) => [set.nameFor(i), n])).toEqual([['STRIPE_KEY', 1]]);
    expect(stats.misses).toBe(0);
  });

  it("leaves another tenant's placeholder unchanged (same groups or not), counted as foreign", () => {
    const set = gatewaySet();
    const [pCarol] = placeholdersIn(redactFor(tenantSet(set, carol), PLATFORM)) as [string];
    const [pBob] = placeholdersIn(redactFor(tenantSet(set, bob), BILLING)) as [string];
    for (const who of [alice, bob]) {
      const stats = createRestoreStats();
      const body = JSON.stringify({ t: `${pCarol} and ${pBob.toUpperCase()}` });
      const out = JSON.parse(restoreJson(tenantSet(set, who), body, stats)).t;
      if (who === bob) expect(out).toBe(`${pCarol} and ${BILLING}`);
      else expect(out).toBe(`${pCarol} and ${pBob.toUpperCase()}`);
      expect(stats.foreign).toBe(who === bob ? 1 : 2);
      expect(stats.denied.size).toBe(0);
    }
  });

  it('restores in streams split anywhere, and a set rebuilt on another instance restores what it never issued', () => {
    const first = gatewaySet();
    const [p] = placeholdersIn(redactFor(tenantSet(first, alice), PLATFORM)) as [string];
    const other = gatewaySet([...ENTRIES].reverse()); // another instance: same sources, other order
    const sse = `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a ${p.slice(0, 11)}"}}\n\nevent: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${p.slice(11)} b"}}\n\n`;
    for (const split of splits(4)) {
      const stats = createRestoreStats();
      const out = runThrough(() => createSseRestorer(tenantSet(other, alice), anthropicMessages, stats, { maxEventBytes: 1 << 20 }), Buffer.from(sse), split).toString('utf8');
      expect(collect(out).streams.get('a0:text') ?? [...collect(out).streams.values()][0]).toBe(`a ${PLATFORM} b`);
      const statsBob = createRestoreStats();
      const outBob = runThrough(() => createSseRestorer(tenantSet(other, bob), anthropicMessages, statsBob, { maxEventBytes: 1 << 20 }), Buffer.from(sse), split).toString('utf8');
      expect(outBob).not.toContain(PLATFORM);
      expect(outBob).toContain(p.slice(11));
    }
  });

  it('keeps detected credentials per tenant: restored only to the tenant whose request carried them', () => {
    const set = gatewaySet(ENTRIES, true);
    const token = sampleOf(kindByName('github-classic-pat')!, mulberry32(4)).secret;
    const outA = redactFor(tenantSet(set, alice), `token ${token}`);
    expect(outA).not.toContain(token);
    const [pA] = placeholdersIn(outA) as [string];
    expect(JSON.parse(restoreJson(tenantSet(set, alice), JSON.stringify({ t: pA }))).t).toBe(token);
    const stats = createRestoreStats();
    // Bob never sent it: alice's placeholder is foreign to him, and his own placeholder of it is withheld.
    expect(JSON.parse(restoreJson(tenantSet(set, bob), JSON.stringify({ t: pA }), stats)).t).toBe(pA);
    expect(stats.foreign).toBe(1);
    const keys = createGatewayKeys(KEY);
    const pB = keys.tenant('bob').placeholder(keys.fingerprint(token));
    const statsB = createRestoreStats();
    expect(JSON.parse(restoreJson(tenantSet(set, bob), JSON.stringify({ t: pB }), statsB)).t).toBe(pB);
    expect([...statsB.denied.keys()].map((i) => set.nameFor(i))).toEqual(['detected:github-classic-pat']);
    // Once bob's own request carries it, it is his too.
    expect(placeholdersIn(redactFor(tenantSet(set, bob), token))).toEqual([pB]);
    expect(JSON.parse(restoreJson(tenantSet(set, bob), JSON.stringify({ t: pB }))).t).toBe(token);
  });

  it('bounds detected values per tenant: a tenant flooding the store forgets its own oldest, not others', () => {
    const keys = createGatewayKeys(KEY);
    const store = createDetectedStore({ fingerprint: (v) => keys.fingerprint(v), maxPerTenant: 8, maxEntries: 64 });
    const set = buildSecretSet(ENTRIES, KEY, { detector: createDetector(), store, mode: 'redact' }, keys);
    const kind = kindByName('github-classic-pat')!;
    const aliceToken = sampleOf(kind, mulberry32(100)).secret;
    redactFor(tenantSet(set, alice), aliceToken);
    for (let i = 0; i < 40; i++) redactFor(tenantSet(set, bob), sampleOf(kind, mulberry32(200 + i)).secret);
    expect(store.stats().entries).toBeLessThanOrEqual(64);
    const pA = keys.tenant('alice').placeholder(keys.fingerprint(aliceToken));
    expect(JSON.parse(restoreJson(tenantSet(set, alice), JSON.stringify({ t: pA }))).t).toBe(aliceToken);
    const firstBob = sampleOf(kind, mulberry32(200)).secret;
    const pB = keys.tenant('bob').placeholder(keys.fingerprint(firstBob));
    expect(JSON.parse(restoreJson(tenantSet(set, bob), JSON.stringify({ t: pB }))).t).toBe(pB);
  });

  it('computes placeholders only for the values a request meets (memory flat in tenants × secrets)', () => {
    const keys = createGatewayKeys(KEY);
    let made = 0;
    const counting = {
      fingerprint: (v: string) => keys.fingerprint(v),
      fingerprintKey: keys.fingerprintKey,
      tenant: (name: string) => {
        const k = keys.tenant(name);
        return { placeholder: (fp: string) => (made++, k.placeholder(fp)), open: (id: string) => k.open(id) };
      },
    };
    const entries = Array.from({ length: 2000 }, (_, i): SecretInput => ({ name: `S${i}`, value: `secret-value-${i}-xyzw`, source: 's', groups: ['g'] }));
    const set = buildSecretSet(entries, KEY, undefined, counting);
    for (let t = 0; t < 500; t++) redactFor(tenantSet(set, { name: `t${t}`, groups: ['g'] }), `a secret-value-${t}-xyzw b`);
    expect(made).toBe(500);
    expect(set.placeholders).toEqual([]);
  });

  it('a gateway set used without a tenant view masks values and restores nothing', () => {
    const set = gatewaySet();
    const out = redactFor(set, PLATFORM);
    expect(out).not.toContain(PLATFORM);
    expect(out).not.toContain('~ficta_');
    const [p] = placeholdersIn(redactFor(tenantSet(set, alice), PLATFORM)) as [string];
    expect(restoreJson(set, JSON.stringify({ t: p }))).toContain(p);
  });

  it('refuses a set built without the gateway key', () => {
    const plain = buildSecretSet(ENTRIES, KEY);
    expect(() => tenantSet(plain, alice)).toThrow(/gateway key/);
  });
});

describe('gateway tenant views under attack', () => {
  it('stop opening made-up ids after MAX_FOREIGN_OPENS in one request, and still never restore them', async () => {
    const { MAX_FOREIGN_OPENS } = await import('../../src/gateway/tenant-set.ts');
    const keys = createGatewayKeys(KEY);
    let opens = 0;
    const counting = {
      fingerprint: (v: string) => keys.fingerprint(v),
      fingerprintKey: keys.fingerprintKey,
      tenant: (name: string) => {
        const k = keys.tenant(name);
        return { placeholder: (fp: string) => k.placeholder(fp), open: (id: string) => (opens++, k.open(id)) };
      },
    };
    const set = buildSecretSet(ENTRIES, KEY, undefined, counting);
    const view = tenantSet(set, alice);
    const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
    const prng = mulberry32(9);
    const fake = Array.from({ length: MAX_FOREIGN_OPENS + 500 }, () => `~ficta_${Array.from({ length: 20 }, () => alphabet[Math.floor(prng() * 32)]).join('')}`);
    const stats = createRestoreStats();
    const out = restoreJson(view, JSON.stringify({ t: fake.join(' ') }), stats);
    expect(JSON.parse(out).t).toBe(fake.join(' '));
    expect(opens).toBe(MAX_FOREIGN_OPENS);
    expect(stats.foreign).toBe(fake.length);
  });
});

describe('gateway request summaries', () => {
  it('carry tenant, groups, counts by source, withheld tenant:not-entitled and foreign placeholders, never a placeholder', async () => {
    const { writeRequestLog } = await import('../../src/server/request-log.ts');
    const { createRunStats } = await import('../../src/server/stats.ts');
    const { createWithheldCounts } = await import('../../src/sinks/withheld.ts');
    const { createLogger } = await import('../../src/log/logger.ts');
    const { Writable } = await import('node:stream');
    const set = gatewaySet();
    const view = tenantSet(set, alice);
    const redactions = new Map<number, number>();
    const out = redactBody(view, Buffer.from(JSON.stringify({ c: `${PLATFORM} ${BILLING} ${EVERYONE} ${PLATFORM}` })), 'json', redactions).bytes.toString();
    const [pPlatform, pBilling] = placeholdersIn(out) as [string, string];
    const [pBob] = placeholdersIn(redactFor(tenantSet(set, bob), BILLING)) as [string];
    const restore = createRestoreStats();
    restoreJson(view, JSON.stringify({ t: `${pPlatform} ${pBilling} ${pBob}` }), restore);
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', destination: new Writable({ write: (c: Buffer, _e, cb) => (lines.push(c.toString()), cb()) }) });
    const summaries: unknown[] = [];
    const stats = createRunStats((s) => summaries.push(s));
    writeRequestLog(
      { logger, stats },
      { id: 'x', method: 'POST', route: '/v1/messages', site: 'response', provider: 'anthropic', adapter: 'anthropic-messages', status: 200, bytesIn: 1, bytesUp: 1, bytesOut: 1, redactions, restore, started: performance.now() - 5, upstreamMs: 2, outcome: 'ok', blocked: [], withheld: createWithheldCounts(), tenant: 'alice', groups: ['platform'] },
      view,
    );
    logger.flush();
    await new Promise((r) => setTimeout(r, 20));
    expect(summaries[0]).toMatchObject({
      tenant: 'alice',
      groups: ['platform'],
      provider: 'anthropic',
      adapter: 'anthropic-messages',
      upstreamMs: 2,
      foreignPlaceholders: 1,
      redactionsBySource: { platform: 2, billing: 1, shared: 1 },
      restoresBySource: { platform: 1 },
      withheld: { STRIPE_KEY: { 'tenant:not-entitled': 1 } },
    });
    const line = JSON.parse(lines.join('').trim().split('\n').at(-1)!);
    expect(line).toMatchObject({ tenant: 'alice', groups: ['platform'], foreignPlaceholders: 1, withheld: { STRIPE_KEY: { 'tenant:not-entitled': 1 } } });
    expect(lines.join('')).not.toMatch(/~ficta_[a-z2-7]{20}/);
  });
});
