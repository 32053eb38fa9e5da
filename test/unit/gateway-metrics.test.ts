// The gateway's metrics and admin listener: Prometheus names prefixed ficta_, groups always as labels,
// tenants only when asked, no token / value / placeholder in any label; /healthz, /readyz, /metrics and
// nothing else on the admin listener.

import { afterEach, describe, expect, it } from 'vitest';
import { startAdmin, type AdminServer } from '../../src/gateway/admin.ts';
import { createGatewayMetrics, type RequestFacts, type SourceFacts } from '../../src/gateway/metrics.ts';

const SOURCES: SourceFacts[] = [
  // platform: read at version 3 (12 values) while the set in use still carries version 2 (10 values, 1 retired).
  { name: 'platform', type: 'dir', version: 3, values: 12, inUse: { version: 2, values: 10, retained: 1 }, failures: 0, lastLoadAt: 1_700_000_000_000, lastResult: 'ok' },
  { name: 'vault', type: 'command', version: 1, values: 4, inUse: { version: 1, values: 4, retained: 0 }, failures: 2, lastLoadAt: 1_700_000_001_000, lastResult: 'error' },
];
const facts = (over: Partial<RequestFacts> = {}): RequestFacts => ({ outcome: 'ok', status: 200, provider: 'anthropic', adapter: 'anthropic-messages', tenant: 'alice', groups: ['sre', 'platform'], blocked: [], ...over });

function metrics(tenantLabels: boolean, ready = true) {
  return createGatewayMetrics({ tenantLabels, sources: () => SOURCES, inFlight: () => 5, tokens: () => ({ active: 12, revoked: 1 }), ready: () => ready, secretSet: () => ({ version: 7, values: 16 }), processMetrics: false });
}

describe('gateway metrics', () => {
  it('counts requests by provider, adapter, status, outcome and groups, and the rest by source, kind and reason', async () => {
    const m = metrics(false);
    m.observe(facts({ redactionsBySource: { platform: 2 }, restoresBySource: { platform: 1 }, addedMs: 1.5, upstreamMs: 120 }));
    m.observe(facts());
    m.observe(facts({ outcome: 'blocked', status: 403, blocked: ['DB_PASSWORD'], withheld: { GH: { 'network:evil.example': 2, 'tenant:not-entitled': 1 } }, detections: { 'github-pat': 1 } }));
    m.observe({ outcome: 'unauthorized', status: 401, blocked: [] });
    const { body, contentType } = await m.render();
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(body).toContain('ficta_requests_total{provider="anthropic",adapter="anthropic-messages",status="200",outcome="ok",group="platform,sre"} 2');
    expect(body).toContain('ficta_requests_total{provider="anthropic",adapter="anthropic-messages",status="403",outcome="blocked",group="platform,sre"} 1');
    expect(body).toContain('ficta_requests_total{provider="",adapter="",status="401",outcome="unauthorized",group=""} 1');
    expect(body).toContain('ficta_redactions_total{source="platform"} 2');
    expect(body).toContain('ficta_restores_total{source="platform"} 1');
    expect(body).toContain('ficta_detections_total{kind="github-pat"} 1');
    expect(body).toContain('ficta_withheld_total{reason="network"} 2');
    expect(body).toContain('ficta_withheld_total{reason="tenant:not-entitled"} 1');
    expect(body).toContain('ficta_blocks_total{group="platform,sre"} 1');
    expect(body).toContain('ficta_added_latency_seconds_count{provider="anthropic"} 1');
    expect(body).toContain('ficta_upstream_seconds_bucket{le="0.25",provider="anthropic"} 1');
    expect(body).toContain('ficta_requests_in_flight 5');
    expect(body).toContain('ficta_tokens{state="active"} 12');
    expect(body).toContain('ficta_source_version{source="platform",type="dir"} 2');
    expect(body).toContain('ficta_source_values{source="platform",type="dir"} 10');
    expect(body).toContain('ficta_source_retained_values{source="platform",type="dir"} 1');
    expect(body).toContain('ficta_source_read_version{source="platform",type="dir"} 3');
    expect(body).toContain('ficta_source_values{source="vault",type="command"} 4');
    expect(body).toContain('ficta_source_load_failures_total{source="vault",type="command"} 2');
    expect(body).toContain('ficta_source_load_failures_total{source="platform",type="dir"} 0');
    expect(body).toContain('ficta_source_last_load_ok{source="vault",type="command"} 0');
    expect(body).toContain('ficta_source_last_load_timestamp_seconds{source="platform",type="dir"} 1700000000');
    expect(body).toContain('ficta_ready 1');
    expect(body).toContain('ficta_secret_set_version 7');
    expect(body).toContain('ficta_secret_set_values 16');
    // Tenants are not labels unless asked for; every metric is ficta_-prefixed.
    expect(body).not.toContain('alice');
    for (const line of body.split('\n')) if (line !== '' && !line.startsWith('#')) expect(line).toMatch(/^ficta_/);
  });

  it('adds the tenant label only with metrics.tenantLabels', async () => {
    const m = metrics(true, false);
    m.observe(facts());
    const { body } = await m.render();
    expect(body).toContain('ficta_requests_total{provider="anthropic",adapter="anthropic-messages",status="200",outcome="ok",group="platform,sre",tenant="alice"} 1');
    expect(body).toContain('ficta_ready 0');
  });
});

describe('admin listener', () => {
  let admin: AdminServer | undefined;
  afterEach(async () => admin?.close());

  it('serves /healthz, /readyz (503 with a reason when not ready) and /metrics, and nothing else', async () => {
    let ready = false;
    const m = metrics(false);
    let pending: string[] = [];
    admin = await startAdmin({ host: '127.0.0.1', port: 0, ready: () => (ready ? { ready: true, pending } : { ready: false, reason: 'draining' }), metrics: () => m.render() });
    expect((await fetch(`${admin.url}/healthz`)).status).toBe(200);
    const notReady = await fetch(`${admin.url}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toEqual({ status: 'not_ready', reason: 'draining' });
    ready = true;
    expect((await fetch(`${admin.url}/readyz`)).status).toBe(200);
    // A ready instance names a source added later that has not loaded yet (names only).
    pending = ['billing'];
    const stillReady = await fetch(`${admin.url}/readyz`);
    expect(stillReady.status).toBe(200);
    expect(await stillReady.json()).toEqual({ status: 'ready', pendingSources: ['billing'] });
    const scrape = await fetch(`${admin.url}/metrics`);
    expect(scrape.status).toBe(200);
    expect(await scrape.text()).toContain('ficta_tokens{state="active"} 12');
    for (const path of ['/', '/anthropic/v1/messages', '/v1/messages', '/metricsx']) expect((await fetch(`${admin.url}${path}`)).status).toBe(404);
    expect((await fetch(`${admin.url}/metrics`, { method: 'POST', body: '{}' })).status).toBe(405);
  });
});
