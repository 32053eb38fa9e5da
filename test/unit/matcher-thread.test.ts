// A secret set built with its automaton in a worker and the rest in slices is the same set as one built
// in place: the same hits, placeholders and restores (plain and gateway sets, detection on).

import { describe, expect, it } from 'vitest';
import { createDetector } from '../../src/detect/detector.ts';
import { createDetectedStore } from '../../src/detect/store.ts';
import { createGatewayKeys } from '../../src/gateway/tenant-placeholder.ts';
import { tenantSet } from '../../src/gateway/tenant-set.ts';
import { makeSecrets } from '../../src/bench/corpus.ts';
import { redactBody } from '../../src/redact/body.ts';
import { buildSecretSetOffThread, matcherWorkerFallbacks } from '../../src/redact/matcher-thread.ts';
import { buildSecretSet, type SecretInput } from '../../src/redact/secret-set.ts';

const KEY = Buffer.alloc(32, 4);

describe('building off the event loop', () => {
  it('builds the same automaton in a worker as in place', async () => {
    const entries = ['alpha-secret', 'beta', 'alphabet', 'a"b\\c', 'ünïcode-välue'].map((value, i) => ({ name: `P${i}`, value }));
    const inWorker = await buildSecretSetOffThread(entries, KEY);
    const here = buildSecretSet(entries, KEY);
    const text = Buffer.from('xx alpha-secret alphabet beta a"b\\c a\\"b\\\\c ünïcode-välue alphabeta');
    const a = inWorker.matcher.scan(text);
    const b = here.matcher.scan(text);
    expect([...a.ids.subarray(0, a.count)]).toEqual([...b.ids.subarray(0, b.count)]);
    expect([...a.ends.subarray(0, a.count)]).toEqual([...b.ends.subarray(0, b.count)]);
    expect(a.count).toBe(8);
    expect([...inWorker.patternSecret]).toEqual([...here.patternSecret]);
    expect([...inWorker.patternDepth]).toEqual([...here.patternDepth]);
    expect(matcherWorkerFallbacks()).toBe(0);
  });

  it('gives the same set (plain and gateway, detection on) as buildSecretSet', async () => {
    const entries: SecretInput[] = Object.entries(makeSecrets(1500, 7)).map(([name, value], i) => ({ name, value, source: `s${i % 3}`, groups: [`g${i % 3}`] }));
    const keys = createGatewayKeys(KEY);
    const detection = () => ({ detector: createDetector(), store: createDetectedStore({ fingerprint: (v: string) => keys.fingerprint(v) }), mode: 'redact' as const });
    const body = Buffer.from(JSON.stringify({ content: `a ${entries[3]!.value} b ${entries[1499]!.value} c ghp_${'A'.repeat(36)}` }));
    const plain = [buildSecretSet(entries, KEY), await buildSecretSetOffThread(entries, KEY)];
    expect(plain[1]!.placeholders).toEqual(plain[0]!.placeholders);
    const outs = plain.map((s) => redactBody(s, body, 'json', new Map()).bytes.toString());
    expect(outs[1]).toBe(outs[0]);
    const gw = [buildSecretSet(entries, KEY, detection(), keys), await buildSecretSetOffThread(entries, KEY, detection(), keys)];
    const tenant = { name: 't', groups: ['g0'] };
    const gwOuts = gw.map((s) => redactBody(tenantSet(s, tenant), body, 'json', new Map()).bytes.toString());
    expect(gwOuts[1]).toBe(gwOuts[0]);
    expect(gwOuts[0]).not.toContain(entries[3]!.value);
    expect(gw[1]!.gateway!.classGroups).toEqual(gw[0]!.gateway!.classGroups);
    expect([...gw[1]!.gateway!.classOf]).toEqual([...gw[0]!.gateway!.classOf]);
    expect(matcherWorkerFallbacks()).toBe(0);
  });
});
