// Pattern families (a base plus each byte that may follow it: detection's extended anchors) build the same
// automaton as their members written out one by one: every table equal, on the detectors' real anchors
// alone and beside registered values, and on random families that share bases, prefixes and members with
// the plain patterns (a member equal to a pattern, a base that is a pattern, two families on one base, a
// family without members, an empty base).

import { describe, expect, it } from 'vitest';
import { createDetector } from '../../src/detect/detector.ts';
import { buildTables, type BuiltTables, type PatternFamily } from '../../src/redact/matcher-build.ts';
import { createMatcher } from '../../src/redact/matcher.ts';
import { mulberry32 } from '../../src/util/prng.ts';

function members(families: readonly PatternFamily[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const { base, follows } of families) {
    for (let b = 0; b < 256; b++) {
      if (follows[b] !== 1) continue;
      const p = new Uint8Array(base.length + 1);
      p.set(base);
      p[base.length] = b;
      out.push(p);
    }
  }
  return out;
}

function expectSame(a: BuiltTables, b: BuiltTables): void {
  expect(a.count).toBe(b.count);
  expect(a.minLen).toBe(b.minLen);
  expect(a.maxLen).toBe(b.maxLen);
  for (const k of Object.keys(a.tables) as Array<keyof BuiltTables['tables']>) {
    const x = a.tables[k];
    const y = b.tables[k];
    if (typeof x === 'number') expect(x, k).toBe(y);
    else expect(Buffer.from((x as Int32Array).buffer, (x as Int32Array).byteOffset, (x as Int32Array).byteLength).equals(Buffer.from((y as Int32Array).buffer, (y as Int32Array).byteOffset, (y as Int32Array).byteLength)), k).toBe(true);
  }
}

const detector = createDetector({});
const anchorFamilies: PatternFamily[] = detector.anchors.map((base, id) => ({ base, follows: detector.follows[id] as Uint8Array }));

describe('pattern families', () => {
  it("the detectors' anchors, extended by the bytes that may follow them, build the same tables as written out", () => {
    const written = members(anchorFamilies);
    expect(written.length).toBeGreaterThan(5000);
    expectSame(buildTables([], anchorFamilies), buildTables(written));
  });

  it('beside registered values (some sharing prefixes with anchors), the same tables', () => {
    const rnd = mulberry32(0xfa);
    const values: Uint8Array[] = [];
    const stems = ['ghp_', 'sk-proj-', 'AKIA', 'xoxb-', 'pat', '://', 'plain-', ''];
    for (let i = 0; i < 300; i++) {
      const stem = stems[Math.floor(rnd() * stems.length)] as string;
      let s = stem;
      const n = 4 + Math.floor(rnd() * 30);
      for (let j = 0; j < n; j++) s += String.fromCharCode(33 + Math.floor(rnd() * 94));
      values.push(Buffer.from(s, 'latin1'));
    }
    expectSame(buildTables(values, anchorFamilies), buildTables([...values, ...members(anchorFamilies)]));
  });

  it('random families over a small alphabet, overlapping each other and the plain patterns', () => {
    const rnd = mulberry32(0xbee);
    const word = (max: number): Uint8Array => {
      const n = Math.floor(rnd() * (max + 1));
      return Uint8Array.from({ length: n }, () => 97 + Math.floor(rnd() * 4));
    };
    for (let round = 0; round < 200; round++) {
      const plain = Array.from({ length: Math.floor(rnd() * 12) }, () => word(5)).filter((p) => p.length > 0);
      const families: PatternFamily[] = [];
      const nf = Math.floor(rnd() * 6);
      for (let f = 0; f < nf; f++) {
        // A base taken from a plain pattern (or a prefix of one) half the time; bytes from the same alphabet and a few others.
        const from = plain.length > 0 && rnd() < 0.5 ? (plain[Math.floor(rnd() * plain.length)] as Uint8Array) : word(4);
        const base = from.subarray(0, Math.floor(rnd() * (from.length + 1)));
        const follows = new Uint8Array(256);
        const k = Math.floor(rnd() * 5);
        for (let j = 0; j < k; j++) follows[rnd() < 0.8 ? 97 + Math.floor(rnd() * 5) : Math.floor(rnd() * 256)] = 1;
        families.push({ base, follows });
        if (rnd() < 0.2) families.push({ base: Uint8Array.from(base), follows: follows.slice() });
      }
      const written = [...plain, ...members(families)];
      const got = buildTables(plain, families);
      expectSame(got, buildTables(written));
      if (written.length === 0) continue;
      // And the scans agree, id for id.
      const text = word(300);
      const a = createMatcher(plain, families).scan(text);
      const b = createMatcher(written).scan(text);
      expect(Array.from(a.ids.subarray(0, a.count))).toEqual(Array.from(b.ids.subarray(0, b.count)));
      expect(Array.from(a.ends.subarray(0, a.count))).toEqual(Array.from(b.ends.subarray(0, b.count)));
    }
  });
});
