// Tests for the multi-pattern byte automaton: agreement with a naive search on seeded random inputs,
// the ordering contract, chain (slice) boundaries, sub-ranges, arbitrary bytes and 10,000 patterns.

import { describe, expect, it } from 'vitest';
import { createMatcher, type Matcher, type MatchList } from '../../src/redact/matcher.ts';
import { mulberry32 } from '../../src/util/prng.ts';


const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

interface Hit {
  id: number;
  end: number;
}

/** Every occurrence by brute force, in canonical order: end ascending, longer first, then id. */
function naive(patterns: readonly Uint8Array[], buf: Uint8Array, start = 0, end = buf.length): Hit[] {
  const hits: Hit[] = [];
  for (let e = start + 1; e <= end; e++) {
    for (let id = 0; id < patterns.length; id++) {
      const p = patterns[id]!;
      const s = e - p.length;
      if (s < start) continue;
      let j = p.length - 1;
      while (j >= 0 && buf[s + j] === p[j]) j--;
      if (j < 0) hits.push({ id, end: e });
    }
  }
  return hits.sort((a, b) => canonical(patterns, a, b));
}

function canonical(patterns: readonly Uint8Array[], a: Hit, b: Hit): number {
  return a.end - b.end || patterns[b.id]!.length - patterns[a.id]!.length || a.id - b.id;
}

function hitsOf(list: MatchList): Hit[] {
  const hits: Hit[] = [];
  for (let i = 0; i < list.count; i++) hits.push({ id: list.ids[i]!, end: list.ends[i]! });
  return hits;
}

/** Checks the documented order: ends ascending and, for equal ends, longer patterns first. */
function expectOrdered(patterns: readonly Uint8Array[], hits: Hit[]): void {
  for (let i = 1; i < hits.length; i++) {
    const a = hits[i - 1]!;
    const b = hits[i]!;
    const ok = a.end < b.end || (a.end === b.end && patterns[a.id]!.length >= patterns[b.id]!.length);
    if (!ok) expect.fail(`out of order at ${i}: ${JSON.stringify(a)} then ${JSON.stringify(b)}`);
  }
}

/** Scans with the matcher and asserts the same multiset and a valid order as the naive search. */
function expectAgrees(
  m: Matcher,
  patterns: readonly Uint8Array[],
  buf: Uint8Array,
  start?: number,
  end?: number,
): Hit[] {
  const got = hitsOf(m.scan(buf, start, end));
  expectOrdered(patterns, got);
  const want = naive(patterns, buf, start, end);
  expect([...got].sort((a, b) => canonical(patterns, a, b))).toEqual(want);
  expect(m.test(buf, start, end)).toBe(want.length > 0);
  return got;
}

/** Random patterns over a small alphabet, rich in prefixes, suffixes, overlaps and duplicates. */
function randomPatterns(rnd: () => number, alphabet: Uint8Array, n: number, maxLen: number): Uint8Array[] {
  const pick = (): number => alphabet[Math.floor(rnd() * alphabet.length)]!;
  const out: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    const other = out[Math.floor(rnd() * out.length)];
    const r = rnd();
    if (other !== undefined && r < 0.1) {
      out.push(other.slice()); // duplicate
    } else if (other !== undefined && r < 0.25) {
      out.push(other.slice(0, 1 + Math.floor(rnd() * other.length))); // prefix
    } else if (other !== undefined && r < 0.4) {
      out.push(other.slice(Math.floor(rnd() * other.length))); // suffix
    } else if (other !== undefined && r < 0.5 && other.length < maxLen) {
      const p = new Uint8Array(other.length + 1); // extension
      p.set(other);
      p[other.length] = pick();
      out.push(p);
    } else {
      const p = new Uint8Array(1 + Math.floor(rnd() * maxLen));
      for (let j = 0; j < p.length; j++) p[j] = pick();
      out.push(p);
    }
  }
  return out;
}

function randomText(rnd: () => number, alphabet: Uint8Array, n: number): Uint8Array {
  const buf = new Uint8Array(n);
  for (let i = 0; i < n; i++) buf[i] = alphabet[Math.floor(rnd() * alphabet.length)]!;
  return buf;
}

// Lengths around the single/multi-chain threshold and well past it (slices of several KiB).
const TEXT_LENGTHS = [0, 1, 2, 5, 17, 100, 511, 512, 513, 1023, 1024, 1025, 2047, 4099, 9000];

describe('createMatcher', () => {
  it('finds the same occurrences as a naive search on seeded random small-alphabet inputs', () => {
    const rnd = mulberry32(0x5eed);
    const pools = [
      bytes('ab'),
      bytes('abc'),
      Uint8Array.of(0x00, 0xff, 0x61),
      Uint8Array.of(0x00, 0x01, 0xfe, 0xff),
    ];
    let total = 0;
    for (let trial = 0; trial < 120; trial++) {
      const pool = pools[trial % pools.length]!;
      const alphabet = pool.subarray(0, 2 + Math.floor(rnd() * (pool.length - 1)));
      const patterns = randomPatterns(rnd, alphabet, 1 + Math.floor(rnd() * 30), 1 + Math.floor(rnd() * 12));
      const m = createMatcher(patterns);
      for (const n of [TEXT_LENGTHS[trial % TEXT_LENGTHS.length]!, Math.floor(rnd() * 6000)]) {
        // Text drawn from a slightly wider alphabet so the automaton also falls back to the root.
        const text = randomText(rnd, trial % 3 === 0 ? Uint8Array.of(...alphabet, 0x7a) : alphabet, n);
        total += expectAgrees(m, patterns, text).length;
      }
    }
    expect(total).toBeGreaterThan(10_000);
  });

  it('agrees with a naive search when patterns are long and the shortest is long too', () => {
    // minLength large: most of the walk happens on the dense table, deep states only near the end.
    const rnd = mulberry32(7);
    for (let trial = 0; trial < 30; trial++) {
      const alphabet = bytes('xyz').subarray(0, 2 + (trial % 2));
      const seed = randomText(rnd, alphabet, 40);
      const patterns = Array.from({ length: 20 }, () => {
        const p = seed.slice(0, 30 + Math.floor(rnd() * 10));
        p[Math.floor(rnd() * p.length)] = alphabet[Math.floor(rnd() * alphabet.length)]!;
        return p;
      });
      const m = createMatcher(patterns);
      // Text made of pattern copies with noise so long matches occur, overlap and straddle slices.
      const parts: number[] = [];
      while (parts.length < 5000) {
        const p = patterns[Math.floor(rnd() * patterns.length)]!;
        parts.push(...p.subarray(Math.floor(rnd() * 5)));
        if (rnd() < 0.3) parts.push(alphabet[0]!);
      }
      expectAgrees(m, patterns, Uint8Array.from(parts));
    }
  });

  it('reports every position of a run that matches everywhere, across all slice boundaries', () => {
    const patterns = [bytes('aaaa'), bytes('a'), bytes('aaaaaaaaaaaa'), bytes('aaaa')];
    const m = createMatcher(patterns);
    for (const n of [3, 1023, 1024, 4096, 50_001]) {
      const text = new Uint8Array(n).fill(0x61);
      const got = expectAgrees(m, patterns, text);
      expect(got.length).toBe(n + 2 * Math.max(0, n - 3) + Math.max(0, n - 11));
    }
  });

  it('reports a match that straddles each slice boundary at every offset, exactly once', () => {
    const rnd = mulberry32(42);
    const long = randomText(rnd, bytes('0123456789abcdef'), 37);
    for (const patterns of [[long], [long, bytes('zz'), bytes('0z')]]) {
      const m = createMatcher(patterns);
      const n = 8192;
      for (const boundary of [2048, 4096, 6144]) {
        for (let d = -long.length - 1; d <= 1; d++) {
          const text = new Uint8Array(n).fill(0x2e);
          text.set(long, boundary + d);
          const list = m.scan(text);
          expect(hitsOf(list)).toEqual([{ id: 0, end: boundary + d + long.length }]);
        }
      }
    }
  });

  it('finds matches at offset 0 and ending at the very last byte', () => {
    const patterns = [bytes('sk-ant-api03-XYZ'), bytes('ghp_abc'), bytes('c')];
    const m = createMatcher(patterns);
    for (const n of [23, 600, 5000]) {
      const text = new Uint8Array(n).fill(0x20);
      text.set(patterns[0]!, 0);
      text.set(patterns[1]!, n - 7);
      expect(hitsOf(m.scan(text))).toEqual([
        { id: 0, end: 16 },
        { id: 1, end: n },
        { id: 2, end: n },
      ]);
    }
  });

  it('scans only buf[start, end) and reports absolute end offsets', () => {
    const patterns = [bytes('abc'), bytes('bcd'), bytes('cd')];
    const m = createMatcher(patterns);
    const text = bytes('abcd..abcd..abcd');
    expect(hitsOf(m.scan(text, 6, 10))).toEqual([
      { id: 0, end: 9 },
      { id: 1, end: 10 },
      { id: 2, end: 10 },
    ]);
    // Occurrences cut by either edge of the range are not reported.
    expect(hitsOf(m.scan(text, 7, 9))).toEqual([]);
    expect(hitsOf(m.scan(text, 1, 3))).toEqual([]);
    expect(hitsOf(m.scan(text, 12, 15))).toEqual([{ id: 0, end: 15 }]);
    expect(m.test(text, 13, 16)).toBe(true);
    expect(m.test(text, 13, 15)).toBe(false);

    const rnd = mulberry32(99);
    const alphabet = bytes('ab');
    const many = randomPatterns(rnd, alphabet, 25, 8);
    const big = createMatcher(many);
    const long = randomText(rnd, alphabet, 12_000);
    for (let k = 0; k < 20; k++) {
      const a = Math.floor(rnd() * 6000);
      const b = a + Math.floor(rnd() * 6000);
      expectAgrees(big, many, long, a, b);
    }
  });

  it('matches UTF-8 multi-byte text and 0x00 / 0xFF bytes', () => {
    const patterns = [
      bytes('pässwörd-秘密-🔑'),
      Uint8Array.of(0x00, 0xff, 0x00),
      Uint8Array.of(0xff),
      bytes('🔑'),
    ];
    const m = createMatcher(patterns);
    const prose = bytes('été: pässwörd-秘密-🔑 ok ');
    const text = new Uint8Array([...prose, 0x00, 0xff, 0x00, 0xff, 0x00, 0xff]);
    expectAgrees(m, patterns, text);
    const got = hitsOf(m.scan(text));
    expect(got.filter((h) => h.id === 0)).toHaveLength(1);
    expect(got.filter((h) => h.id === 1)).toHaveLength(2);
    expect(got.filter((h) => h.id === 2)).toHaveLength(3);
  });

  it('reports each duplicate pattern index separately, longer patterns first at one end', () => {
    const patterns = [bytes('key'), bytes('a-key'), bytes('key'), bytes('y')];
    const m = createMatcher(patterns);
    const list = m.scan(bytes('my a-key'));
    expect(hitsOf(list)).toEqual([
      { id: 3, end: 2 },
      { id: 1, end: 8 },
      { id: 0, end: 8 },
      { id: 2, end: 8 },
      { id: 3, end: 8 },
    ]);
    expect(m.patternCount).toBe(4);
    expect(m.minLength).toBe(1);
    expect(m.maxLength).toBe(5);
    expect(m.memoryBytes).toBeGreaterThan(0);
  });

  it('finds planted secrets among 10,000 registered patterns and nothing else', () => {
    const rnd = mulberry32(10_000);
    const chars = bytes('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789');
    const prefixes = ['sk-ant-api03-', 'ghp_', 'AKIA', 'xoxb-'].map(bytes);
    const patterns = Array.from({ length: 10_000 }, (_, i) => {
      const prefix = prefixes[i % prefixes.length]!;
      const p = new Uint8Array(prefix === prefixes[2] ? 20 : 40);
      p.set(prefix);
      for (let j = prefix.length; j < p.length; j++) p[j] = chars[Math.floor(rnd() * chars.length)]!;
      return p;
    });
    const m = createMatcher(patterns);
    expect(m.minLength).toBe(20);
    expect(m.maxLength).toBe(40);

    const prose = bytes('{"role":"user","content":"please check sk-ant- and ghp_ and AKIA in config"} ');
    const text = new Uint8Array(200_000);
    for (let at = 0; at < text.length; at += prose.length) text.set(prose.subarray(0, text.length - at), at);
    expect(m.scan(text).count).toBe(0);
    expect(m.test(text)).toBe(false);

    const want: Hit[] = [];
    for (let k = 0; k < 50; k++) {
      const id = Math.floor(rnd() * patterns.length);
      const at = k * 4000 + Math.floor(rnd() * 3000);
      text.set(patterns[id]!, at);
      want.push({ id, end: at + patterns[id]!.length });
    }
    expect(hitsOf(m.scan(text))).toEqual(want);
    expect(m.test(text)).toBe(true);
  });

  it('agrees with a naive search when 3-byte anchors sit among 1,000 long patterns', () => {
    const rnd = mulberry32(0xa7c);
    const chars = bytes('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-');
    const long = Array.from({ length: 1000 }, () => randomText(rnd, chars, 20 + Math.floor(rnd() * 20)));
    // Anchors that are prefixes, suffixes and infixes of long patterns, and others of their own.
    const anchors = ['ghp_', 'sk-', 'AKIA', 'xox', 'hf_', 'SG.', '://', 'eyJ'].map(bytes);
    for (let k = 0; k < 12; k++) {
      const p = long[k]!;
      const at = Math.floor(rnd() * (p.length - 3));
      anchors.push(p.slice(at, at + 3));
    }
    const patterns = [...long, ...anchors];
    const m = createMatcher(patterns);
    expect(m.minLength).toBe(3);
    for (let trial = 0; trial < 12; trial++) {
      const parts: number[] = [];
      while (parts.length < 3000 + trial * 700) {
        const r = rnd();
        const src = r < 0.3 ? patterns[Math.floor(rnd() * patterns.length)]! : randomText(rnd, bytes('abc ghp_sk-AKIA:/eyJ'), 8);
        parts.push(...src.subarray(Math.floor(rnd() * 3)));
      }
      expectAgrees(m, patterns, Uint8Array.from(parts));
    }
  });

  it('returns the shared empty list when nothing matched, including with zero patterns', () => {
    const none = createMatcher([]);
    expect(none.patternCount).toBe(0);
    expect(none.scan(bytes('anything')).count).toBe(0);
    expect(none.test(bytes('anything'))).toBe(false);

    const m = createMatcher([bytes('needle')]);
    const first = m.scan(new Uint8Array(5000));
    expect(first.count).toBe(0);
    expect(Object.isFrozen(first)).toBe(true);
    expect(m.scan(bytes('hay'))).toBe(first);
    expect(none.scan(new Uint8Array(0))).toBe(first);
  });

  it('reports every match in a scan that follows a test() which stopped at a hit', () => {
    const patterns = [bytes('needle')];
    const m = createMatcher(patterns);
    const text = new Uint8Array(4096).fill(0x2e);
    for (const at of [10, 1500, 2600, 4000]) text.set(patterns[0]!, at);
    expect(m.test(text)).toBe(true);
    expect(hitsOf(m.scan(text)).map((h) => h.end)).toEqual([16, 1506, 2606, 4006]);
  });

  it('returns fresh arrays for each scan with hits', () => {
    const m = createMatcher([bytes('ab')]);
    const a = m.scan(bytes('abab'));
    const b = m.scan(bytes('xab'));
    expect(hitsOf(a)).toEqual([
      { id: 0, end: 2 },
      { id: 0, end: 4 },
    ]);
    expect(hitsOf(b)).toEqual([{ id: 0, end: 3 }]);
  });

  it('rejects an empty pattern and an out-of-bounds range', () => {
    expect(() => createMatcher([bytes('a'), new Uint8Array(0)])).toThrow(RangeError);
    const m = createMatcher([bytes('a')]);
    expect(() => m.scan(bytes('abc'), 2, 1)).toThrow(RangeError);
    expect(() => m.scan(bytes('abc'), 0, 4)).toThrow(RangeError);
    expect(() => m.test(bytes('abc'), -1)).toThrow(RangeError);
  });
});
