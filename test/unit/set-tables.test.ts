// The tables a secret set is built from (src/redact/set-tables.ts): the fingerprint table every tenant's
// restore reads (found, unknown, shared by two values), and a gateway set built in a worker and in place
// agreeing on every fingerprint and entitlement class.

import { describe, expect, it } from 'vitest';
import { createGatewayKeys } from '../../src/gateway/tenant-placeholder.ts';
import { buildSecretSetOffThread } from '../../src/redact/matcher-thread.ts';
import { AMBIGUOUS, buildSecretSet, type SecretInput } from '../../src/redact/secret-set.ts';
import { fingerprintSlots, lookupFingerprint } from '../../src/redact/set-tables.ts';
import { mulberry32 } from '../../src/util/prng.ts';

const fp = (codes: Uint16Array, i: number): string => String.fromCharCode(...codes.subarray(i * 4, i * 4 + 4));

describe('the fingerprint table', () => {
  it('finds every fingerprint, misses unknown ones, and marks one two values share as ambiguous', () => {
    const prng = mulberry32(5);
    const n = 5000;
    const codes = new Uint16Array(n * 4).map(() => Math.floor(prng() * 65536));
    // Values 10 and 4000 share a fingerprint; so do 20, 21 and 22 (three of them).
    codes.set(codes.subarray(40, 44), 4000 * 4);
    codes.set(codes.subarray(80, 84), 21 * 4);
    codes.set(codes.subarray(80, 84), 22 * 4);
    // Same low 32 bits (same first slot) but a different high half: must not be confused.
    codes.set([codes[4 * 7]! ^ 1, codes[4 * 7 + 1]!, codes[4 * 7 + 2]!, codes[4 * 7 + 3]!], 4 * 8);
    const slots = fingerprintSlots(codes);
    expect(slots.length).toBeGreaterThanOrEqual(2 * n);
    for (let i = 0; i < n; i++) {
      const want = [10, 4000, 20, 21, 22].includes(i) ? AMBIGUOUS : i;
      expect(lookupFingerprint(codes, slots, fp(codes, i))).toBe(want);
    }
    let misses = 0;
    for (let k = 0; k < 2000; k++) {
      const probe = String.fromCharCode(...Array.from({ length: 4 }, () => Math.floor(prng() * 65536)));
      if (lookupFingerprint(codes, slots, probe) === -1) misses++;
    }
    expect(misses).toBe(2000);
    expect(lookupFingerprint(codes, slots, 'abc')).toBe(-1);
    expect(lookupFingerprint(new Uint16Array(0), fingerprintSlots(new Uint16Array(0)), 'abcd')).toBe(-1);
  });

  it('gives a set built in a worker the fingerprints and classes of one built in place', async () => {
    const keys = createGatewayKeys(Buffer.alloc(32, 9));
    const groupsA = ['a'];
    const groupsB = ['b', 'c'];
    const entries: SecretInput[] = [];
    for (let i = 0; i < 3000; i++) entries.push({ name: `S${i}`, value: `value-${i}-${'x'.repeat(i % 17)}`, source: i % 2 === 0 ? 'one' : 'two', groups: i % 2 === 0 ? groupsA : groupsB });
    // A value in both sources: its class is the union of both.
    entries.push({ name: 'SHARED', value: 'value-1-x', source: 'one', groups: groupsA });
    const key = Buffer.alloc(32, 1);
    const here = buildSecretSet(entries, key, undefined, keys);
    const there = await buildSecretSetOffThread(entries, key, undefined, keys);
    expect(there.size).toBe(here.size);
    expect(there.names).toEqual(here.names);
    for (let i = 0; i < here.size; i++) {
      const f = keys.fingerprint(here.values[i]!);
      expect(here.gateway!.fingerprintOf(i)).toBe(f);
      expect(there.gateway!.fingerprintOf(i)).toBe(f);
      expect(there.gateway!.lookup(f)).toBe(i);
    }
    const shared = here.values.indexOf('value-1-x');
    expect(here.names[shared]).toBe('S1|SHARED');
    const cls = there.gateway!.classOf[shared]!;
    expect(there.gateway!.classSources[cls]).toEqual(['one', 'two']);
    expect(there.gateway!.classGroups[cls]).toEqual(['a', 'b', 'c']);
    expect([...there.gateway!.classOf]).toEqual([...here.gateway!.classOf]);
    expect(there.gateway!.classGroups).toEqual(here.gateway!.classGroups);
  });
});
