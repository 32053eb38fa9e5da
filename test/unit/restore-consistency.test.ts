// Seeded property test of the restore invariant (issue 9, item 8): a text restored whole (in a JSON
// body) and the same text restored as deltas of any size, over any chunking, give the same string, in
// every wire format, for text and tool arguments alike; and JSON text comes back valid JSON.

import { describe, expect, it } from 'vitest';
import { anthropicMessages } from '../../src/providers/anthropic-messages.ts';
import { openaiChat } from '../../src/providers/openai-chat.ts';
import { openaiResponses } from '../../src/providers/openai-responses.ts';
import type { StreamAdapter } from '../../src/providers/types.ts';
import { createBodyRestorer } from '../../src/restore/body-restorer.ts';
import { createRestoreStats } from '../../src/restore/restore-bytes.ts';
import { createSseRestorer } from '../../src/restore/sse-restorer.ts';
import { mulberry32 } from '../../src/util/prng.ts';
import { runThrough, type Split } from '../helpers/chunking.ts';
import { ph, testSet } from '../helpers/secret-set.ts';
import { collect } from '../helpers/sse-client.ts';
import { anthropicSse, chatSse, responsesSse, type Reply } from '../helpers/wire.ts';

const VALUES = { A: 'sk-ant-api03-AbCdEfGhIjKlMnOp', B: 'pa"ss\\wörd\n-x1 🔑', C: 'tab\there\r\nquote"s \\u0041' };
const set = testSet(VALUES);
const PH = Object.values(VALUES).map((v) => ph(set, v));

/** Random text built to confuse a guessing lexer: brackets, quotes, escapes, nested JSON text, surrogates, CR. */
function hostileText(rand: () => number): string {
  const atoms = [
    () => PH[Math.floor(rand() * PH.length)] as string,
    () => '[',
    () => ']',
    () => '{',
    () => '}',
    () => '"',
    () => '\\',
    () => ':',
    () => ',',
    () => ' ',
    () => '\n',
    () => '\r',
    () => 'word',
    () => '😀',
    () => '~',
    () => 'null',
    () => JSON.stringify({ k: PH[0], n: [1, PH[1]] }),
    () => JSON.stringify(JSON.stringify({ deep: PH[2] })),
  ];
  let s = '';
  const n = 3 + Math.floor(rand() * 30);
  for (let i = 0; i < n; i++) s += (atoms[Math.floor(rand() * atoms.length)] as () => string)();
  return s;
}

/** Structured output: JSON text (an object, as providers return it) with placeholders at various depths. */
function jsonText(rand: () => number): string {
  const value = (d: number): unknown => {
    const r = rand();
    if (d > 2 || r < 0.3) return rand() < 0.5 ? PH[Math.floor(rand() * PH.length)] : `x ${PH[Math.floor(rand() * PH.length)]} "q" [`;
    if (r < 0.5) return JSON.stringify(value(d + 1));
    if (r < 0.75) return [value(d + 1), 12345, value(d + 1)];
    return { [`k${d}`]: value(d + 1), s: '[not json' };
  };
  return JSON.stringify({ out: value(0), list: [value(1)] }, null, rand() < 0.5 ? 2 : undefined);
}

/** What a text restores to when it is restored whole, as a JSON string (the reference). */
function restoredWhole(text: string): string {
  const out = runThrough(() => createBodyRestorer(set, 'json', createRestoreStats()), Buffer.from(JSON.stringify({ t: text })), WHOLE);
  return JSON.parse(out.toString('utf8')).t;
}

const WHOLE: Split = { name: 'whole', chunks: (b) => [b] };
function randomSplit(seed: number): Split {
  return {
    name: `random#${seed}`,
    chunks: (b) => {
      const rand = mulberry32(seed);
      const out: Buffer[] = [];
      for (let pos = 0; pos < b.length; ) {
        const n = 1 + Math.floor(rand() * (rand() < 0.3 ? 3 : 60));
        out.push(b.subarray(pos, pos + n));
        pos += n;
      }
      return out;
    },
  };
}

const FORMATS: Array<[string, (r: Reply) => string, StreamAdapter]> = [
  ['anthropic', anthropicSse, anthropicMessages],
  ['chat', chatSse, openaiChat],
  ['responses', responsesSse, openaiResponses],
];

describe('restored whole and restored as deltas agree', () => {
  for (const [name, write, adapter] of FORMATS) {
    it(`${name}: hostile text, structured output and tool arguments, 60 seeded streams`, () => {
      for (let seed = 1; seed <= Number(process.env.SEEDS ?? 60); seed++) {
        const rand = mulberry32(seed * 7717);
        const text = seed % 3 === 0 ? jsonText(rand) : hostileText(rand);
        const toolContent = hostileText(rand);
        const reply: Reply = { text, thinking: hostileText(rand), tool: { name: 'write_file', input: { content: toolContent, nested: jsonText(rand) } }, pieceSize: 1 + Math.floor(rand() * 12) };
        const stats = createRestoreStats();
        const out = runThrough(() => createSseRestorer(set, adapter, stats, { maxEventBytes: 1 << 20 }), Buffer.from(write(reply)), randomSplit(seed)).toString('utf8');
        const c = collect(out);
        const streams = [...c.streams.entries()];
        const textOut = streams.find(([k]) => k.endsWith(':text') || k.includes('output_text'))?.[1];
        const context = `seed ${seed}`;
        expect(textOut, context).toBe(restoredWhole(text));
        if (seed % 3 === 0) expect(() => JSON.parse(textOut as string), context).not.toThrow();
        const args = streams.find(([k]) => /json|tool|arguments/.test(k))?.[1] as string;
        const parsed = JSON.parse(args);
        expect(parsed.content, context).toBe(restoredWhole(toolContent));
        expect(JSON.parse(restoredWholeArgs(JSON.stringify(reply.tool?.input))).nested, context).toBe(parsed.nested);
        for (const copy of c.copies) expect([restoredWhole(text), args, restoredWhole(reply.thinking as string)], context).toContain(copy);
        expect(out, context).not.toMatch(/~ficta_[a-z2-7]{20}/);
      }
    });
  }
});

/** Tool arguments restored whole (JSON text inside a JSON string), returned as the restored JSON text. */
function restoredWholeArgs(args: string): string {
  return restoredWhole(args);
}
