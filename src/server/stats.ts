// Run totals for reports (`ficta report`, the summary written on shutdown): requests by outcome,
// redactions, restores and blocks by secret name, restore misses. Names and counts only.

export interface RequestSummary {
  outcome: string;
  status: number | undefined;
  redactions: Record<string, number>;
  restores: Record<string, number>;
  restoreMisses: number;
  /** Secret names a blocked request would have leaked. */
  blocked: string[];
}

export interface RunReport {
  requests: number;
  byOutcome: Record<string, number>;
  redactions: Record<string, number>;
  restores: Record<string, number>;
  blocks: number;
  blockedBySecret: Record<string, number>;
  restoreMisses: number;
  /** Detection's store of detected values: counts and bytes, never values (absent when detection is off). */
  detectedStore?: { entries: number; bytes: number; added: number; evicted: number; recalled: number };
}

export interface RunStats {
  record(summary: RequestSummary): void;
  snapshot(): RunReport;
}

/** An in-memory accumulator (bounded by the number of secret names, not by requests). */
export function createRunStats(): RunStats {
  const report: RunReport = { requests: 0, byOutcome: {}, redactions: {}, restores: {}, blocks: 0, blockedBySecret: {}, restoreMisses: 0 };
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
      if (s.blocked.length > 0) {
        report.blocks++;
        for (const name of s.blocked) report.blockedBySecret[name] = (report.blockedBySecret[name] ?? 0) + 1;
      }
    },
    snapshot: () => structuredClone(report),
  };
}
