// The dashboard's record of requests: a bounded ring (appending never grows it), listeners told in batches
// after the appends, tallies that add up by name and host, the one-time links and sessions, the client
// names, and the allow-host action with its undo in each place it writes.

import { describe, expect, it } from 'vitest';
import { clientName } from '../../src/server/client-name.ts';
import type { RequestSummary } from '../../src/server/stats.ts';
import type { RestoreConfig } from '../../src/sinks/config.ts';
import { createDashboardAuth, LINK_TTL_MS, SESSION_IDLE_MS } from '../../src/ui/auth.ts';
import { createSecretCatalog } from '../../src/ui/catalog.ts';
import { createRequestFeed } from '../../src/ui/feed.ts';
import { createHostGrants } from '../../src/ui/host-grants.ts';
import { createTallies, MAX_WITHHELD_GROUPS } from '../../src/ui/tallies.ts';
import { ok } from '../../src/util/result.ts';

const summary = (over: Partial<RequestSummary> = {}): RequestSummary => ({ outcome: 'ok', status: 200, redactions: {}, restores: {}, restoreMisses: 0, blocked: [], ...over });

describe('request feed', () => {
  it('keeps only the last `capacity` events, in order, and numbers them', () => {
    const feed = createRequestFeed(5);
    for (let i = 1; i <= 12; i++) feed.end(summary({ id: `r${i}` }));
    expect(feed.last()).toBe(12);
    expect(feed.since(0).map((e) => e.seq)).toEqual([8, 9, 10, 11, 12]);
    expect(feed.since(10).map((e) => (e.kind === 'end' ? e.summary.id : ''))).toEqual(['r11', 'r12']);
    expect(feed.since(12)).toEqual([]);
  });

  it('tells listeners in one batch after the appends, not during them', async () => {
    const feed = createRequestFeed(100);
    const batches: number[][] = [];
    const off = feed.subscribe((events) => batches.push(events.map((e) => e.seq)));
    feed.start({ id: 'a', method: 'POST', route: '/v1/messages', provider: 'anthropic', client: 'curl', at: 1 });
    feed.end(summary({ id: 'a' }));
    expect(batches).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(batches).toEqual([[1, 2]]);
    off();
    feed.end(summary());
    await new Promise((r) => setImmediate(r));
    expect(batches).toHaveLength(1);
  });
});

describe('tallies', () => {
  it('groups withheld restores by secret and host, splits joined names, and counts detections by kind', () => {
    const feed = createRequestFeed(100);
    const tallies = createTallies(feed);
    feed.end(summary({ at: 1000, ms: 5, redactions: { 'A|B': 2, 'detected:github-classic-pat': 1 }, restores: { A: 1 }, withheld: { 'A|B': { 'network:evil.example': 2, 'mode:never': 1 } }, provider: 'anthropic' }));
    feed.end(summary({ at: 2000, ms: 5, withheld: { 'A|B': { 'network:evil.example': 1 } }, provider: 'anthropic', status: 502, outcome: 'upstream_unreachable', error: 'ECONNREFUSED' }));
    tallies.update();
    expect(tallies.withheld()).toEqual([
      { secret: 'A|B', reason: 'network:evil.example', host: 'evil.example', count: 3, first: 1005, last: 2005 },
      { secret: 'A|B', reason: 'mode:never', host: undefined, count: 1, first: 1005, last: 1005 },
    ]);
    expect(tallies.secrets().get('A')).toEqual({ lastRedacted: 1005, lastRestored: 1005, lastWithheld: 2005 });
    expect(tallies.secrets().get('B')?.lastRedacted).toBe(1005);
    expect([...tallies.detections()]).toEqual([['github-classic-pat', { count: 1, last: 1005 }]]);
    expect(tallies.providers()).toEqual([{ provider: 'anthropic', status: 502, outcome: 'upstream_unreachable', at: 2005, error: 'ECONNREFUSED' }]);
    expect(tallies.missed()).toBe(false);
  });

  it('keeps at most MAX_WITHHELD_GROUPS destinations (they come from model output), the most recent', () => {
    const feed = createRequestFeed(10_000);
    const tallies = createTallies(feed);
    for (let i = 0; i < MAX_WITHHELD_GROUPS + 50; i++) feed.end(summary({ at: i, withheld: { T: { [`network:h${i}.example`]: 1 } } }));
    const groups = tallies.update().withheld();
    expect(groups).toHaveLength(MAX_WITHHELD_GROUPS);
    expect(groups[0]?.host).toBe(`h${MAX_WITHHELD_GROUPS + 49}.example`);
    expect(groups.some((g) => g.host === 'h0.example')).toBe(false);
  });

  it('says when the ring dropped events before they were read', () => {
    const feed = createRequestFeed(4);
    const tallies = createTallies(feed);
    for (let i = 0; i < 10; i++) feed.end(summary());
    expect(tallies.update().missed()).toBe(true);
  });
});

describe('dashboard auth', () => {
  it('a login code opens one session, once, within its minute', () => {
    let now = 1_000_000;
    const auth = createDashboardAuth(() => now);
    const code = auth.issueCode();
    const first = auth.redeem(code);
    expect(first).toBeDefined();
    expect(auth.redeem(code)).toBeUndefined();
    expect(auth.session(first!.secret)).toBe(first!.session);
    expect(auth.session(`${first!.secret}x`)).toBeUndefined();
    const late = auth.issueCode();
    now += LINK_TTL_MS;
    expect(auth.redeem(late)).toBeUndefined();
    now += SESSION_IDLE_MS;
    expect(auth.session(first!.secret)).toBeUndefined();
  });

  it('checks the link key and the CSRF token of the session', () => {
    const auth = createDashboardAuth();
    expect(auth.checkLinkKey(auth.linkKey)).toBe(true);
    expect(auth.checkLinkKey(undefined)).toBe(false);
    expect(auth.checkLinkKey(auth.linkKey.slice(1))).toBe(false);
    const { session } = auth.redeem(auth.issueCode())!;
    expect(auth.checkCsrf(session, session.csrf)).toBe(true);
    expect(auth.checkCsrf(session, '')).toBe(false);
    expect(auth.checkCsrf(session, auth.linkKey)).toBe(false);
    expect(session.label).toMatch(/^[0-9a-f]{8}$/);
  });
});

describe('client names', () => {
  it('reduces a user-agent to a name from a fixed list', () => {
    expect(clientName('claude-cli/2.1.197 (external, cli)')).toBe('claude-code');
    expect(clientName('Anthropic/JS 1.12.0')).toBe('anthropic-sdk/js');
    expect(clientName('OpenAI/Python 2.1.0')).toBe('openai-sdk/python');
    expect(clientName('curl/8.5.0')).toBe('curl');
    expect(clientName('something-with-a-secret ghp_XXXXXXXX')).toBe('other');
    expect(clientName(undefined)).toBe('none');
  });
});

describe('allow a host for a secret, and undo', () => {
  function setup(vault: boolean) {
    const catalog = createSecretCatalog();
    const vaultHosts = new Map<string, string[]>([['VAULTED', ['api.example']]]);
    const [source] = catalog.wrap([{ kind: 'test', load: async () => ok([{ name: 'VAULTED', value: 'v'.repeat(12), source: 'vault', hosts: [...(vaultHosts.get('VAULTED') ?? [])] }, { name: 'ENVSECRET', value: 'e'.repeat(12), source: 'env-file:/x/.env' }]) }]);
    let restore: RestoreConfig = { toolCalls: 'guarded', allowHosts: [] };
    const runtimeHosts: Record<string, string[]> = {};
    const audit: string[] = [];
    let reloads = 0;
    const grants = createHostGrants({
      catalog,
      changeVaultHosts: vault
        ? (name, change) => {
            const next = [...new Set([...(vaultHosts.get(name) ?? []), ...(change.add ?? [])])].filter((h) => !(change.remove ?? []).includes(h));
            vaultHosts.set(name, next);
            return ok(next);
          }
        : undefined,
      runtimeHosts,
      getRestore: () => restore,
      setRestore: (c) => (restore = c),
      reload: async () => {
        reloads++;
        await source!.load();
      },
      audit: (action, g, by) => audit.push(`${action} ${g.secret} ${g.host} ${by}`),
    });
    return { grants, vaultHosts, runtimeHosts, restore: () => restore, audit, reloads: () => reloads, load: () => source!.load() };
  }

  it('writes a vault secret to its vault record, an env-file secret to the live [secrets.hosts], a detected kind to restore.allowHosts; undo takes back what it added', async () => {
    const t = setup(true);
    await t.load();
    const v = await t.grants.allow('VAULTED', 'Evil.Example', 'sess1');
    expect(v.ok && v.value.parts).toEqual([{ name: 'VAULTED', place: 'vault', added: true }]);
    expect(t.vaultHosts.get('VAULTED')).toEqual(['api.example', 'evil.example']);
    const e = await t.grants.allow('ENVSECRET|VAULTED', 'other.example', 'sess1');
    expect(e.ok && e.value.parts).toEqual([
      { name: 'ENVSECRET', place: 'secrets.hosts', added: true },
      { name: 'VAULTED', place: 'vault', added: true },
    ]);
    expect(t.runtimeHosts).toEqual({ ENVSECRET: ['other.example'] });
    const d = await t.grants.allow('detected:github-classic-pat', 'evil.example', 'sess2');
    expect(d.ok && d.value.parts[0]?.place).toBe('restore.allowHosts');
    expect(t.restore().allowHosts).toEqual(['evil.example']);
    // A host the record already had is not taken away by undo.
    const had = await t.grants.allow('VAULTED', 'api.example', 'sess1');
    expect(had.ok && had.value.parts[0]?.added).toBe(false);
    for (const g of t.grants.list()) expect((await t.grants.undo(g.id, 'sess3')).ok).toBe(true);
    expect(t.vaultHosts.get('VAULTED')).toEqual(['api.example']);
    expect(t.runtimeHosts).toEqual({ ENVSECRET: [] });
    expect(t.restore().allowHosts).toEqual([]);
    const again = await t.grants.undo(1, 'sess3');
    expect(!again.ok && again.error.code).toBe('FICTA_UI_ALREADY_UNDONE');
    expect(t.audit).toHaveLength(8);
    expect(t.audit[0]).toBe('allow_host VAULTED evil.example sess1');
    expect(t.reloads()).toBe(8);
  });

  it('without the vault a vault-sourced name goes to [secrets.hosts]; a URL or a port is refused', async () => {
    const t = setup(false);
    await t.load();
    const r = await t.grants.allow('VAULTED', 'evil.example', 's');
    expect(r.ok && r.value.parts[0]?.place).toBe('secrets.hosts');
    for (const bad of ['https://evil.example', 'evil.example:443', '', 'a b']) {
      const x = await t.grants.allow('VAULTED', bad, 's');
      expect(x.ok, bad).toBe(false);
    }
    expect(t.grants.list()).toHaveLength(1);
  });
});
