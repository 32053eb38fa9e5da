// Run totals for reports (`ficta report`, the summary written on shutdown, `ficta status`): requests by
// outcome, redactions, restores, blocks and withheld tool-call restores by secret name, restore misses,
// upstream errors. Names and counts only.

import { UPSTREAM_OUTCOMES } from '../log/outcomes.ts';
import { addWithheld, type WithheldByName } from '../sinks/withheld.ts';

export interface RequestSummary {
  outcome: string;
  status: number | undefined;
  redactions: Record<string, number>;
  restores: Record<string, number>;
  restoreMisses: number;
  /** Secret names a blocked request would have leaked. */
  blocked: string[];
  /** The upstream origin and the transport's error code, when the upstream failed. */
  upstream?: string;
  error?: string;
  /** Restores withheld from tool calls, by secret name and reason. */
  withheld?: WithheldByName;
  /** Provider route and adapter of a proxied request (absent for requests refused before routing). */
  provider?: string;
  adapter?: string;
  /** Whole request time in ms, and the upstream's part of it (request sent → body ended), when it was reached. */
  ms?: number;
  upstreamMs?: number;
  /** Gateway requests: the tenant (its token's name) and groups. */
  tenant?: string;
  groups?: readonly string[];
  /** Gateway requests: placeholder-shaped text that is not this tenant's (another tenant's, forged, stale), left unchanged. */
  foreignPlaceholders?: number;
  /** Redactions and restores by source name, when the set knows its sources (`[[sources]]`; detected values: `detected`). */
  redactionsBySource?: Record<string, number>;
  restoresBySource?: Record<string, number>;
}

export interface RunReport {
  requests: number;
  /** Requests by outcome (ok, blocked, unauthorized, not_found, upstream_unreachable, …; see README "Outcomes"). */
  byOutcome: Record<string, number>;
  redactions: Record<string, number>;
  restores: Record<string, number>;
  blocks: number;
  blockedBySecret: Record<string, number>;
  restoreMisses: number;
  /** Requests that failed at the upstream (unreachable, timed out, broken stream). */
  upstreamErrors: number;
  /** Restores withheld from tool calls (absent in reports written before they existed). */
  withheld?: number;
  /** Withheld restores by secret name and reason (`network:evil.example`). */
  withheldBySecret?: WithheldByName;
  /** Detection's store of detected values: counts and bytes, never values (absent when detection is off). */
  detectedStore?: { entries: number; bytes: number; added: number; evicted: number; recalled: number };
}

export interface RunStats {
  record(summary: RequestSummary): void;
  snapshot(): RunReport;
}

/** An in-memory accumulator (bounded by the number of secret names and outcomes, not by requests). */
export function createRunStats(onRecord?: (summary: RequestSummary) => void): RunStats {
  const report: RunReport = { requests: 0, byOutcome: {}, redactions: {}, restores: {}, blocks: 0, blockedBySecret: {}, restoreMisses: 0, upstreamErrors: 0, withheld: 0, withheldBySecret: {} };
  const add = (into: Record<string, number>, from: Record<string, number>): void => {
    for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
  };
  return {
    record(s) {
      report.requests++;
      report.byOutcome[s.outcome] = (report.byOutcome[s.outcome] ?? 0) + 1;
      add(report.redactions, s.redactions);
      add(report.restores, s.restores);
      report.restoreMisses += s.restoreMisses;
      if (UPSTREAM_OUTCOMES.has(s.outcome)) report.upstreamErrors++;
      if (s.withheld !== undefined) report.withheld = (report.withheld ?? 0) + addWithheld((report.withheldBySecret ??= {}), s.withheld);
      if (s.blocked.length > 0) {
        report.blocks++;
        for (const name of s.blocked) report.blockedBySecret[name] = (report.blockedBySecret[name] ?? 0) + 1;
      }
      try {
        onRecord?.(s);
      } catch {
        // An observer's failure never affects a request.
      }
    },
    snapshot: () => structuredClone(report),
  };
}
