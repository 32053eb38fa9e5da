// The request log line and run totals: one `request` event per request (proxied, blocked, refused for
// a missing token or an unknown route), at warn level when it is a problem (blocked, upstream failure,
// vault unavailable) so it reaches a warnings-only log. Names and counts only, never a value.

import { logEvent, type Logger } from '../log/logger.ts';
import { PROBLEM_OUTCOMES, type Outcome } from '../log/outcomes.ts';
import type { CountMap } from '../redact/replace.ts';
import type { SecretSet } from '../redact/secret-set.ts';
import { redactPath } from '../redact/url.ts';
import type { RestoreStats } from '../restore/restore-bytes.ts';
import type { RunStats } from './stats.ts';

/** One finding of the gate, by secret name and surface. */
export interface BlockedFinding {
  secret: string;
  surface: string;
}

/** What the proxy records about one request while it runs. */
export interface RequestLog {
  id: string;
  method: string;
  route: string;
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
  outcome: Outcome;
  blocked: BlockedFinding[];
  /** The upstream origin and the transport's error code, when the upstream failed. */
  upstream?: string;
  error?: string;
}

export interface RequestLogDeps {
  logger: Logger;
  stats?: RunStats;
}

/** Writes the request line and adds the request to the run totals. */
export function writeRequestLog(deps: RequestLogDeps, log: RequestLog, set: SecretSet | undefined): void {
  const redactions = namedCounts(set, log.redactions);
  const restores = namedCounts(set, log.restore.restores);
  logEvent(deps.logger, PROBLEM_OUTCOMES.has(log.outcome) ? 'warn' : 'info', 'request', {
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
    ms: round(performance.now() - log.started),
    upstreamHeadersMs: log.upstreamHeadersMs === undefined ? undefined : round(log.upstreamHeadersMs),
    redactions,
    restores,
    restoreMisses: log.restore.misses,
    ...(log.blocked.length === 0 ? {} : { blocked: log.blocked }),
    ...(log.upstream === undefined ? {} : { upstream: log.upstream }),
    ...(log.error === undefined ? {} : { error: log.error }),
  });
  deps.stats?.record({
    outcome: log.outcome,
    status: log.status,
    redactions,
    restores,
    restoreMisses: log.restore.misses,
    blocked: [...new Set(log.blocked.map((f) => f.secret))],
    ...(log.upstream === undefined ? {} : { upstream: log.upstream }),
    ...(log.error === undefined ? {} : { error: log.error }),
  });
}

/** Logs and counts a request answered before any proxying: 401 (token missing or wrong) or 404 (no route). */
export function logRefusedRequest(deps: RequestLogDeps, r: { id: string; method: string; route: string; status: number; outcome: Outcome; bytesOut: number }): void {
  logEvent(deps.logger, 'info', 'request', { id: r.id, method: r.method, route: r.route, status: r.status, outcome: r.outcome, bytesOut: r.bytesOut });
  deps.stats?.record({ outcome: r.outcome, status: r.status, redactions: {}, restores: {}, restoreMisses: 0, blocked: [] });
}

/**
 * The route logged for a refused request: the path without its query and without any `/t/<token>`
 * segment (a right or wrong token is never logged), with registered values redacted — or only its first
 * segment when the secrets are unavailable.
 */
export function refusedRoute(rawUrl: string, set: SecretSet | undefined): string {
  const q = rawUrl.indexOf('?');
  let path = q === -1 ? rawUrl : rawUrl.slice(0, q);
  if (path.startsWith('/t/')) {
    const end = path.indexOf('/', 3);
    path = end === -1 ? '/' : path.slice(end);
  }
  if (set === undefined) return `/${path.split('/')[1] ?? ''}${path.split('/').length > 2 ? '/…' : ''}`;
  return redactPath(set, path, new Map());
}

function namedCounts(set: SecretSet | undefined, counts: CountMap): Record<string, number> {
  const out: Record<string, number> = {};
  if (set === undefined) return out;
  for (const [idx, n] of counts) {
    const name = set.names[idx] as string;
    out[name] = (out[name] ?? 0) + n;
  }
  return out;
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
