// The gateway's Prometheus metrics (the one module that imports prom-client): requests by provider,
// adapter, status, outcome and group; redactions and restores by source, detections by kind, withheld by
// reason, blocks; added-latency and upstream-time histograms; requests in flight; per source its version
// and value count in the set in use, its latest read and load failures; the token count. Labels carry names, groups, kinds and counts — never a
// value, a placeholder or a token; a tenant's name only with `metrics.tenantLabels = true`.

import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** What one finished request tells the metrics (the engine's RequestSummary, read structurally). */
export interface RequestFacts {
  outcome: string;
  status?: number | undefined;
  provider?: string | undefined;
  adapter?: string | undefined;
  tenant?: string | undefined;
  groups?: readonly string[] | undefined;
  redactionsBySource?: Readonly<Record<string, number>> | undefined;
  restoresBySource?: Readonly<Record<string, number>> | undefined;
  /** Detected credentials by kind. */
  detections?: Readonly<Record<string, number>> | undefined;
  /** Withheld restores: secret name → reason → count. */
  withheld?: Readonly<Record<string, Readonly<Record<string, number>>>> | undefined;
  blocked: readonly string[];
  /** Time ficta added (ms), and the upstream's time (ms), when the request reached the upstream. */
  addedMs?: number | undefined;
  upstreamMs?: number | undefined;
}

/** A secret source as the engine describes it (`Ficta.sources()`). */
export interface SourceFacts {
  name: string;
  type: string;
  /** The latest read: its version and values (can run ahead of the set in use while one is built). */
  version: number;
  values: number;
  /** What the secret set requests use now carries of it (absent: the latest read stands in). */
  inUse?: { version: number; values: number; retained: number } | undefined;
  /** Reads that failed since it was configured. */
  failures?: number | undefined;
  lastLoadAt?: number | undefined;
  lastResult: 'ok' | 'error';
}

export interface GatewayMetricsOptions {
  tenantLabels: boolean;
  sources: () => readonly SourceFacts[];
  inFlight: () => number;
  tokens: () => { active: number; revoked: number };
  ready: () => boolean;
  /** The secret set requests use now: its version (one more per swap) and value count; undefined before the first. */
  secretSet?: () => { version: number; values: number } | undefined;
  /** Process CPU, memory, event-loop lag (prom-client's defaults, `ficta_` prefixed). */
  processMetrics?: boolean;
}

export interface GatewayMetrics {
  observe(facts: RequestFacts): void;
  /** A token file or source reload that failed (the last good set stays in use). */
  reloadFailed(what: 'tokens' | 'config'): void;
  /** The text exposition and its content type. */
  render(): Promise<{ contentType: string; body: string }>;
}

/** Buckets in seconds: ficta's own time is sub-millisecond to tens of ms; upstream time up to minutes. */
const ADDED_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];
const UPSTREAM_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

export function createGatewayMetrics(options: GatewayMetricsOptions): GatewayMetrics {
  const registry = new Registry();
  const who = options.tenantLabels ? (['group', 'tenant'] as const) : (['group'] as const);
  const requests = new Counter({
    name: 'ficta_requests_total',
    help: 'Requests by provider, adapter, HTTP status, outcome and the tenant\'s groups (comma-joined; "" when unauthenticated).',
    labelNames: ['provider', 'adapter', 'status', 'outcome', ...who],
    registers: [registry],
  });
  const redactions = new Counter({ name: 'ficta_redactions_total', help: 'Values replaced by placeholders, by source.', labelNames: ['source'], registers: [registry] });
  const restores = new Counter({ name: 'ficta_restores_total', help: 'Placeholders restored to values, by source.', labelNames: ['source'], registers: [registry] });
  const detections = new Counter({ name: 'ficta_detections_total', help: 'Credentials nobody registered, found by detection, by kind.', labelNames: ['kind'], registers: [registry] });
  const withheld = new Counter({ name: 'ficta_withheld_total', help: 'Restores withheld, by reason (network destinations without their host).', labelNames: ['reason'], registers: [registry] });
  const blocks = new Counter({ name: 'ficta_blocks_total', help: 'Requests blocked because a protected value would have reached the provider.', labelNames: ['group'], registers: [registry] });
  const added = new Histogram({ name: 'ficta_added_latency_seconds', help: 'Time ficta added to a request (total minus upstream time).', labelNames: ['provider'], buckets: ADDED_BUCKETS, registers: [registry] });
  const upstream = new Histogram({ name: 'ficta_upstream_seconds', help: 'Upstream time of a request, from forwarding to its last byte.', labelNames: ['provider'], buckets: UPSTREAM_BUCKETS, registers: [registry] });
  const reloadFailures = new Counter({ name: 'ficta_reload_failures_total', help: 'Reloads that failed (the last good set stays in use), by what.', labelNames: ['what'], registers: [registry] });

  new Gauge({
    name: 'ficta_requests_in_flight',
    help: 'Requests being proxied now (streams included).',
    registers: [registry],
    collect() {
      this.set(options.inFlight());
    },
  });
  new Gauge({
    name: 'ficta_ready',
    help: '1 when this instance is ready (every source loaded, not draining).',
    registers: [registry],
    collect() {
      this.set(options.ready() ? 1 : 0);
    },
  });
  new Gauge({
    name: 'ficta_secret_set_version',
    help: 'Version of the secret set in use (one more each time a reload swaps a new set in; a source can be loaded before its set is).',
    registers: [registry],
    collect() {
      const set = options.secretSet?.();
      if (set !== undefined) this.set(set.version);
    },
  });
  new Gauge({
    name: 'ficta_secret_set_values',
    help: 'Values in the secret set in use (every source, retained values included).',
    registers: [registry],
    collect() {
      const set = options.secretSet?.();
      if (set !== undefined) this.set(set.values);
    },
  });
  new Gauge({
    name: 'ficta_tokens',
    help: 'Tenant tokens in the token file, by state.',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const c = options.tokens();
      this.set({ state: 'active' }, c.active);
      this.set({ state: 'revoked' }, c.revoked);
    },
  });
  const perSource = (name: string, help: string, value: (s: SourceFacts) => number | undefined): void => {
    new Gauge({
      name,
      help,
      labelNames: ['source', 'type'],
      registers: [registry],
      collect() {
        this.reset();
        for (const s of options.sources()) {
          const v = value(s);
          if (v !== undefined) this.set({ source: s.name, type: s.type }, v);
        }
      },
    });
  };
  // What requests use: these move when the set carrying a source's values is swapped in, not when it is read.
  perSource('ficta_source_version', "Version of a source's values in the secret set requests use now (grows by one per change; 0 until its values are in use).", (s) => (s.inUse ?? s).version);
  perSource('ficta_source_values', 'Values of a source in the secret set requests use now (retired values still retained not included).', (s) => (s.inUse ?? s).values);
  perSource('ficta_source_retained_values', 'Retired values of a source (removed or replaced less than `retain` ago) in the secret set requests use now.', (s) => s.inUse?.retained);
  perSource('ficta_source_read_version', "Version of a source's latest read (can be ahead of ficta_source_version while the set carrying it is built).", (s) => s.version);
  new Counter({
    name: 'ficta_source_load_failures_total',
    help: 'Reads of a source that failed (its last good values stay in use; a source never loaded is not in the set).',
    labelNames: ['source', 'type'],
    registers: [registry],
    collect() {
      this.reset();
      for (const s of options.sources()) this.inc({ source: s.name, type: s.type }, s.failures ?? 0);
    },
  });
  perSource('ficta_source_last_load_timestamp_seconds', 'When a source last loaded (or tried to).', (s) => (s.lastLoadAt === undefined ? undefined : s.lastLoadAt / 1000));
  perSource('ficta_source_last_load_ok', '1 when the last load of a source succeeded; 0 when it failed (its last good values stay in use).', (s) => (s.lastResult === 'ok' ? 1 : 0));

  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'ficta_' });

  return {
    observe(f) {
      const group = [...(f.groups ?? [])].sort().join(',');
      const labels: Record<string, string> = { provider: f.provider ?? '', adapter: f.adapter ?? '', status: f.status === undefined ? '' : String(f.status), outcome: f.outcome, group };
      if (options.tenantLabels) labels.tenant = f.tenant ?? '';
      requests.inc(labels);
      for (const [source, n] of Object.entries(f.redactionsBySource ?? {})) redactions.inc({ source }, n);
      for (const [source, n] of Object.entries(f.restoresBySource ?? {})) restores.inc({ source }, n);
      for (const [kind, n] of Object.entries(f.detections ?? {})) detections.inc({ kind }, n);
      for (const byReason of Object.values(f.withheld ?? {})) {
        for (const [reason, n] of Object.entries(byReason)) withheld.inc({ reason: reasonLabel(reason) }, n);
      }
      if (f.blocked.length > 0) blocks.inc({ group });
      const provider = f.provider ?? '';
      if (f.addedMs !== undefined) added.observe({ provider }, f.addedMs / 1000);
      if (f.upstreamMs !== undefined) upstream.observe({ provider }, f.upstreamMs / 1000);
    },
    reloadFailed(what) {
      reloadFailures.inc({ what });
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

/** `network:evil.example` → `network` (a host per label would grow without bound); other reasons as they are. */
function reasonLabel(reason: string): string {
  return reason.startsWith('network:') ? 'network' : reason;
}
