// What each dashboard page shows, as plain data (the pages render it; the /_ficta/api/ routes return it as
// JSON): names, sources, hosts, kinds, counts and times. Nothing here reads a value, a placeholder or a token.

import { KINDS } from '../detect/kinds.ts';
import { DETECTED_PREFIX } from '../redact/secret-set.ts';
import type { RequestStart, RequestSummary, RunReport } from '../server/stats.ts';
import type { RestoreConfig } from '../sinks/config.ts';
import type { SecretRegistry } from '../secrets/registry.ts';
import { VERSION } from '../version.ts';
import type { SecretCatalog } from './catalog.ts';
import type { FeedEvent } from './feed.ts';
import type { HostGrant, HostGrants } from './host-grants.ts';
import { hostOfReason, type Tallies } from './tallies.ts';

/** One row of the Live page. */
export interface LiveRow {
  id: string;
  state: 'in-flight' | 'done';
  at: number;
  method: string;
  route: string;
  provider: string;
  client: string;
  status?: number | undefined;
  outcome?: string;
  ms?: number | undefined;
  beforeUpstreamMs?: number | undefined;
  upstreamHeadersMs?: number | undefined;
  redactions: Array<[name: string, count: number]>;
  detections: Array<[kind: string, count: number]>;
  restores: number;
  restoreMisses: number;
  withheld: Array<{ secret: string; reason: string; host: string | undefined; count: number }>;
  blocked: string[];
  error?: string;
}

/** A feed event as the Live page's row (a start is a row in flight; its end replaces it). */
export function liveRow(e: FeedEvent): LiveRow {
  if (e.kind === 'start') return startRow(e.request);
  return endRow(e.summary, e.seq);
}

function startRow(r: RequestStart): LiveRow {
  return { id: r.id, state: 'in-flight', at: r.at, method: r.method, route: r.route, provider: r.provider, client: r.client, redactions: [], detections: [], restores: 0, restoreMisses: 0, withheld: [], blocked: [] };
}

function endRow(s: RequestSummary, seq: number): LiveRow {
  const redactions: Array<[string, number]> = [];
  const detections: Array<[string, number]> = [];
  for (const [name, n] of Object.entries(s.redactions)) {
    if (name.startsWith(DETECTED_PREFIX)) detections.push([name.slice(DETECTED_PREFIX.length), n]);
    else redactions.push([name, n]);
  }
  const withheld: LiveRow['withheld'] = [];
  for (const [secret, byReason] of Object.entries(s.withheld ?? {})) {
    for (const [reason, count] of Object.entries(byReason)) withheld.push({ secret, reason, host: hostOfReason(reason), count });
  }
  return {
    id: s.id ?? `#${seq}`,
    state: 'done',
    at: s.at ?? Date.now(),
    method: s.method ?? '',
    route: s.route ?? '',
    provider: s.provider ?? '',
    client: s.client ?? '',
    status: s.status,
    outcome: s.outcome,
    ms: s.ms,
    beforeUpstreamMs: s.beforeUpstreamMs,
    upstreamHeadersMs: s.upstreamHeadersMs,
    redactions,
    detections,
    restores: Object.values(s.restores).reduce((a, b) => a + b, 0),
    restoreMisses: s.restoreMisses,
    withheld,
    blocked: s.blocked,
    ...(s.error === undefined ? {} : { error: s.error }),
  };
}

/** What the views read, from the proxy that serves them. */
export interface ViewSources {
  tallies: Tallies;
  catalog: SecretCatalog;
  grants: HostGrants;
  registry: SecretRegistry;
  report(): RunReport;
  getRestore(): RestoreConfig;
  detect: { mode: string; allow: readonly string[] };
  /** Upstream name → origin (never a path or credentials). */
  upstreams: ReadonlyArray<{ name: string; origin: string }>;
  run(): RunInfo;
  startedAt: number;
}

/** The command this proxy serves. */
export interface RunInfo {
  /** serve, run, claude, codex, … */
  mode: string;
  /** The wrapped command's name (never its arguments), for run and the agent commands. */
  command?: string;
  pid: number;
  /** Where the report is written on exit, when configured. */
  reportFile?: string;
}

export interface SecretsView {
  secrets: Array<{ name: string; source: string; hosts: readonly string[]; lastRedacted?: number; lastRestored?: number; lastWithheld?: number; redactions: number; restores: number }>;
  detections: Array<{ kind: string; count: number; last: number }>;
  allowHosts: readonly string[];
  detectMode: string;
  detectAllowKinds: string[];
  /** Exact values in `detect.allow`: counted, never shown. */
  detectAllowValues: number;
}

const KIND_NAMES = new Set(KINDS.map((k) => k.name));

export function secretsView(v: ViewSources): SecretsView {
  const seen = v.tallies.update().secrets();
  const report = v.report();
  const countOf = (by: Record<string, number>, name: string): number => Object.entries(by).reduce((n, [k, c]) => n + (k.split('|').includes(name) ? c : 0), 0);
  return {
    secrets: v.catalog.entries().map((e) => ({ name: e.name, source: e.source, hosts: e.hosts, ...seen.get(e.name), redactions: countOf(report.redactions, e.name), restores: countOf(report.restores, e.name) })),
    detections: [...v.tallies.detections()].map(([kind, d]) => ({ kind, count: d.count, last: d.last })).sort((a, b) => b.last - a.last),
    allowHosts: v.getRestore().allowHosts,
    detectMode: v.detect.mode,
    detectAllowKinds: v.detect.allow.filter((a) => KIND_NAMES.has(a)),
    detectAllowValues: v.detect.allow.filter((a) => !KIND_NAMES.has(a)).length,
  };
}

export interface WithheldView {
  groups: Array<{ secret: string; reason: string; host: string | undefined; count: number; first: number; last: number; place: string; grant?: number }>;
  /** Run totals by secret (complete even when the ring has dropped older requests). */
  totals: Record<string, Record<string, number>>;
  grants: HostGrant[];
  toolCalls: string;
}

/** Where "allow" would write for a secret (what the button says). */
export function placeFor(v: ViewSources, secret: string, vault: boolean): string {
  if (secret.startsWith(DETECTED_PREFIX)) return 'restore.allowHosts (every secret, until restart)';
  const names = secret.split('|');
  return names.every((n) => vault && v.catalog.sourceOf(n) === 'vault') ? 'the vault record (kept)' : '[secrets.hosts] of this proxy (until restart)';
}

export function withheldView(v: ViewSources, vault: boolean): WithheldView {
  const grants = v.grants.list();
  const live = (secret: string, host: string | undefined): number | undefined => grants.find((g) => g.secret === secret && g.host === host && g.undone === undefined)?.id;
  return {
    groups: v.tallies.update().withheld().map((g) => {
      const grant = live(g.secret, g.host);
      return { ...g, place: placeFor(v, g.secret, vault), ...(grant === undefined ? {} : { grant }) };
    }),
    totals: v.report().withheldBySecret ?? {},
    grants,
    toolCalls: v.getRestore().toolCalls,
  };
}

export interface HealthView {
  version: string;
  pid: number;
  uptimeMs: number;
  upstreams: Array<{ name: string; origin: string; lastStatus?: number | undefined; lastOutcome?: string; lastAt?: number; error?: string }>;
  secrets: { state: 'ready' | 'unavailable'; version: number; size: number; error?: string };
  detectMode: string;
  restore: { toolCalls: string; allowHosts: readonly string[] };
  requests: number;
  upstreamErrors: number;
  gateway: undefined;
}

export function healthView(v: ViewSources): HealthView {
  const providers = new Map(v.tallies.update().providers().map((p) => [p.provider, p]));
  const snap = v.registry.current();
  const report = v.report();
  const restore = v.getRestore();
  return {
    version: VERSION,
    pid: process.pid,
    uptimeMs: Date.now() - v.startedAt,
    upstreams: v.upstreams.map((u) => {
      const p = providers.get(u.name);
      return { ...u, ...(p === undefined ? {} : { lastStatus: p.status, lastOutcome: p.outcome, lastAt: p.at, ...(p.error === undefined ? {} : { error: p.error }) }) };
    }),
    // The unavailable state's message names the source and what to do, never a value.
    secrets: snap.kind === 'ready' ? { state: 'ready', version: snap.version, size: snap.set.size } : { state: 'unavailable', version: snap.version, size: 0, error: snap.error.code },
    detectMode: v.detect.mode,
    restore: { toolCalls: restore.toolCalls, allowHosts: restore.allowHosts },
    requests: report.requests,
    upstreamErrors: report.upstreamErrors,
    gateway: undefined,
  };
}

export interface RunView {
  run: RunInfo;
  startedAt: number;
  report: RunReport;
}

export function runView(v: ViewSources): RunView {
  return { run: v.run(), startedAt: v.startedAt, report: v.report() };
}
