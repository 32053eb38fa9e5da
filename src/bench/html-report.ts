// The bench report as one self-contained HTML page (`ficta bench --html FILE`): latency distributions
// per scenario (direct, floor, ficta), added latency, CPU per request, memory, the budget verdicts and
// the same-run targets against the floor proxy, with the machine, Node version and load. Inline SVG and
// CSS only: no script, font, image or link that leaves the file.

import type { BudgetCheck } from './budget.ts';
import type { E2eResult } from './e2e.ts';
import type { MemoryResult } from './memory.ts';
import type { MicroResult } from './micro.ts';
import { fmt } from './report.ts';
import type { BenchReport } from './run.ts';
import { esc, rowChart, type Row } from './svg.ts';

/**
 * DESIGN §6's same-run targets against the floor proxy (bench/floor-proxy.ts), checked when a run has
 * one (`--floor`): added p50 at concurrency 1, and proxy CPU per request at concurrency 16.
 */
export const FLOOR_TARGETS: ReadonlyArray<{ target: string; field: 'addedP50Ms' | 'cpuMsPerReq'; concurrency: number; maxRatio: number; what: string }> = [
  { target: 'ficta-passthrough', field: 'addedP50Ms', concurrency: 1, maxRatio: 1.25, what: 'passthrough added p50' },
  { target: 'ficta-redact-1k', field: 'addedP50Ms', concurrency: 1, maxRatio: 1.75, what: 'redacting (1,000 secrets) added p50' },
  { target: 'ficta-passthrough', field: 'cpuMsPerReq', concurrency: 16, maxRatio: 1.3, what: 'passthrough CPU per request' },
  { target: 'ficta-redact-1k', field: 'cpuMsPerReq', concurrency: 16, maxRatio: 1.3, what: 'redacting CPU per request' },
];

/** Colours by target; other proxies get the last. */
const COLORS: Record<string, string> = { direct: '#7a7a7a', floor: '#3f6fb5', 'ficta-passthrough': '#2a9d8f', 'ficta-watermark': '#8ab17d', 'ficta-redact-100': '#e9a03b', 'ficta-redact-1k': '#d1495b' };
const OTHER_COLOR = '#6c4f9c';
const ORDER = ['direct', 'floor', 'ficta-passthrough', 'ficta-watermark', 'ficta-redact-100', 'ficta-redact-1k'];

const color = (target: string): string => COLORS[target] ?? OTHER_COLOR;
const rank = (target: string): number => (ORDER.includes(target) ? ORDER.indexOf(target) : ORDER.length);
/** `e2e/json/50KiB/c1` → `json/50KiB/c1`. */
const short = (scenario: string): string => scenario.replace(/^e2e\//, '');
const signed = (x: number | undefined): string => (x === undefined || !Number.isFinite(x) ? '–' : `${x >= 0 ? '+' : ''}${fmt(x)}`);

/** A same-run ratio against the floor, and whether it meets its target. */
export interface FloorVerdict {
  scenario: string;
  what: string;
  ficta: number;
  floor: number;
  ratio: number;
  maxRatio: number;
  ok: boolean;
}

/** The FLOOR_TARGETS a run can be judged on (scenarios with both the ficta target and the floor). */
export function floorVerdicts(results: readonly E2eResult[]): FloorVerdict[] {
  const out: FloorVerdict[] = [];
  for (const t of FLOOR_TARGETS) {
    for (const floor of results.filter((r) => r.target === 'floor' && r.concurrency === t.concurrency)) {
      const ficta = results.find((r) => r.scenario === floor.scenario && r.target === t.target);
      const a = ficta?.[t.field];
      const b = floor[t.field];
      if (a === undefined || b === undefined || !(b > 0)) continue;
      out.push({ scenario: floor.scenario, what: t.what, ficta: a, floor: b, ratio: a / b, maxRatio: t.maxRatio, ok: a / b <= t.maxRatio });
    }
  }
  return out;
}

/** Renders the whole page. */
export function formatHtmlReport(report: BenchReport, checks?: readonly BudgetCheck[]): string {
  const e2e = report.results.filter((r): r is E2eResult => r.name.startsWith('e2e/'));
  const micro = report.results.filter((r): r is MicroResult => r.name.startsWith('micro/'));
  const memory = report.results.filter((r): r is MemoryResult => r.name.startsWith('memory/'));
  const m = report.machine;
  const verdicts = floorVerdicts(e2e);
  const sections = [
    `<header><h1>ficta bench <span class="mode">${esc(report.mode)}</span></h1>
<p class="machine">${esc(`Node ${m.node} · ${m.cpu} × ${m.cpus} · ${m.os} · load ${m.loadBefore} → ${m.loadAfter} (1-minute average, before → after) · ${m.date} · ${(report.durationMs / 1000).toFixed(0)} s`)}<br>${esc(`measured: ${report.measured.fictaBin} at ${report.measured.gitSha}`)}</p>
<p class="caveat">One run on this machine. Other processes share its CPUs: compare figures within this page (same run) rather than across runs, and builds with bench/compare.ts.</p></header>`,
    verdictSection(checks, verdicts, e2e.length > 0),
    e2e.length > 0 ? latencySection(e2e) : '',
    e2e.some((r) => r.cpuMsPerReq !== undefined) ? cpuSection(e2e) : '',
    memory.length > 0 ? memorySection(memory) : '',
    micro.length > 0 ? microSection(micro) : '',
    checks !== undefined ? budgetSection(checks) : '',
  ];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(`ficta bench ${report.mode} · ${m.date}`)}</title>
<style>${CSS}</style></head>
<body>${sections.filter((s) => s !== '').join('\n')}</body></html>
`;
}

function verdictSection(checks: readonly BudgetCheck[] | undefined, verdicts: readonly FloorVerdict[], hasE2e: boolean): string {
  const items: string[] = [];
  if (checks !== undefined) {
    const over = checks.filter((c) => !c.ok).length;
    items.push(`<li class="${over === 0 ? 'ok' : 'over'}"><b>${over === 0 ? 'within budget' : `${over} over budget`}</b> ${checks.length - over} of ${checks.length} limits met</li>`);
  }
  for (const v of verdicts) {
    items.push(`<li class="${v.ok ? 'ok' : 'over'}"><b>${v.ok ? 'meets' : 'misses'}</b> ${esc(`${short(v.scenario)} ${v.what}: ${fmt(v.ratio)}× the floor (target ≤ ${v.maxRatio}×; ficta ${fmt(v.ficta)}, floor ${fmt(v.floor)} ms)`)}</li>`);
  }
  const note = verdicts.length === 0 && hasE2e ? '<p class="hint">Run with --floor to judge DESIGN §6’s same-run targets against the floor proxy.</p>' : '';
  if (items.length === 0 && note === '') return '';
  return `<section><h2>Verdicts</h2><ul class="verdicts">${items.join('')}</ul>${note}</section>`;
}

function latencySection(e2e: readonly E2eResult[]): string {
  const scenarios = [...new Set(e2e.map((r) => r.scenario))];
  const cards = scenarios.map((s) => {
    const rows = e2e.filter((r) => r.scenario === s).sort((a, b) => rank(a.target) - rank(b.target));
    const floor = rows.find((r) => r.target === 'floor')?.addedP50Ms;
    const dist: Row[] = rows.map((r) => ({
      label: r.target,
      color: color(r.target),
      whisker: [r.min, r.p99],
      box: [r.p50, r.p95],
      dot: r.p50,
      marks: [r.p99],
      note: `p50 ${fmt(r.p50)} · p95 ${fmt(r.p95)} · p99 ${fmt(r.p99)} (n ${r.samples})`,
    }));
    const added: Row[] = rows
      .filter((r) => r.addedP50Ms !== undefined)
      .map((r) => ({
        label: r.target,
        color: color(r.target),
        box: [0, Math.max(0, r.addedP50Ms as number)],
        ...(r.addedP50Ci95 === undefined ? {} : { whisker: [Math.max(0, r.addedP50Ci95[0]), Math.max(0, r.addedP50Ci95[1])] as [number, number] }),
        note: `${signed(r.addedP50Ms)} ms${r.ratioP50 === undefined ? '' : ` · ${fmt(r.ratioP50)}× direct`}${floor !== undefined && r.target !== 'floor' && floor > 0 ? ` · ${fmt((r.addedP50Ms as number) / floor)}× floor` : ''}${r.addedSignificant === false ? ' · within noise' : ''}`,
      }));
    const firsts = rows
      .filter((r) => r.addedTtfbP50Ms !== undefined)
      .map((r) => `${r.target} ${signed(r.addedTtfbP50Ms)}${r.addedTtftP50Ms === undefined ? '' : ` / ${signed(r.addedTtftP50Ms)}`}`);
    const what = rows.some((r) => r.addedTtftP50Ms !== undefined) ? 'first byte / first token' : 'first byte';
    const firstNote = firsts.length === 0 ? '' : `<p class="small">${esc(`Added time to ${what} (p50, ms): ${firsts.join(' · ')}`)}</p>`;
    return `<div class="card"><h3>${esc(short(s))}</h3>
<p class="small">Latency per request, ms, log scale: dot = p50, box = p50 to p95, whisker = fastest to p99, bar = p99.</p>${rowChart(dist, { unit: 'ms (log)', scale: 'log' })}
<p class="small">Added over direct (p50, same run), ms, with its 95 % interval:</p>${rowChart(added, { unit: 'ms added' })}${firstNote}</div>`;
  });
  return `<section><h2>Latency</h2><p class="hint">Each scenario is format / body size (request and response) / concurrency. Targets ran in interleaved rounds against the same mock provider; “direct” is no proxy, “floor” a bare node:http + undici proxy.</p>${cards.join('\n')}</section>`;
}

function cpuSection(e2e: readonly E2eResult[]): string {
  const rows: Row[] = e2e
    .filter((r) => r.cpuMsPerReq !== undefined)
    .sort((a, b) => a.scenario.localeCompare(b.scenario) || rank(a.target) - rank(b.target))
    .map((r) => ({ label: `${short(r.scenario)} ${r.target}`, color: color(r.target), box: [0, r.cpuMsPerReq as number], note: `${fmt(r.cpuMsPerReq as number)} ms · ${fmt(r.reqPerSec)} req/s${r.allocKBPerReq === undefined ? '' : ` · ${fmt(r.allocKBPerReq)} KiB allocated`}` }));
  return `<section><h2>CPU per request</h2><p class="hint">CPU time of the proxy process (all threads, from /proc) divided by the requests it served in the timed batches; KiB allocated per request from the process's allocation probe (V8 heap and Buffer contents).</p><div class="card">${rowChart(rows, { unit: 'ms CPU / request' })}</div></section>`;
}

function memorySection(memory: readonly MemoryResult[]): string {
  const num = (r: MemoryResult | undefined, k: string): number | undefined => (typeof r?.[k] === 'number' ? (r[k] as number) : undefined);
  const get = (suffix: string): MemoryResult | undefined => memory.find((r) => r.name.split('/')[1] === suffix);
  const idle = get('idle');
  const bars: Array<[string, number | undefined, string]> = [
    ['idle RSS', num(idle, 'rssMB'), `${fmt(num(idle, 'secrets') ?? NaN)} secrets, settled`],
    ['start-up peak', num(idle, 'startupPeakMB'), 'while building the secret set'],
    ['warm RSS', num(get('warm'), 'rssMB'), 'after 100 small requests'],
    ['sequential: late RSS', num(get('sequential'), 'rssLateMB'), `growth ${signed(num(get('sequential'), 'rssGrowthMB'))} MB over ${fmt(num(get('sequential'), 'requests') ?? NaN)} requests`],
    ['big request: peak', num(get('big-request'), 'peakMB'), `${fmt(num(get('big-request'), 'bodyMB') ?? NaN)} MB body, cost ${fmt(num(get('big-request'), 'costOverBody') ?? NaN)}× its size`],
    ['long stream: peak', num(get('long-sse'), 'peakMB'), `${fmt(num(get('long-sse'), 'streamMB') ?? NaN)} MB restored at ${fmt(num(get('long-sse'), 'mbPerSec') ?? NaN)} MB/s`],
  ];
  const rows: Row[] = bars.filter(([, v]) => v !== undefined).map(([label, v, note]) => ({ label, color: '#5b7db1', box: [0, v as number], note: `${fmt(v as number)} MB · ${note}` }));
  return `<section><h2>Memory</h2><p class="hint">Resident memory of one ficta process (MB = 10⁶ bytes). DESIGN §6: 10,000 secrets loaded ≤ 150 MB RSS; a 32 MiB body never costs more than ~3× its size.</p><div class="card">${rowChart(rows, { unit: 'MB', rule: { at: 150, caption: '150 MB: idle target' } })}</div></section>`;
}

function microSection(micro: readonly MicroResult[]): string {
  const rows: Row[] = micro
    .filter((r) => r.msPerMB !== undefined)
    .map((r) => ({ label: r.name.replace(/^micro\//, '').replace(/\/500KiB$/, ''), color: r.name.includes('restore') ? '#2a9d8f' : '#d1495b', box: [0, r.msPerMB as number], note: `${fmt(r.msPerMB as number)} ms/MB · p50 ${fmt(r.p50)} ms` }));
  return `<section><h2>In process</h2><p class="hint">Hot paths in the benchmark process itself (no network), per MB of body; the name ends in the number of registered secrets.</p><div class="card">${rowChart(rows, { unit: 'ms per MB' })}</div></section>`;
}

function budgetSection(checks: readonly BudgetCheck[]): string {
  const rows = checks
    .map(
      (c) =>
        `<tr class="${c.ok ? 'ok' : 'over'}"><td>${c.ok ? 'ok' : 'OVER'}</td><td>${esc(c.name)}</td><td>${esc(c.field)}</td><td class="num">${c.value === undefined ? 'not measured' : esc(fmt(c.value))}</td><td>${esc(c.limit)}</td><td>${esc(c.why ?? '')}</td></tr>`,
    )
    .join('');
  return `<section><h2>Budget</h2><table><thead><tr><th></th><th>figure</th><th>field</th><th>value</th><th>limit</th><th>why</th></tr></thead><tbody>${rows}</tbody></table></section>`;
}

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#1d2430;background:#f6f7f9;margin:0;padding:24px 32px;max-width:1100px}
h1{font-size:22px;margin:0 0 4px}h1 .mode{font-size:13px;background:#1d2430;color:#fff;border-radius:4px;padding:2px 7px;vertical-align:middle}
h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #d5d9e0;padding-bottom:4px}h3{font-size:14px;margin:0 0 4px;font-family:ui-monospace,Menlo,Consolas,monospace}
.machine{color:#3b4656;margin:2px 0}.caveat,.hint,.small{color:#5d6877;font-size:12.5px;margin:4px 0}
.card{background:#fff;border:1px solid #dde1e7;border-radius:6px;padding:10px 14px;margin:10px 0}
.verdicts{list-style:none;padding:0;margin:0}.verdicts li{padding:4px 10px;margin:3px 0;border-radius:4px;background:#fff;border-left:5px solid}
.verdicts li.ok{border-color:#2a9d8f}.verdicts li.over{border-color:#d1495b}.verdicts b{display:inline-block;min-width:118px}
table{border-collapse:collapse;background:#fff;font-size:12.5px;width:100%}th,td{border:1px solid #dde1e7;padding:3px 6px;text-align:left;vertical-align:top}td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.over td:first-child{background:#d1495b;color:#fff;font-weight:600}tr.ok td:first-child{color:#2a9d8f;font-weight:600}
svg{display:block;max-width:100%;height:auto}svg text{font-size:11.5px;fill:#1d2430;font-family:inherit}svg .label{text-anchor:end}svg .tick{text-anchor:middle;fill:#5d6877}svg .unit{text-anchor:end;fill:#5d6877}
svg .note{fill:#3b4656;font-variant-numeric:tabular-nums}svg .grid{stroke:#eceef2}svg .whisker{stroke-width:1.5}svg .box{opacity:.55}svg .mark{stroke-width:2.5}svg .dot{stroke:#fff;stroke-width:1}
svg .rule{stroke:#d1495b;stroke-dasharray:4 3}svg .rule-caption{fill:#d1495b}
`;
