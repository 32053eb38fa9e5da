// Summary statistics for benchmark samples: percentiles, a distribution-free 95 % confidence interval
// of the median, and a seeded bootstrap interval for the difference of two medians (DESIGN §6: a
// change counts only when its interval excludes zero).

import { mulberry32 } from '../util/prng.ts';

export interface Summary {
  samples: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
  /** 95 % confidence interval of the median (order statistics; [p50, p50] below 6 samples). */
  ci95: [number, number];
}

/** Bootstrap resamples for {@link diffOfMedians}: the interval's ends move < 2 % between seeds at 2,000. */
const BOOTSTRAP_RESAMPLES = 2_000;

/** Largest sample a bootstrap draws from each side (a uniform subsample beyond it keeps it fast). */
const BOOTSTRAP_MAX_SAMPLES = 4_000;

/** The q-quantile (0…1) of ascending `sorted`, by linear interpolation. */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const at = (n - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.min(n - 1, lo + 1);
  return (sorted[lo] as number) + ((sorted[hi] as number) - (sorted[lo] as number)) * (at - lo);
}

/** Percentiles, mean and the median's 95 % interval of `values` (any order; not modified). */
export function summarize(values: ArrayLike<number>): Summary {
  const sorted = Float64Array.from(values).sort();
  const n = sorted.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += sorted[i] as number;
  const p50 = quantile(sorted, 0.5);
  return {
    samples: n,
    p50,
    p95: quantile(sorted, 0.95),
    p99: quantile(sorted, 0.99),
    mean: n === 0 ? Number.NaN : sum / n,
    min: n === 0 ? Number.NaN : (sorted[0] as number),
    max: n === 0 ? Number.NaN : (sorted[n - 1] as number),
    ci95: medianInterval(sorted),
  };
}

/** 95 % interval of the median from order statistics: ranks n/2 ± 1.96·√n/2 (normal approximation). */
function medianInterval(sorted: Float64Array): [number, number] {
  const n = sorted.length;
  if (n < 6) {
    const m = quantile(sorted, 0.5);
    return [m, m];
  }
  const half = (1.96 * Math.sqrt(n)) / 2;
  const lo = Math.max(0, Math.floor(n / 2 - half));
  const hi = Math.min(n - 1, Math.ceil(n / 2 + half));
  return [sorted[lo] as number, sorted[hi] as number];
}

export interface Difference {
  /** median(a) − median(b). */
  delta: number;
  ci95: [number, number];
  /** The interval excludes zero. */
  significant: boolean;
}

/** median(a) − median(b) with a seeded percentile-bootstrap 95 % interval. */
export function diffOfMedians(a: ArrayLike<number>, b: ArrayLike<number>, seed = 1): Difference {
  const rnd = mulberry32(seed);
  const sa = subsample(a, rnd);
  const sb = subsample(b, rnd);
  const delta = quantile(Float64Array.from(a).sort(), 0.5) - quantile(Float64Array.from(b).sort(), 0.5);
  if (sa.length < 2 || sb.length < 2) return { delta, ci95: [delta, delta], significant: false };
  const ra = new Float64Array(sa.length);
  const rb = new Float64Array(sb.length);
  const deltas = new Float64Array(BOOTSTRAP_RESAMPLES);
  for (let r = 0; r < BOOTSTRAP_RESAMPLES; r++) {
    for (let i = 0; i < ra.length; i++) ra[i] = sa[Math.floor(rnd() * sa.length)] as number;
    for (let i = 0; i < rb.length; i++) rb[i] = sb[Math.floor(rnd() * sb.length)] as number;
    deltas[r] = select(ra, ra.length >> 1) - select(rb, rb.length >> 1);
  }
  deltas.sort();
  const ci95: [number, number] = [quantile(deltas, 0.025), quantile(deltas, 0.975)];
  return { delta, ci95, significant: ci95[0] > 0 || ci95[1] < 0 };
}

function subsample(values: ArrayLike<number>, rnd: () => number): Float64Array {
  if (values.length <= BOOTSTRAP_MAX_SAMPLES) return Float64Array.from(values);
  const out = new Float64Array(BOOTSTRAP_MAX_SAMPLES);
  for (let i = 0; i < out.length; i++) out[i] = values[Math.floor(rnd() * values.length)] as number;
  return out;
}

/** The k-th smallest element (Hoare's selection; reorders `a`). */
function select(a: Float64Array, k: number): number {
  let lo = 0;
  let hi = a.length - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >> 1] as number;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while ((a[i] as number) < pivot) i++;
      while ((a[j] as number) > pivot) j--;
      if (i <= j) {
        const t = a[i] as number;
        a[i] = a[j] as number;
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k] as number;
  }
  return a[k] as number;
}

/** Median of a small list (per-run figures across runs). */
export function median(values: readonly number[]): number {
  return quantile(Float64Array.from(values).sort(), 0.5);
}
