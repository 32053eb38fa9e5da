// Overhead budgets: a JSON file of limits on named benchmark figures ("added p50 of a 50 KiB request
// through a redacting ficta ≤ 0.8 ms"), checked against a run's results so CI can fail a slower build.
// A limit whose figure was not measured fails too: a budget that silently checks nothing is no gate.

import { readFileSync } from 'node:fs';
import { FictaError } from '../errors.ts';
import { err, ok, type Result } from '../util/result.ts';

export interface BudgetLimit {
  /** Result name; `*` matches one path segment (`e2e/*\/50KiB/c16/ficta-redact-1k`). */
  name: string;
  /** The result's numeric field: `addedP50Ms`, `cpuMsPerReq`, `p50`, `msPerMB`, `rssMB`, … */
  field: string;
  max?: number;
  min?: number;
  /** Why this limit (shown when it is exceeded). */
  why?: string;
}

export interface Budget {
  limits: BudgetLimit[];
}

export interface BudgetCheck {
  name: string;
  field: string;
  limit: string;
  value: number | undefined;
  ok: boolean;
  why?: string;
}

/** Parses a budget file's text; errors name the entry at fault. */
export function parseBudget(text: string, source: string): Result<Budget> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (cause) {
    return err(new FictaError('FICTA_BENCH_BUDGET_INVALID', `bench: budget ${source} is not JSON`, { cause }));
  }
  const limits = (raw as { limits?: unknown } | null)?.limits;
  if (!Array.isArray(limits) || limits.length === 0) return err(invalid(source, '"limits" must be a non-empty array'));
  const out: BudgetLimit[] = [];
  for (const [i, l] of limits.entries()) {
    const e = l as Record<string, unknown> | null;
    if (typeof e?.name !== 'string' || e.name === '') return err(invalid(source, `limits[${i}].name must be a result name`));
    if (typeof e.field !== 'string' || e.field === '') return err(invalid(source, `limits[${i}].field must name a numeric field`));
    const max = e.max;
    const min = e.min;
    if (max !== undefined && (typeof max !== 'number' || !Number.isFinite(max))) return err(invalid(source, `limits[${i}].max must be a number`));
    if (min !== undefined && (typeof min !== 'number' || !Number.isFinite(min))) return err(invalid(source, `limits[${i}].min must be a number`));
    if (max === undefined && min === undefined) return err(invalid(source, `limits[${i}] needs "max" or "min"`));
    const limit: BudgetLimit = { name: e.name, field: e.field };
    if (typeof max === 'number') limit.max = max;
    if (typeof min === 'number') limit.min = min;
    if (typeof e.why === 'string') limit.why = e.why;
    out.push(limit);
  }
  return ok({ limits: out });
}

/** Reads and parses a budget file. */
export function readBudget(path: string): Result<Budget> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    return err(new FictaError('FICTA_BENCH_BUDGET_INVALID', `bench: cannot read budget ${path} (${(cause as NodeJS.ErrnoException).code ?? 'error'})`, { cause }));
  }
  return parseBudget(text, path);
}

/** Checks every limit against the results; a pattern that matches no result is a failed check. */
export function checkBudget(budget: Budget, results: ReadonlyArray<{ name: string }>): BudgetCheck[] {
  const checks: BudgetCheck[] = [];
  for (const l of budget.limits) {
    const re = patternToRegExp(l.name);
    const matched = results.filter((r) => re.test(r.name));
    const limit = [l.min === undefined ? '' : `≥ ${l.min}`, l.max === undefined ? '' : `≤ ${l.max}`].filter((s) => s !== '').join(', ');
    const base = { field: l.field, limit, ...(l.why === undefined ? {} : { why: l.why }) };
    if (matched.length === 0) {
      checks.push({ name: l.name, ...base, value: undefined, ok: false });
      continue;
    }
    for (const r of matched) {
      const v = (r as Record<string, unknown>)[l.field];
      const value = typeof v === 'number' && Number.isFinite(v) ? v : undefined;
      const okay = value !== undefined && (l.max === undefined || value <= l.max) && (l.min === undefined || value >= l.min);
      checks.push({ name: r.name, ...base, value, ok: okay });
    }
  }
  return checks;
}

function patternToRegExp(pattern: string): RegExp {
  const escaped = pattern.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('[^/]*')}$`);
}

function invalid(source: string, what: string): FictaError {
  return new FictaError('FICTA_BENCH_BUDGET_INVALID', `bench: budget ${source}: ${what}`);
}
