// The request log line and run totals: one `request` event per request (proxied, blocked, refused for
// a missing token, an unknown route or a dot segment, a refused WebSocket upgrade or CONNECT tunnel), at
// warn level when it is a problem (blocked, egress refused, upstream failure, vault unavailable) so it
// reaches a warnings-only log. Names and counts only, never a value.

import { logEvent, logRecord, type Logger } from '../log/logger.ts';
import { PROBLEM_OUTCOMES, type Outcome } from '../log/outcomes.ts';
import type { CountMap } from '../redact/replace.ts';
import type { SecretSet } from '../redact/secret-set.ts';
import { inspect } from '../redact/inspect.ts';
import { maskValues } from '../redact/url.ts';
import type { RestoreStats } from '../restore/restore-bytes.ts';
import { countWithheld, namedWithheld, NOT_ENTITLED, type WithheldCounts } from '../sinks/withheld.ts';
import type { RequestSummary, RunStats } from './stats.ts';

/** One finding of the gate, by secret name and surface. */
export interface BlockedFinding {
  secret: string;
  surface: string;
}

/** What the proxy records about one request while it runs. */
export interface RequestLog {
  id: string;
  method: string;
  /** The request's path with every registered value replaced (until it is redacted: only its first segment). */
  route: string;
  /** The stage the request is in, logged with an internal error. */
  site: string;
  provider: string;
  adapter: string;
  status?: number;
  bytesIn: number;
  bytesUp: number;
  bytesOut: number;
  redactions: CountMap;
  restore: RestoreStats;
  started: number;
  upstreamHeadersMs?: number;
  /** Time from sending upstream to the upstream body's end (or failure). */
  upstreamMs?: number;
  outcome: Outcome;
  blocked: BlockedFinding[];
  /** Restores withheld from tool calls (sink-aware restore): secret → reason → count. */
  withheld: WithheldCounts;
  /** The upstream origin and the transport's error code, when the upstream failed. */
  upstream?: string;
  error?: string;
  /** The gateway tenant (its token's name, never the token) and its groups. */
  tenant?: string;
  groups?: readonly string[];
}

export interface RequestLogDeps {
  logger: Logger;
  stats?: RunStats;
}

/** Writes the request line and adds the request to the run totals. */
export function writeRequestLog(deps: RequestLogDeps, log: RequestLog, set: SecretSet | undefined): void {
  const redactions = namedCounts(set, log.redactions);
  const restores = namedCounts(set, log.restore.restores);
  const ms = performance.now() - log.started;
  if (set !== undefined) addDenied(log.withheld, log.restore.denied);
  const withheld = log.withheld.size === 0 ? undefined : namedWithheld(set, log.withheld);
  // One object per line, fields in a fixed order, optional ones added only when present (no spreads).
  const line: { event: 'request' } & Record<string, unknown> = {
    event: 'request',
    id: log.id,
    method: log.method,
    route: log.route,
    provider: log.provider,
    adapter: log.adapter,
    status: log.status,
    outcome: log.outcome,
    bytesIn: log.bytesIn,
    bytesUp: log.bytesUp,
    bytesOut: log.bytesOut,
    ms: round(ms),
    upstreamHeadersMs: log.upstreamHeadersMs === undefined ? undefined : round(log.upstreamHeadersMs),
    redactions,
    restores,
    restoreMisses: log.restore.misses,
  };
  if (log.blocked.length > 0) line.blocked = log.blocked;
  if (withheld !== undefined) line.withheld = withheld;
  if (log.upstream !== undefined) line.upstream = log.upstream;
  if (log.error !== undefined) line.error = log.error;
  if (log.tenant !== undefined) {
    line.tenant = log.tenant;
    line.groups = log.groups ?? [];
    if (log.restore.foreign > 0) line.foreignPlaceholders = log.restore.foreign;
  }
  logRecord(deps.logger, PROBLEM_OUTCOMES.has(log.outcome) ? 'warn' : 'info', line);
  if (deps.stats === undefined) return;
  const summary: RequestSummary = {
    outcome: log.outcome,
    status: log.status,
    redactions,
    restores,
    restoreMisses: log.restore.misses,
    blocked: log.blocked.length === 0 ? [] : [...new Set(log.blocked.map((f) => f.secret))],
  };
  if (withheld !== undefined) summary.withheld = withheld;
  if (log.upstream !== undefined) summary.upstream = log.upstream;
  if (log.error !== undefined) summary.error = log.error;
  summary.provider = log.provider;
  summary.adapter = log.adapter;
  summary.ms = ms;
  if (log.upstreamMs !== undefined) summary.upstreamMs = log.upstreamMs;
  if (log.tenant !== undefined) {
    summary.tenant = log.tenant;
    summary.groups = log.groups ?? [];
    summary.foreignPlaceholders = log.restore.foreign;
  }
  if (set?.sourcesOf !== undefined) {
    summary.redactionsBySource = bySource(set, log.redactions);
    summary.restoresBySource = bySource(set, log.restore.restores);
  }
  deps.stats.record(summary);
}

/** A request answered before any proxying, as logged. */
export interface RefusedRequest {
  id: string;
  method: string;
  route: string;
  status: number;
  outcome: Outcome;
  bytesOut: number;
  /** Registered values the request named where nothing is redacted (a CONNECT target), by name. */
  blocked?: BlockedFinding[];
}

/**
 * Logs and counts a request answered before any proxying: 401 (token missing or wrong), 404 (no route),
 * 400 for a dot segment, 426 for a WebSocket upgrade (`websocket_refused`) or 403 for a CONNECT tunnel
 * (`egress_refused`).
 */
export function logRefusedRequest(deps: RequestLogDeps, r: RefusedRequest): void {
  const blocked = r.blocked ?? [];
  logEvent(deps.logger, PROBLEM_OUTCOMES.has(r.outcome) ? 'warn' : 'info', 'request', {
    id: r.id,
    method: r.method,
    route: r.route,
    status: r.status,
    outcome: r.outcome,
    bytesOut: r.bytesOut,
    ...(blocked.length === 0 ? {} : { blocked }),
  });
  deps.stats?.record({ outcome: r.outcome, status: r.status, redactions: {}, restores: {}, restoreMisses: 0, blocked: [...new Set(blocked.map((f) => f.secret))] });
}

/** Longest CONNECT target logged as it is. */
const MAX_TUNNEL_TARGET = 255;

/**
 * How a refused CONNECT target (`host:port`) is logged: as it is (cut at 255 characters), or `withheld`
 * when it holds a registered value — then the secrets are named, by name — or when the secrets are
 * unavailable. The whole target is checked before any of it is shown, so a value straddling the cut
 * cannot leave a prefix of itself in the log.
 */
export function tunnelRoute(target: string, set: SecretSet | undefined): { route: string; blocked: BlockedFinding[] } {
  if (set === undefined) return { route: 'withheld', blocked: [] };
  let secrets: number[];
  try {
    secrets = inspect(set, Buffer.from(target, 'latin1')).map((h) => h.secret);
  } catch {
    return { route: 'withheld', blocked: [] }; // too deeply encoded to be checked: shown as nothing
  }
  if (secrets.length === 0) return { route: target.length > MAX_TUNNEL_TARGET ? `${target.slice(0, MAX_TUNNEL_TARGET)}…` : target, blocked: [] };
  const names = new Set<string>();
  for (const idx of secrets) names.add(set.nameFor(idx));
  return { route: 'withheld', blocked: [...names].map((secret) => ({ secret, surface: 'connect_target' })) };
}

/**
 * The route logged for a refused request: the path without its query and without any `/t/<token>`
 * segment (a right or wrong token is never logged), with every registered value replaced by its
 * placeholder — or only its first segment when the secrets are unavailable.
 */
export function refusedRoute(rawUrl: string, set: SecretSet | undefined): string {
  const q = rawUrl.indexOf('?');
  let path = q === -1 ? rawUrl : rawUrl.slice(0, q);
  if (path.startsWith('/t/')) {
    const end = path.indexOf('/', 3);
    path = end === -1 ? '/' : path.slice(end);
  }
  if (set === undefined) return firstSegmentOnly(path);
  try {
    return maskValues(set, path);
  } catch {
    return '/…'; // FICTA_BODY_TOO_DEEP: escapes nested past what can be checked, so nothing of it is shown
  }
}

/** `/v1/…` for `/v1/anything`: a path shown without what it could hide. */
export function firstSegmentOnly(path: string): string {
  const segments = path.split('/', 3);
  return `/${segments[1] ?? ''}${segments.length > 2 ? '/…' : ''}`;
}

function namedCounts(set: SecretSet | undefined, counts: CountMap): Record<string, number> {
  const out: Record<string, number> = {};
  if (set === undefined || counts.size === 0) return out;
  for (const [idx, n] of counts) {
    const name = set.nameFor(idx);
    out[name] = (out[name] ?? 0) + n;
  }
  return out;
}

/** Counts per source name (a value several sources hold counts for each; detected values under `detected`). */
function bySource(set: SecretSet, counts: CountMap): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [idx, n] of counts) for (const source of set.sourcesOf?.(idx) ?? []) out[source] = (out[source] ?? 0) + n;
  return out;
}

/** Placeholders of values the tenant is not entitled to (left as they are): withheld `tenant:not-entitled`. */
function addDenied(withheld: WithheldCounts, denied: CountMap): void {
  for (const [secret, n] of denied) for (let i = 0; i < n; i++) countWithheld(withheld, secret, NOT_ENTITLED);
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
