// Overlapping hits (fuzz json-ascii-nested/2308825726 and /1862188491, found by FUZZ=long): a match that
// only exists across the quotes between two strings a decoded view merged is no value at all, and where real
// hits overlap, the choice covering the most bytes is replaced — never a long hit that leaves the rest of
// the values it overlaps in plain sight.

import { describe, expect, it } from 'vitest';
import { redactBody } from '../../src/redact/body.ts';
import { gateRequest } from '../../src/redact/gate.ts';
import { selectHits } from '../../src/redact/inspect.ts';
import type { SecretSet } from '../../src/redact/secret-set.ts';
import { ph, testSet } from '../helpers/secret-set.ts';

function redactJson(set: SecretSet, body: string): string {
  const out = redactBody(set, Buffer.from(body), 'json', new Map()).bytes;
  expect(gateRequest(set, { target: '/', headers: [], body: out, bodyKind: 'json' })).toEqual([]);
  return out.toString();
}

describe('matches across the strings a decoded view merged', () => {
  it('are not values: the value inside the string is replaced, and the quotes after it stay', () => {
    // LONG is SHORT followed by `"}`; the nested string ends with SHORT, then its closing quote and brace.
    const SHORT = "tok-é'\"";
    const LONG = `${SHORT}"}`;
    const set = testSet({ SHORT, LONG });
    // Two body strings far apart, each holding JSON text whose string has a \u escape one level down: their
    // decoded texts lie side by side in one view, and the two nested strings' pieces were merged there.
    const first = JSON.stringify({ k: 'tok-\\u00e9\'"' }).replace('\\\\u00e9', '\\u00e9');
    const second = JSON.stringify({ m: '\\u00e9 x' }).replace('\\\\u00e9', '\\u00e9');
    const body = JSON.stringify({ a: first, pad: 'p'.repeat(100), b: second });
    const inner = JSON.parse((JSON.parse(body) as { a: string }).a) as { k: string };
    expect(inner.k).toBe(SHORT);
    const out = JSON.parse(redactJson(set, body)) as { a: string; b: string };
    expect(JSON.parse(out.a)).toEqual({ k: ph(set, SHORT) });
    expect(JSON.parse(out.b)).toEqual({ m: 'é x' });
  });
});

describe('overlapping hits', () => {
  it('replace the values that cover the most bytes, leaving none of them partly in sight', () => {
    const X = 'abcdefgh12345678';
    const Y = '0000abcdefgh';
    const Z = '12345678zzzz';
    const set = testSet({ X, Y, Z });
    expect(redactJson(set, `{"t":"<${Y.slice(0, 4)}${X}${Z.slice(8)}>"}`)).toBe(`{"t":"<${ph(set, Y)}${ph(set, Z)}>"}`);
    // One value inside another: the longer one.
    expect(redactJson(set, `{"t":"${Y}"}`)).toBe(`{"t":"${ph(set, Y)}"}`);
  });

  it('keep both of two values that meet at a backslash, rather than one read across their shared escape', () => {
    // Level 1 reads `tok-abc\` then `\Zdef-123`: a view decoding once more (for the \u0041 after them) reads
    // the two backslashes as one escape, and there finds `\Zdef-123` reaching back into the first value.
    const A = 'tok-abc\\';
    const B = '\\Zdef-123';
    const set = testSet({ A, B });
    const body = JSON.stringify({ t: `${A}${B} \\u0041` });
    expect(redactJson(set, body)).toBe(JSON.stringify({ t: `${ph(set, A)}${ph(set, B)} \\u0041` }));
  });

  it('resolve a long cluster (one value repeated with overlaps) by taking every other copy', () => {
    const hits = Array.from({ length: 100_000 }, (_, i) => ({ start: i * 3, end: i * 3 + 6, secret: 0 }));
    const chosen = selectHits(hits);
    expect(chosen.length).toBe(50_000);
    expect(chosen.every((h, i) => h.start === i * 6)).toBe(true);
  });
});
