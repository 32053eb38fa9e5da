import { describe, expect, it } from 'vitest';
import { codeDocument, csvDocument, jsonDocument, proseDocument, yamlDocument } from '../../fixtures/watermark/corpus.ts';
import { applyPlan, planEmbedding } from '../../src/watermark/embed.ts';
import { findMarkableLineEnds } from '../../src/watermark/placement.ts';
import { rsEncode } from '../../src/watermark/reed-solomon.ts';
import { stripFramesFromText } from '../../src/watermark/strip.ts';

const CODEWORD = rsEncode(Uint8Array.from([9, 8, 7, 6, 5, 4, 3, 2]));
const SEED = Buffer.from('0123456789abcdef0123456789abcdef');

/** The text of each line that may carry a frame. */
function markableLines(text: string): string[] {
  return findMarkableLineEnds(text).offsets.map((end) => text.slice(text.lastIndexOf('\n', end - 1) + 1, end));
}

describe('findMarkableLineEnds', () => {
  it('marks prose lines only after sentence punctuation, never after a word, a URL or a path', () => {
    const text = [
      'This sentence ends properly with a full stop.',
      'This hard-wrapped line ends in the middle of a',
      'sentence, and this one ends with a link https://example.com/a.',
      'Read the file at docs/setup/guide.md and the address a@b.example.',
      'Markdown hard break with two trailing spaces.  ',
      'A question that is long enough to carry one?',
      'Short line.',
      '',
    ].join('\n');
    expect(markableLines(text)).toEqual(['This sentence ends properly with a full stop.', 'A question that is long enough to carry one?']);
  });

  it('never marks JSON, YAML or CSV documents', () => {
    for (const doc of [jsonDocument(8000), yamlDocument(8000), csvDocument(8000), `${JSON.stringify({ a: 'one. two. three.\nfour five six seven.' })}\n`]) {
      expect(findMarkableLineEnds(doc).offsets).toEqual([]);
    }
  });

  it('skips tables, front matter and structured or unlabelled code fences inside Markdown', () => {
    const text = [
      '---',
      'title: A front matter title that reads like a sentence.',
      '---',
      '| a | b | c |',
      '| one two three four. | five six seven eight. | nine. |',
      '```yaml',
      '# a comment in yaml that reads like a sentence, with words.',
      'key: value that reads like a sentence, with words.',
      '```',
      '```',
      'plain output line that reads like a sentence, with words.',
      '```',
      '```python',
      '# a comment line in python with several words.',
      'x = "a string literal that ends like a sentence."',
      '```',
      'And a closing prose sentence that is long enough.',
      '',
    ].join('\n');
    expect(markableLines(text)).toEqual(['# a comment line in python with several words.', 'And a closing prose sentence that is long enough.']);
  });

  it('marks source code only at the ends of comment lines, never in code, string literals or template literals', () => {
    const text = [
      '// Compute the thing in a careful and simple way.',
      'const a = compute(1, 2);',
      'const s = `template literal line one,',
      '// this looks like a comment but sits inside the template literal.',
      'end of template`;',
      'const py = """triple quoted',
      '# also inside a string literal, not a comment at all.',
      '"""',
      '/* block comment opening line with several words',
      '   inside the block comment there are more words here.',
      '   closing it now with the last words */',
      '#include <stdio.h> and some words after it.',
      '#!/usr/bin/env node with words',
      'return value; // trailing comments are not full-line comments.',
      '// see https://example.com/docs for the details',
      '// and a line that ends right on the address https://example.com/docs',
      'function f() {',
      '  return g(a, b);',
      '}',
      '',
    ].join('\n');
    expect(markableLines(text)).toEqual([
      '// Compute the thing in a careful and simple way.',
      '/* block comment opening line with several words',
      '   inside the block comment there are more words here.',
      '// see https://example.com/docs for the details',
    ]);
  });

  it('finds markable lines in generated prose and code, and none in generated structured data', () => {
    expect(findMarkableLineEnds(proseDocument(20_000)).offsets.length).toBeGreaterThan(50);
    expect(findMarkableLineEnds(codeDocument(20_000)).offsets.length).toBeGreaterThan(50);
  });
});

describe('planEmbedding', () => {
  it('is deterministic per seed and document, spreads frames evenly and carries consecutive indices', () => {
    const doc = proseDocument(40_000, 3);
    const a = planEmbedding(doc, CODEWORD, SEED);
    const b = planEmbedding(doc, CODEWORD, Buffer.from(SEED));
    expect(a).toEqual(b);
    expect(a.frames.length).toBeGreaterThanOrEqual(4);
    const first = a.frames[0]!.index;
    a.frames.forEach((f, j) => expect(f.index).toBe((first + j) % 16));
    const gaps = a.frames.slice(1).map((f, j) => f.offset - a.frames[j]!.offset);
    expect(Math.min(...gaps)).toBeGreaterThan(doc.length / a.frames.length / 4);
    const other = planEmbedding(doc, CODEWORD, Buffer.from('fedcba9876543210fedcba9876543210'));
    expect(other.frames.map((f) => f.offset)).not.toEqual(a.frames.map((f) => f.offset));
  });

  it('inserts frames that strip back to the exact original', () => {
    const doc = proseDocument(30_000, 4);
    const marked = applyPlan(doc, planEmbedding(doc, CODEWORD, SEED));
    expect(marked).not.toBe(doc);
    expect(stripFramesFromText(marked)).toBe(doc);
  });

  it('adds nothing to a document that already carries frames, or is too small for one', () => {
    const doc = proseDocument(30_000, 5);
    const marked = applyPlan(doc, planEmbedding(doc, CODEWORD, SEED));
    expect(planEmbedding(marked, CODEWORD, SEED)).toEqual({ frames: [], reason: 'already-marked' });
    expect(planEmbedding('A short sentence that is long enough.\n', CODEWORD, SEED).reason).toBe('no-budget');
  });
});
