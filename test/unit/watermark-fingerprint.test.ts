import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { proseDocument } from '../../fixtures/watermark/corpus.ts';
import { FINGERPRINT_K, FINGERPRINT_W, fingerprintText, normaliseForFingerprint } from '../../src/watermark/fingerprint.ts';
import { deriveKeys } from '../../src/watermark/key.ts';

const keys = deriveKeys(Buffer.alloc(32, 7));

function containment(query: readonly number[], doc: readonly number[]): number {
  const set = new Set(doc);
  return query.filter((f) => set.has(f)).length / query.length;
}

describe('normaliseForFingerprint', () => {
  it('ignores case, whitespace, punctuation, invisible characters, JSON escapes and Unicode normal forms', () => {
    const base = String.fromCodePoint(...normaliseForFingerprint('Café ﬁnal: “Résumé”, 42 items.\nNext line.'));
    const variants = [
      'cafe\u0301 FINAL   “re\u0301sume\u0301” 42\titems\r\n\r\nnext    line',
      JSON.stringify('Café ﬁnal: “Résumé”, 42 items.\nNext line.').slice(1, -1),
      'Café\u2060\ufe01\ufe02\ufe03\ufe04 ﬁnal: “Résumé”,\u200b 42 items.\nNext line.',
      'Café ﬁnal: “Résumé”, 42 items.\nNext line.'.normalize('NFKD'),
    ];
    expect(base).toBe('caféfinalrésumé42itemsnextline');
    for (const v of variants) expect(String.fromCodePoint(...normaliseForFingerprint(v))).toBe(base);
  });
});

describe('fingerprintText', () => {
  const doc = proseDocument(40_000, 21);
  const fps = fingerprintText(doc, keys);

  it(`selects about 2/(W+1) of the k-grams (K=${FINGERPRINT_K}, W=${FINGERPRINT_W})`, () => {
    const grams = normaliseForFingerprint(doc).length - FINGERPRINT_K + 1;
    expect(fps.length / grams).toBeGreaterThan(1 / (FINGERPRINT_W + 1));
    expect(fps.length / grams).toBeLessThan(3 / (FINGERPRINT_W + 1));
    expect(fps.every((f) => Number.isSafeInteger(f) && f >= 0)).toBe(true);
  });

  it('finds every fingerprint of a 25 % excerpt in the whole (winnowing guarantee)', () => {
    const excerpt = doc.slice(15_000, 25_000);
    const ex = fingerprintText(excerpt, keys);
    expect(ex.length).toBeGreaterThan(200);
    // Only k-grams near the cut ends may differ.
    expect(containment(ex, fps)).toBeGreaterThan(0.97);
  });

  it('shares almost nothing with an unrelated document', () => {
    const other = fingerprintText(proseDocument(40_000, 22), keys);
    expect(containment(other, fps)).toBeLessThan(0.01);
  });

  it('is keyed: another key gives unrelated values for the same text', () => {
    const otherKeys = deriveKeys(randomBytes(32));
    expect(containment(fingerprintText(doc, otherKeys), fps)).toBe(0);
  });
});
