// Plain-text tables for benchmark results: aligned columns, figures rounded for reading (the JSON
// output keeps full precision).

import type { BudgetCheck } from './budget.ts';
import type { E2eResult } from './e2e.ts';
import type { MemoryResult } from './memory.ts';
import type { MicroResult } from './micro.ts';
import type { BenchReport } from './run.ts';

/** Renders rows as an aligned table; numbers are right-aligned. */
export function formatTable(header: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number>>): string {
  const cells = rows.map((r) => r.map((c) => (typeof c === 'number' ? fmt(c) : c)));
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[], numeric: readonly boolean[]): string =>
    r.map((c, i) => (numeric[i] === true ? c.padStart(widths[i] as number) : c.padEnd(widths[i] as number))).join('  ').trimEnd();
  const numeric = header.map((_, i) => rows.length > 0 && rows.every((r) => typeof r[i] === 'number' || r[i] === '-'));
  return [line(header, numeric), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map((r) => line(r, numeric))].join('\n');
}

/** A number with 3 significant decimals below 10, 2 below 100, 1 below 1000, none above. */
export function fmt(x: number): string {
  if (!Number.isFinite(x)) return '-';
  if (Number.isInteger(x)) return String(x);
  const a = Math.abs(x);
  return x.toFixed(a < 10 ? 3 : a < 100 ? 2 : a < 1000 ? 1 : 0);
}

/** The microbenchmark table: p50/p95/p99 ms, samples, ms per MB and MB/s. */
export function formatMicroTable(results: readonly MicroResult[]): string {
  return formatTable(
    ['case', 'p50 ms', 'p95 ms', 'p99 ms', 'samples', 'ms/MB', 'MB/s'],
    results.map((r) => [r.name, r.p50, r.p95, r.p99, r.samples, r.msPerMB ?? '-', r.msPerMB === undefined ? '-' : 1000 / r.msPerMB]),
  );
}

/** The end-to-end table: latency, added latency against direct in the same run, streams, throughput, CPU, allocation, RSS. */
export function formatE2eTable(results: readonly E2eResult[]): string {
  return formatTable(
    ['scenario', 'target', 'n', 'p50 ms', 'p95 ms', 'p99 ms', 'added p50 (95% CI)', '×direct', 'TTFB +ms', 'TTFT +ms', 'req/s', 'CPU ms/req', 'alloc KiB/req', 'RSS MB'],
    results.map((r) => [
      r.scenario,
      r.target,
      r.samples,
      r.p50,
      r.p95,
      r.p99,
      r.addedP50Ms === undefined ? '-' : `${signed(r.addedP50Ms)} (${signed(r.addedP50Ci95?.[0] ?? NaN)}…${signed(r.addedP50Ci95?.[1] ?? NaN)})${r.addedSignificant === false ? ' ~' : ''}`,
      r.ratioP50 ?? '-',
      r.addedTtfbP50Ms ?? '-',
      r.addedTtftP50Ms ?? '-',
      r.reqPerSec,
      r.cpuMsPerReq ?? '-',
      r.allocKBPerReq ?? '-',
      r.rssMB ?? '-',
    ]),
  );
}

/** The memory checks, one line each with the figures that matter for it. */
export function formatMemory(results: readonly MemoryResult[]): string {
  return results
    .map((r) => {
      const fields = Object.entries(r)
        .filter(([k, v]) => k !== 'name' && typeof v === 'number')
        .map(([k, v]) => `${k} ${fmt(v as number)}`);
      return `${r.name}: ${fields.join(', ')}`;
    })
    .join('\n');
}

/** Budget checks: every limit with its value, failures marked. */
export function formatBudget(checks: readonly BudgetCheck[]): string {
  return formatTable(
    ['', 'result', 'field', 'value', 'limit'],
    checks.map((c) => [c.ok ? 'ok' : 'OVER', c.name, c.field, c.value === undefined ? 'not measured' : fmt(c.value), c.limit]),
  );
}

/** The whole report as text: machine line, then each section present. */
export function formatReport(report: BenchReport, checks?: readonly BudgetCheck[]): string {
  const m = report.machine;
  const micro = report.results.filter((r): r is MicroResult => r.name.startsWith('micro/'));
  const e2e = report.results.filter((r): r is E2eResult => r.name.startsWith('e2e/'));
  const memory = report.results.filter((r): r is MemoryResult => r.name.startsWith('memory/'));
  const parts = [
    `ficta bench (${report.mode}) — node ${m.node}, ${m.cpu} × ${m.cpus}, ${m.os}, git ${report.measured.gitSha}, load ${m.loadBefore} → ${m.loadAfter}, ${(report.durationMs / 1000).toFixed(1)} s`,
  ];
  if (e2e.length > 0) parts.push('', 'end to end (ms; "added" = p50 minus direct p50 in the same run; ~ = interval includes 0)', formatE2eTable(e2e));
  if (micro.length > 0) parts.push('', 'micro (in process)', formatMicroTable(micro));
  if (memory.length > 0) parts.push('', 'memory (proxy process, MB = 10^6 bytes)', formatMemory(memory));
  if (checks !== undefined) parts.push('', `budget: ${checks.filter((c) => !c.ok).length} of ${checks.length} limits exceeded`, formatBudget(checks));
  return parts.join('\n');
}

function signed(x: number): string {
  return Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${x.toFixed(3)}` : '-';
}
