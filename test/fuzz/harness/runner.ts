// Runs generator classes case by case under a run's budget: seeds per class and case, the known-failure
// list (skipped classes are printed), a per-case time limit, per-class tallies, and the replay line for
// every failure. Prints how many cases ran.

import type { FuzzRun } from '../fuzz-config.ts';
import { createRng, mixSeed, type Rng } from '../rng.ts';

export interface CaseResult {
  ok: boolean;
  problems: string[];
  /** A tally label (e.g. "forwarded", "refused 403"). */
  outcome: string;
  /** What happened on the wire, printed for a failing case when replaying (may show the case's content). */
  detail?: () => string;
}

/** One generator class: how to build a case from a seed and how to run and judge it. */
export interface FuzzClass<C> {
  name: string;
  /** One line on what the class generates. */
  about: string;
  generate(rng: Rng, seed: number): C;
  run(c: C): Promise<CaseResult>;
  /** Extra words printed for a failing case when replaying (may show the case's content). */
  describe?(c: C): string;
  /**
   * Its values sit where they can be redacted, so most cases must be forwarded: a proxy that refused
   * everything would otherwise pass a leak oracle untested.
   */
  mostlyForwarded?: boolean;
}

export interface Failure {
  klass: string;
  seed: number;
  problems: string[];
}

export interface RunSummary {
  cases: number;
  failures: Failure[];
  lines: string[];
}

/** Longest a single case may take before it counts as a stall. */
const CASE_TIMEOUT_MS = 30_000;

/** Runs `classes` under `run`; `known` maps a class to the reason it is skipped. */
export async function runClasses(suite: string, classes: ReadonlyArray<FuzzClass<any>>, run: FuzzRun, known: Readonly<Record<string, string>>): Promise<RunSummary> {
  const lines: string[] = [];
  const say = (s: string): void => {
    lines.push(s);
  };
  const started = Date.now();
  const active = classes.filter((c) => run.only === undefined || run.only.has(c.name));
  const runnable = active.filter((c) => run.includeKnown || known[c.name] === undefined);
  say(`fuzz ${suite}: mode ${run.mode}, base seed ${run.baseSeed}, ${runnable.length} classes, budget ${Math.round(run.budgetMs / 1000)} s`);
  for (const c of active) if (!runnable.includes(c)) say(`  skipped (known failure): ${c.name} — ${known[c.name]}`);
  const tally = new Map<string, { cases: number; failed: number; outcomes: Map<string, number>; maxMs: number; slowSeed: number }>();
  for (const c of runnable) tally.set(c.name, { cases: 0, failed: 0, outcomes: new Map(), maxMs: 0, slowSeed: 0 });
  const failures: Failure[] = [];
  let cases = 0;
  let outOfTime = false;

  const one = async (klass: FuzzClass<any>, seed: number): Promise<void> => {
    const t = tally.get(klass.name) as { cases: number; failed: number; outcomes: Map<string, number>; maxMs: number; slowSeed: number };
    if (t.failed >= run.maxFailuresPerClass) return;
    const t0 = Date.now();
    let result: CaseResult;
    let generated: unknown;
    try {
      generated = klass.generate(createRng(seed), seed);
      result = await withTimeout(klass.run(generated), CASE_TIMEOUT_MS);
    } catch (e) {
      result = { ok: false, problems: [`harness error: ${(e as Error).message}`], outcome: 'error' };
    }
    const ms = Date.now() - t0;
    cases++;
    t.cases++;
    if (ms > t.maxMs) {
      t.maxMs = ms;
      t.slowSeed = seed;
    }
    t.outcomes.set(result.outcome, (t.outcomes.get(result.outcome) ?? 0) + 1);
    if (!result.ok) {
      t.failed++;
      failures.push({ klass: klass.name, seed, problems: result.problems });
      if (run.mode === 'replay' && klass.describe !== undefined && generated !== undefined) say(klass.describe(generated));
      if (run.mode === 'replay' && result.detail !== undefined) say(result.detail());
    }
  };

  if (run.replay !== undefined) {
    const klass = classes.find((c) => c.name === run.replay?.klass);
    if (klass !== undefined) await one(klass, run.replay.seed);
  } else {
    for (let round = 0; !outOfTime; round++) {
      for (const klass of runnable) {
        for (let i = 0; i < run.casesPerClass && !outOfTime; i++) {
          await one(klass, mixSeed(run.baseSeed, klass.name, round, i));
          outOfTime = Date.now() - started > run.budgetMs;
        }
        if (outOfTime) break;
      }
      if (run.mode !== 'long') break;
    }
  }

  for (const klass of runnable) {
    const t = tally.get(klass.name);
    if (klass.mostlyForwarded !== true || t === undefined || t.cases < 4) continue;
    // A refused registration (a rejected env file) is not a refused request.
    const forwarded = (t.outcomes.get('forwarded') ?? 0) + (t.outcomes.get('registration refused') ?? 0);
    if (forwarded * 2 < t.cases) failures.push({ klass: klass.name, seed: 0, problems: [`only ${forwarded} of ${t.cases} cases were forwarded: the proxy refuses what it should redact`] });
  }
  for (const [name, t] of tally) {
    if (t.cases === 0) continue;
    const outcomes = [...t.outcomes.entries()].map(([k, v]) => `${k} ${v}`).join(', ');
    say(`  ${name}: ${t.cases} cases (${outcomes})${t.failed > 0 ? `, ${t.failed} FAILED` : ''}, slowest ${t.maxMs} ms (seed ${t.slowSeed})`);
  }
  say(`fuzz ${suite}: ${cases} cases in ${((Date.now() - started) / 1000).toFixed(1)} s${outOfTime && run.mode === 'fast' ? ' (stopped at the budget)' : ''}, ${failures.length} failed`);
  for (const f of failures) {
    say(`  FAIL ${f.klass} — replay: FUZZ_SEED=${f.klass}/${f.seed} pnpm exec vitest run test/fuzz/${suite}.test.ts`);
    for (const p of f.problems.slice(0, 6)) say(`    ${p}`);
  }
  return { cases, failures, lines };
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`stalled: no verdict within ${ms} ms`)), ms);
    }),
  ]);
}
