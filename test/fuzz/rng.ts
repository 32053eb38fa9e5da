// The fuzz suite's seeded randomness: one generator per case, derived from a 32-bit case seed, so a
// printed seed replays the exact case. Nothing here reads the clock or Math.random.

/** A seeded source of random choices (mulberry32 underneath). */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [lo, hi] (inclusive). */
  int(lo: number, hi: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** Picks by weight: `[[weight, item], …]`. */
  weighted<T>(items: ReadonlyArray<readonly [number, T]>): T;
  shuffle<T>(items: T[]): T[];
  /** An integer skewed towards small values: mostly under `typical`, sometimes up to `max`. */
  size(typical: number, max: number): number;
}

/** Creates the generator for `seed`. */
export function createRng(seed: number): Rng {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number): number => lo + Math.floor(next() * (hi - lo + 1));
  return {
    next,
    int,
    chance: (p) => next() < p,
    pick<T>(items: readonly T[]): T {
      if (items.length === 0) throw new Error('fuzz: pick from an empty list');
      return items[int(0, items.length - 1)] as T;
    },
    weighted<T>(items: ReadonlyArray<readonly [number, T]>): T {
      let total = 0;
      for (const [w] of items) total += w;
      let r = next() * total;
      for (const [w, item] of items) {
        r -= w;
        if (r < 0) return item;
      }
      return (items[items.length - 1] as readonly [number, T])[1];
    },
    shuffle<T>(items: T[]): T[] {
      for (let i = items.length - 1; i > 0; i--) {
        const j = int(0, i);
        [items[i], items[j]] = [items[j] as T, items[i] as T];
      }
      return items;
    },
    size(typical, max) {
      return next() < 0.85 ? int(0, typical) : int(0, max);
    },
  };
}

/** Mixes strings and numbers into one 32-bit seed (FNV-1a, then a final avalanche). */
export function mixSeed(...parts: ReadonlyArray<string | number>): number {
  let h = 0x811c9dc5;
  for (const p of parts) {
    const s = typeof p === 'number' ? `#${p >>> 0}` : p;
    for (let i = 0; i < s.length; i++) {
      h ^= s.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    h ^= 0xff;
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
