// The HTML bench report: one self-contained page (no script, no external asset), a plot per scenario
// with every target, CPU and memory charts, budget verdicts, the same-run ratios against the floor proxy
// judged against DESIGN §6's targets, the machine line, and every label escaped.

import { describe, expect, it } from 'vitest';
import type { BudgetCheck } from '../../src/bench/budget.ts';
import type { E2eResult } from '../../src/bench/e2e.ts';
import { floorVerdicts, formatHtmlReport } from '../../src/bench/html-report.ts';
import type { BenchReport } from '../../src/bench/run.ts';

function e2e(scenario: string, target: string, p50: number, extra: Partial<E2eResult> = {}): E2eResult {
  const [, format, size, c] = scenario.split('/') as ['e2e', 'json' | 'sse', '50KiB', string];
  return {
    name: `${scenario}/${target}`,
    unit: 'ms',
    scenario,
    target,
    format,
    size,
    concurrency: Number(c.slice(1)),
    secrets: null,
    samples: 400,
    p50,
    p95: p50 * 1.5,
    p99: p50 * 2,
    mean: p50 * 1.1,
    min: p50 * 0.8,
    max: p50 * 3,
    ci95: [p50 * 0.95, p50 * 1.05],
    ttfb: { p50, p95: p50, p99: p50 },
    reqPerSec: 1000 / p50,
    errors: 0,
    verified: { leaks: 0, restored: true },
    ...extra,
  };
}

const DIRECT = 0.2;
function scenario(s: string, added: Record<string, number>, cpu: Record<string, number>): E2eResult[] {
  return [
    e2e(s, 'direct', DIRECT),
    ...Object.entries(added).map(([t, a]) =>
      e2e(s, t, DIRECT + a, { addedP50Ms: a, addedP50Ci95: [a - 0.02, a + 0.02], ratioP50: (DIRECT + a) / DIRECT, ...(cpu[t] === undefined ? {} : { cpuMsPerReq: cpu[t] }) }),
    ),
  ];
}

const REPORT: BenchReport = {
  mode: 'quick',
  machine: { node: 'v24.21.0', cpu: 'Test CPU', cpus: 2, os: 'linux 6.1', gitSha: 'abc1234', loadBefore: 1.25, loadAfter: 2.5, date: '2026-11-23T00:00:00.000Z' },
  measured: { fictaBin: '/x/bin/ficta', gitSha: 'abc1234' },
  durationMs: 42_000,
  results: [
    // c1: passthrough 0.5 / floor 0.4 = 1.25 (meets ≤ 1.25); redacting 0.8 / 0.4 = 2.0 (misses ≤ 1.75).
    ...scenario('e2e/json/50KiB/c1', { floor: 0.4, 'ficta-passthrough': 0.5, 'ficta-redact-1k': 0.8, '<img src=x onerror=alert(1)>': 1.2 }, {}),
    // c16 CPU: passthrough 0.5 / 0.4 = 1.25 (meets ≤ 1.3); redacting 0.6 / 0.4 = 1.5 (misses).
    ...scenario('e2e/json/50KiB/c16', { floor: 0.6, 'ficta-passthrough': 0.7, 'ficta-redact-1k': 0.9 }, { floor: 0.4, 'ficta-passthrough': 0.5, 'ficta-redact-1k': 0.6 }),
    ...scenario('e2e/sse/50KiB/c1', { 'ficta-passthrough': 0.6 }, {}).map((r) => (r.target === 'direct' ? r : { ...r, addedTtfbP50Ms: 0.2, addedTtftP50Ms: 0.3 })),
    { name: 'micro/redact-gate/hits/1k/500KiB', unit: 'ms', samples: 50, p50: 1.1, p95: 1.3, p99: 1.4, mean: 1.1, min: 1, max: 1.5, ci95: [1, 1.2], msPerMB: 2.2 },
    { name: 'memory/idle/10k', secrets: 10_000, rssMB: 121.5, startupPeakMB: 170.2 },
    { name: 'memory/big-request/10k', bodyMB: 33.5, peakMB: 230, costOverBody: 2.4 },
  ],
};

const CHECKS: BudgetCheck[] = [
  { name: 'e2e/json/50KiB/c1/ficta-redact-1k', field: 'addedP50Ms', limit: '≤ 1.6', value: 0.8, ok: true, why: 'as shipped' },
  { name: 'memory/idle/10k', field: 'rssMB', limit: '≤ 100', value: 121.5, ok: false, why: 'DESIGN §6 <memory>' },
];

describe('floorVerdicts', () => {
  it('divides each ficta figure by the floor of the same scenario and judges it against its target', () => {
    const v = floorVerdicts(REPORT.results.filter((r): r is E2eResult => r.name.startsWith('e2e/')));
    expect(v.map((x) => [x.scenario, x.what, Number(x.ratio.toFixed(6)), x.ok])).toEqual([
      ['e2e/json/50KiB/c1', 'passthrough added p50', 1.25, true],
      ['e2e/json/50KiB/c1', 'redacting (1,000 secrets) added p50', 2, false],
      ['e2e/json/50KiB/c16', 'passthrough CPU per request', 1.25, true],
      ['e2e/json/50KiB/c16', 'redacting CPU per request', 1.5, false],
    ]);
  });

  it('judges nothing without a floor in the run', () => {
    expect(floorVerdicts(scenario('e2e/json/50KiB/c1', { 'ficta-passthrough': 0.5 }, {}))).toEqual([]);
  });
});

describe('formatHtmlReport', () => {
  const html = formatHtmlReport(REPORT, CHECKS);

  it('is one self-contained page: no script, stylesheet link, image, frame or remote URL', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toMatch(/<script|<link|<img|<iframe|<object|<embed|@import|url\(|<[^>]*\s(src|href)=/i);
    // The only URL is the SVG namespace, which is a name, never fetched.
    expect([...html.matchAll(/https?:\/\/[^\s"'<>]+/g)].map((m) => m[0]).every((u) => u === 'http://www.w3.org/2000/svg')).toBe(true);
  });

  it('plots every scenario with every target, and CPU, memory and the in-process figures', () => {
    for (const s of ['json/50KiB/c1', 'json/50KiB/c16', 'sse/50KiB/c1']) expect(html).toContain(`<h3>${s}</h3>`);
    // Two charts per scenario (distribution, added), then CPU, memory and micro.
    expect(html.match(/<svg /g)).toHaveLength(3 * 2 + 3);
    const c1 = html.slice(html.indexOf('<h3>json/50KiB/c1</h3>'), html.indexOf('<h3>json/50KiB/c16</h3>'));
    for (const t of ['direct', 'floor', 'ficta-passthrough', 'ficta-redact-1k']) expect(c1).toContain(`class="label">${t}</text>`);
    expect(c1).toContain('p50 0.600 · p95 0.900 · p99 1.200 (n 400)');
    expect(c1).toContain('+0.800 ms · 5× direct · 2× floor');
    expect(html).toContain('Added time to first byte / first token (p50, ms): ficta-passthrough +0.200 / +0.300');
    expect(html).toMatch(/<h2>CPU per request<\/h2>[\s\S]*json\/50KiB\/c16 ficta-redact-1k/);
    expect(html).toContain('121.5 MB · 10000 secrets, settled');
    expect(html).toContain('2.200 ms/MB');
  });

  it('states the verdicts, the budget table and the machine the run was on', () => {
    expect(html).toContain('<b>1 over budget</b> 1 of 2 limits met');
    expect(html).toContain('<b>misses</b> json/50KiB/c1 redacting (1,000 secrets) added p50: 2× the floor (target ≤ 1.75×; ficta 0.800, floor 0.400 ms)');
    expect(html).toContain('<b>meets</b> json/50KiB/c16 passthrough CPU per request: 1.250× the floor (target ≤ 1.3×');
    expect(html).toMatch(/<tr class="over"><td>OVER<\/td><td>memory\/idle\/10k<\/td><td>rssMB<\/td><td class="num">121.5<\/td><td>≤ 100<\/td><td>DESIGN §6 &#60;memory&#62;<\/td><\/tr>/);
    expect(html).toContain('Node v24.21.0 · Test CPU × 2 · linux 6.1 · load 1.25 → 2.5');
  });

  it('escapes every label it did not write itself', () => {
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;');
  });

  it('says how to get the floor targets when the run had no floor', () => {
    const noFloor = formatHtmlReport({ ...REPORT, results: scenario('e2e/json/50KiB/c1', { 'ficta-passthrough': 0.5 }, {}) });
    expect(noFloor).toContain('Run with --floor');
    expect(noFloor).not.toContain('<h2>Budget</h2>');
  });
});
