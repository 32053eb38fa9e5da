// The readable form of a run report, shared by `ficta report` and the summary `ficta run` prints when
// its command ends. Names (and, for withheld restores, the reason and host) and counts only.

import type { RunReport } from '../server/stats.ts';
import type { WithheldByName } from '../sinks/withheld.ts';

/** The report as aligned lines (no trailing newline), each prefixed with `indent`. */
export function formatReportLines(r: RunReport, indent = ''): string[] {
  const list = (m: Record<string, number>): string =>
    Object.keys(m).length === 0
      ? '-'
      : Object.entries(m)
          .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
          .map(([k, v]) => `${k} ${v}`)
          .join(', ');
  return [
    `requests        ${r.requests}${r.requests > 0 ? ` (${list(r.byOutcome)})` : ''}`,
    `redactions      ${list(r.redactions)}`,
    `restores        ${list(r.restores)}`,
    `blocked         ${r.blocks}${r.blocks > 0 ? ` (${list(r.blockedBySecret)})` : ''}`,
    `restore misses  ${r.restoreMisses}`,
    `upstream errors ${r.upstreamErrors ?? 0}`,
    `withheld        ${r.withheld ?? 0}${(r.withheld ?? 0) > 0 ? ` (${withheldList(r.withheldBySecret ?? {})})` : ''}`,
  ].map((l) => `${indent}${l}`);
}

/** `NAME reason n` entries of withheld tool-call restores, most frequent first. */
function withheldList(byName: WithheldByName): string {
  const rows: Array<[string, number]> = [];
  for (const [name, byReason] of Object.entries(byName)) for (const [reason, n] of Object.entries(byReason)) rows.push([`${name} ${reason}`, n]);
  return rows
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
}

/** One line naming what was blocked, for stderr. */
export function describeBlocks(report: RunReport): string {
  const names = Object.entries(report.blockedBySecret)
    .map(([n, c]) => `${n} ×${c}`)
    .join(', ');
  return `${report.blocks} request(s) blocked (${names})`;
}
