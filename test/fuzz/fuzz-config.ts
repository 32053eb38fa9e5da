// How a fuzz run is sized, read from the environment: the fast mode inside `pnpm test` (fixed base seed,
// a few cases per generator class, a wall-clock cap), `FUZZ=long` (time-bounded, random base seed),
// `FUZZ=random` (fast sizes, random base seed) and `FUZZ_SEED=<class>/<seed>` (replay one case).

import { randomInt } from 'node:crypto';

/** How one fuzz run is sized and seeded. */
export interface FuzzRun {
  mode: 'fast' | 'long' | 'replay';
  /** Every case seed derives from this and the class name. */
  baseSeed: number;
  /** Cases per generator class and round (fast mode: exactly one round). */
  casesPerClass: number;
  /** Wall-clock budget for one suite (requests or responses). */
  budgetMs: number;
  /** Replay: the one case to run. */
  replay: { klass: string; seed: number } | undefined;
  /** Run the classes on the known-failure list too (to see whether their fixes landed). */
  includeKnown: boolean;
  /** Only these classes (FUZZ_CLASS=a,b), or every class. */
  only: ReadonlySet<string> | undefined;
  /** Stop a class after this many failures (the first few seeds are what a human needs). */
  maxFailuresPerClass: number;
}

/** The base seed of the fast mode in `pnpm test`: fixed, so CI runs the same cases every time. */
export const FAST_BASE_SEED = 0x9f17a;
/** Fast mode: cases per class (384 request and 240 response cases when the budget below does not cut a loaded run short). */
export const FAST_CASES_PER_CLASS = 12;
/** Fast mode's wall-clock cap per suite. */
export const FAST_BUDGET_MS = 25_000;
/** Long mode: at least ten minutes per suite unless FUZZ_MINUTES says otherwise. */
export const LONG_DEFAULT_MINUTES = 10;

/** Reads the run from `env` (process.env by default). */
export function readFuzzRun(env: NodeJS.ProcessEnv = process.env): FuzzRun {
  const only = env.FUZZ_CLASS === undefined || env.FUZZ_CLASS === '' ? undefined : new Set(env.FUZZ_CLASS.split(',').map((s) => s.trim()));
  const includeKnown = env.FUZZ_KNOWN === 'run';
  const maxFailuresPerClass = 3;
  const replay = parseReplay(env.FUZZ_SEED);
  if (replay !== undefined) {
    return { mode: 'replay', baseSeed: 0, casesPerClass: 1, budgetMs: 120_000, replay, includeKnown: true, only: new Set([replay.klass]), maxFailuresPerClass };
  }
  const base = env.FUZZ_BASE_SEED !== undefined && env.FUZZ_BASE_SEED !== '' ? Number(env.FUZZ_BASE_SEED) >>> 0 : undefined;
  if (env.FUZZ === 'long') {
    const minutes = env.FUZZ_MINUTES !== undefined && env.FUZZ_MINUTES !== '' ? Number(env.FUZZ_MINUTES) : LONG_DEFAULT_MINUTES;
    return {
      mode: 'long',
      baseSeed: base ?? randomInt(2 ** 31),
      casesPerClass: 8,
      budgetMs: Math.max(0.25, minutes) * 60_000,
      replay: undefined,
      includeKnown,
      only,
      maxFailuresPerClass,
    };
  }
  const cases = env.FUZZ_CASES !== undefined && env.FUZZ_CASES !== '' ? Math.max(1, Number(env.FUZZ_CASES)) : FAST_CASES_PER_CLASS;
  return {
    mode: 'fast',
    baseSeed: base ?? (env.FUZZ === 'random' ? randomInt(2 ** 31) : FAST_BASE_SEED),
    casesPerClass: cases,
    budgetMs: FAST_BUDGET_MS,
    replay: undefined,
    includeKnown,
    only,
    maxFailuresPerClass,
  };
}

/** `class/seed` → the case to replay; undefined when unset; throws on a malformed value. */
function parseReplay(value: string | undefined): { klass: string; seed: number } | undefined {
  if (value === undefined || value === '') return undefined;
  const m = /^([a-z0-9-]+)\/(\d+)$/.exec(value.trim());
  if (m === null) throw new Error(`fuzz: FUZZ_SEED must look like <class>/<seed> (as printed by a failing run), got ${JSON.stringify(value)}`);
  return { klass: m[1] as string, seed: Number(m[2]) >>> 0 };
}

/** The vitest timeout for a suite of this run (budget plus set-up and the last case's slack). */
export function suiteTimeoutMs(run: FuzzRun): number {
  return run.budgetMs + 60_000;
}
