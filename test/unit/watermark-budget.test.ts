// Token overhead measured with real tokenizers (gpt-tokenizer: o200k_base for GPT-4o/GPT-5 class models,
// cl100k_base for GPT-4 class). Claude's tokenizer is not published; see docs/watermarks.md.
import { encode as cl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { encode as o200k } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { INVISIBLE_SAMPLES, codeDocument, csvDocument, jsonDocument, proseDocument, rng, yamlDocument } from '../../fixtures/watermark/corpus.ts';
import { applyPlan, planEmbedding } from '../../src/watermark/embed.ts';
import { formatFrame } from '../../src/watermark/frame.ts';
import { rsEncode } from '../../src/watermark/reed-solomon.ts';
import { estimateTokensLowerBound, FRAME_TOKEN_COST, TOKEN_BUDGET_RATIO } from '../../src/watermark/token-budget.ts';

const TOKENIZERS = { o200k, cl100k } as const;

describe('estimateTokensLowerBound', () => {
  it('never exceeds the real token count of o200k_base or cl100k_base', () => {
    const samples = [
      proseDocument(20_000, 1),
      codeDocument(20_000, 2),
      csvDocument(5_000),
      yamlDocument(5_000),
      jsonDocument(5_000),
      ...Object.values(INVISIBLE_SAMPLES),
      "don't won't they're it's (a) [b] {c} <d> e.f g,h i;j -- ... !!! ??? ''' \"\"\" ```",
      '1234567890 12 3 4567 0.5 1e10 3,141,592 +44 (0) 20-7946-0958',
      '    indented\n\n\n\t\ttabs   and   spaces\r\nCRLF\r\n',
      '这是一个测试句子，用来检查分词器。日本語の文章もあります。한국어 문장도 있습니다.',
      'Ελληνικά και русский текст и العربية النص',
      '=====\n-----\n*****\n#####\n',
    ];
    for (const text of samples) {
      const lb = estimateTokensLowerBound(text);
      for (const [name, encode] of Object.entries(TOKENIZERS)) expect(lb, `${name}: ${text.slice(0, 30)}`).toBeLessThanOrEqual(encode(text).length);
    }
  });

  it('stays within 15 % of o200k_base on English prose, so the budget is not wasted', () => {
    const doc = proseDocument(40_000, 8);
    expect(estimateTokensLowerBound(doc) / o200k(doc).length).toBeGreaterThan(0.85);
  });
});

describe('frame token cost', () => {
  it(`is at most FRAME_TOKEN_COST (${FRAME_TOKEN_COST}) after prose, code, CJK and emoji line ends`, () => {
    const r = rng(5);
    const endings = ['A sentence that ends with a full stop.', '// a comment line that ends in a word', '这是一个测试句子。', 'Ends in an emoji ❤️.', '- list item: with a colon:', 'A quote that closes."'];
    const worst: Record<string, number> = { o200k: 0, cl100k: 0 };
    for (const line of endings) {
      for (let t = 0; t < 40; t++) {
        const frame = formatFrame({ index: Math.floor(r() * 16), value: Math.floor(r() * 256) });
        for (const [name, encode] of Object.entries(TOKENIZERS)) {
          const cost = encode(`${line}${frame}\nNext line.\n`).length - encode(`${line}\nNext line.\n`).length;
          worst[name] = Math.max(worst[name]!, cost);
        }
      }
    }
    expect(worst.o200k).toBeLessThanOrEqual(FRAME_TOKEN_COST);
    expect(worst.cl100k).toBeLessThanOrEqual(FRAME_TOKEN_COST);
  });
});

describe('token overhead of a marked document', () => {
  const codeword = rsEncode(Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8]));
  const sizes = [2_048, 5_000, 10_000, 40_000, 100_000];
  for (const [kind, make] of [
    ['prose', proseDocument],
    ['code', codeDocument],
  ] as const) {
    it(`stays within ${TOKEN_BUDGET_RATIO * 100} % for ${kind} of ${sizes.map((s) => `${Math.round(s / 1000)}K`).join('/')} in both tokenizers`, () => {
      let framesSeen = 0;
      for (const size of sizes) {
        const doc = make(size, size);
        const plan = planEmbedding(doc, codeword, Buffer.alloc(32, size & 255));
        framesSeen += plan.frames.length;
        const marked = applyPlan(doc, plan);
        for (const [name, encode] of Object.entries(TOKENIZERS)) {
          const base = encode(doc).length;
          const overhead = (encode(marked).length - base) / base;
          expect(overhead, `${kind} ${size} ${name}`).toBeLessThanOrEqual(TOKEN_BUDGET_RATIO);
        }
      }
      expect(framesSeen).toBeGreaterThan(10);
    });
  }
});
