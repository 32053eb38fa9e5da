import { describe, expect, it } from 'vitest';
import { rng } from '../../fixtures/watermark/corpus.ts';
import { crc4, formatFrame, parseFrameDigits } from '../../src/watermark/frame.ts';
import { gfDiv, gfMul } from '../../src/watermark/gf256.ts';
import { RS_K, RS_N, rsDecode, rsEncode, rsRecover } from '../../src/watermark/reed-solomon.ts';

function randomMark(r: () => number): Uint8Array {
  return Uint8Array.from({ length: 8 }, () => Math.floor(r() * 256));
}

function subset(r: () => number, n: number, k: number): number[] {
  const all = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [all[i], all[j]] = [all[j]!, all[i]!];
  }
  return all.slice(0, k).sort((a, b) => a - b);
}

describe('GF(2^8)', () => {
  it('has an inverse for every non-zero element', () => {
    for (let a = 1; a < 256; a++) expect(gfMul(a, gfDiv(1, a))).toBe(1);
  });
});

describe('RS(16,8)', () => {
  it('is systematic: the first 8 symbols are the mark', () => {
    const mark = Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8]);
    expect([...rsEncode(mark).subarray(0, RS_K)]).toEqual([...mark]);
  });

  it('recovers the mark from any 8 of the 16 symbols (500 random marks and subsets)', () => {
    const r = rng(42);
    for (let t = 0; t < 500; t++) {
      const mark = randomMark(r);
      const cw = rsEncode(mark);
      const idx = subset(r, RS_N, RS_K);
      expect([...rsRecover(idx, idx.map((i) => cw[i]!))]).toEqual([...mark]);
    }
  });

  it('corrects up to (observed − 8) / 2 wrong symbols and reports how many agree', () => {
    const r = rng(7);
    for (let t = 0; t < 12; t++) {
      const mark = randomMark(r);
      const cw = rsEncode(mark);
      const symbols = new Map<number, number>();
      for (let i = 0; i < RS_N; i++) symbols.set(i, cw[i]!);
      for (const i of subset(r, RS_N, 4)) symbols.set(i, cw[i]! ^ (1 + Math.floor(r() * 255)));
      const decoded = rsDecode(symbols);
      expect(decoded && [...decoded.mark]).toEqual([...mark]);
      expect(decoded?.agreeing).toBe(12);
    }
  });

  it('refuses fewer than 8 distinct symbols', () => {
    const cw = rsEncode(new Uint8Array(8).fill(9));
    expect(rsDecode(new Map([0, 3, 5, 7, 9, 11, 13].map((i) => [i, cw[i]!])))).toBeUndefined();
  });

  it('does not accept a codeword outside the decoding radius when 9 symbols have 1 error', () => {
    const r = rng(11);
    const cw = rsEncode(randomMark(r));
    const symbols = new Map(subset(r, RS_N, 9).map((i) => [i, cw[i]!] as [number, number]));
    const [first] = symbols.keys();
    symbols.set(first!, cw[first!]! ^ 0x55);
    // 9 observed, radius floor(1/2) = 0: one wrong symbol cannot be corrected, and no wrong mark is returned.
    expect(rsDecode(symbols)).toBeUndefined();
  });
});

describe('frames', () => {
  it('use only U+2060 and U+FE00..U+FE0F: no tag characters, bidi controls, ZWJ or ZWNJ', () => {
    const forbidden = /[\u{E0000}-\u{E007F}\u200C\u200D\u200E\u200F\u202A-\u202E\u2066-\u2069\u061C]/u;
    let bad = 0;
    for (let index = 0; index < 16; index++) {
      for (let value = 0; value < 256; value++) {
        const f = formatFrame({ index, value });
        if (f.length !== 5 || f.charCodeAt(0) !== 0x2060 || forbidden.test(f)) bad++;
        for (let k = 1; k < 5; k++) if ((f.charCodeAt(k) & 0xfff0) !== 0xfe00) bad++;
      }
    }
    expect(bad).toBe(0);
  });

  it('CRC-4 rejects every single-nibble substitution (exhaustive over all 4,096 symbols)', () => {
    let wrongRoundTrip = 0;
    let undetected = 0;
    for (let index = 0; index < 16; index++) {
      for (let value = 0; value < 256; value++) {
        const d = [index, value >> 4, value & 15, crc4((index << 8) | value)];
        const back = parseFrameDigits(d[0]!, d[1]!, d[2]!, d[3]!);
        if (back?.index !== index || back.value !== value) wrongRoundTrip++;
        for (let pos = 0; pos < 4; pos++) {
          for (let x = 1; x < 16; x++) {
            const e = d.slice();
            e[pos] = e[pos]! ^ x;
            if (parseFrameDigits(e[0]!, e[1]!, e[2]!, e[3]!) !== undefined) undetected++;
          }
        }
      }
    }
    expect({ wrongRoundTrip, undetected }).toEqual({ wrongRoundTrip: 0, undetected: 0 });
  });
});
