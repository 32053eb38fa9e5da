import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkBudget, parseBudget } from '../../src/bench/budget.ts';
import { diffOfMedians, quantile, summarize } from '../../src/bench/stats.ts';
import { mulberry32 } from '../../src/util/prng.ts';

const BUDGET_FILE = join(import.meta.dirname, '../../config/bench-budget.json');

describe('bench statistics', () => {
  it('interpolates percentiles and brackets the median with its interval', () => {
    const values = Array.from({ length: 101 }, (_, i) => 100 - i);
    const s = summarize(values);
    expect(s.samples).toBe(101);
    expect(s.p50).toBe(50);
    expect(s.p95).toBe(95);
    expect(s.p99).toBe(99);
    expect(s.ci95[0]).toBeLessThan(50);
    expect(s.ci95[1]).toBeGreaterThan(50);
    expect(quantile([1, 3], 0.5)).toBe(2);
  });

  it('calls a shift significant only when the bootstrap interval excludes zero', () => {
    const rnd = mulberry32(3);
    const base = Array.from({ length: 400 }, () => 1 + rnd());
    const same = Array.from({ length: 400 }, () => 1 + rnd());
    const slower = base.map((x) => x + 0.5);
    const shift = diffOfMedians(slower, base);
    expect(shift.significant).toBe(true);
    expect(shift.delta).toBeCloseTo(0.5, 5);
    expect(shift.ci95[0]).toBeGreaterThan(0);
    expect(diffOfMedians(same, base).significant).toBe(false);
  });
});

describe('bench budgets', () => {
  const results = [
    { name: 'e2e/json/50KiB/c1/ficta-passthrough', addedP50Ms: 0.5 },
    { name: 'e2e/sse/50KiB/c1/ficta-passthrough', addedP50Ms: 1.5 },
    { name: 'memory/idle/10k', rssMB: 120 },
  ];

  it('checks every result a pattern matches, one path segment per *', () => {
    const budget = parseBudget(JSON.stringify({ limits: [{ name: 'e2e/*/50KiB/c1/ficta-passthrough', field: 'addedP50Ms', max: 1 }] }), 'test');
    expect(budget.ok).toBe(true);
    if (!budget.ok) return;
    const checks = checkBudget(budget.value, results);
    expect(checks.map((c) => [c.name, c.ok])).toEqual([
      ['e2e/json/50KiB/c1/ficta-passthrough', true],
      ['e2e/sse/50KiB/c1/ficta-passthrough', false],
    ]);
    const noCross = parseBudget(JSON.stringify({ limits: [{ name: 'e2e/*/ficta-passthrough', field: 'addedP50Ms', max: 1 }] }), 'test');
    expect(noCross.ok && checkBudget(noCross.value, results).every((c) => !c.ok && c.value === undefined)).toBe(true);
  });

  it('fails a limit whose result or field was not measured, and honours min', () => {
    const budget = parseBudget(
      JSON.stringify({
        limits: [
          { name: 'memory/idle/1k', field: 'rssMB', max: 150 },
          { name: 'memory/idle/10k', field: 'peakMB', max: 150 },
          { name: 'memory/idle/10k', field: 'rssMB', min: 130 },
        ],
      }),
      'test',
    );
    expect(budget.ok).toBe(true);
    if (!budget.ok) return;
    expect(checkBudget(budget.value, results).map((c) => [c.value, c.ok])).toEqual([
      [undefined, false],
      [undefined, false],
      [120, false],
    ]);
  });

  it('refuses malformed budgets with the entry at fault', () => {
    const bad = [
      ['not json', /not JSON/],
      [JSON.stringify({ limits: [] }), /non-empty/],
      [JSON.stringify({ limits: [{ name: 'x', field: 'p50' }] }), /limits\[0\] needs "max" or "min"/],
      [JSON.stringify({ limits: [{ name: 'x', field: 'p50', max: 1 }, { name: '', field: 'p50', max: 1 }] }), /limits\[1\]\.name/],
      [JSON.stringify({ limits: [{ name: 'x', field: 'p50', max: '1' }] }), /limits\[0\]\.max/],
    ] as const;
    for (const [text, message] of bad) {
      const r = parseBudget(text, 'b.json');
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.code).toBe('FICTA_BENCH_BUDGET_INVALID');
        expect(r.error.message).toMatch(message);
      }
    }
  });

  it('ships a budget file that parses and states why each limit is what it is', () => {
    const r = parseBudget(readFileSync(BUDGET_FILE, 'utf8'), BUDGET_FILE);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.limits.length).toBeGreaterThan(5);
    for (const l of r.value.limits) expect(l.why ?? '').not.toBe('');
  });
});
