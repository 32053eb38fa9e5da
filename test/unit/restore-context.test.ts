// Restore knows the exact string depth of every placeholder (issue 9, items 8, 10 and 11): the same text
// restored whole (a JSON body, a `*.done` copy, `response.completed`) and as deltas gives the same bytes,
// rewritten events keep every byte that is not a placeholder, and stream edge cases stay exact.

import { describe, expect, it } from 'vitest';
import { anthropicMessages } from '../../src/providers/anthropic-messages.ts';
import { generic } from '../../src/providers/generic.ts';
import { openaiChat } from '../../src/providers/openai-chat.ts';
import { openaiResponses } from '../../src/providers/openai-responses.ts';
import type { StreamAdapter } from '../../src/providers/types.ts';
import { createBodyRestorer } from '../../src/restore/body-restorer.ts';
import { createRestoreStats } from '../../src/restore/restore-bytes.ts';
import { createSseRestorer } from '../../src/restore/sse-restorer.ts';
import { runThrough, splits, type Split } from '../helpers/chunking.ts';
import { ph, testSet } from '../helpers/secret-set.ts';
import { collect, parseSse } from '../helpers/sse-client.ts';
import { anthropicSse, chatSse, responsesSse } from '../helpers/wire.ts';
import { createFrameStripper, mayHoldFrame } from '../../src/watermark/strip.ts';

const PLAIN = 'sk-ant-api03-AbCdEfGhIjKlMnOp';
const WEIRD = 'pa"ss\\wörd\n-x1 🔑';
const LINES = 'line1\r\nline2\rline3\nend';
const LF_LINES = 'line1\nline2\n\nend\n';
const set = testSet({ PLAIN, WEIRD, LINES, LF_LINES });
const P = ph(set, PLAIN);
const W = ph(set, WEIRD);
const L = ph(set, LINES);
const F = ph(set, LF_LINES);

function sse(adapter: StreamAdapter, input: string, split: Split = splits()[0]!): { out: string; misses: number } {
  const stats = createRestoreStats();
  const out = runThrough(() => createSseRestorer(set, adapter, stats, { maxEventBytes: 1 << 24 }), Buffer.from(input), split);
  return { out: out.toString('utf8'), misses: stats.misses };
}

function body(mode: 'json' | 'text', input: string | Buffer, split: Split = splits()[0]!): string {
  return runThrough(() => createBodyRestorer(set, mode, createRestoreStats()), Buffer.isBuffer(input) ? input : Buffer.from(input), split).toString('utf8');
}

describe('the string depth comes from a forward lexer, not a guess', () => {
  it('restores inside JSON text after a string longer than any look-back window', () => {
    const args = JSON.stringify({ pad: 'x'.repeat(1_200_000), key: W });
    const doc = JSON.stringify({ choices: [{ message: { tool_calls: [{ function: { name: 'f', arguments: args } }] } }] });
    for (const split of [splits()[0]!, { name: '64k', chunks: (b: Buffer) => Array.from({ length: Math.ceil(b.length / 65536) }, (_, i) => b.subarray(i * 65536, (i + 1) * 65536)) }]) {
      const out = JSON.parse(body('json', doc, split));
      expect(JSON.parse(out.choices[0].message.tool_calls[0].function.arguments).key).toBe(WEIRD);
    }
  });

  it('treats prose that starts with `[` and holds quotes as prose: deltas, `*.done` and `response.completed` agree', () => {
    const text = `[note: "the key is ${W}" and ${P}] "${W}`;
    const expected = `[note: "the key is ${WEIRD}" and ${PLAIN}] "${WEIRD}`;
    for (const pieceSize of [1, 4, 11]) {
      for (const split of splits(3)) {
        const { out } = sse(openaiResponses, responsesSse({ text, pieceSize }), split);
        const c = collect(out);
        expect([...c.streams.values()]).toContain(expected);
        for (const copy of c.copies) expect(copy).toBe(expected);
      }
    }
    const whole = JSON.parse(body('json', JSON.stringify({ text })));
    expect(whole.text).toBe(expected);
  });

  it('restores JSON text nested inside streamed tool arguments at its depth, as the whole body does', () => {
    const input = { path: 'a.json', content: JSON.stringify({ key: W, list: [P, { deeper: JSON.stringify({ k: W }) }] }) };
    const check = (args: string): void => {
      const a = JSON.parse(args);
      const content = JSON.parse(a.content);
      expect(content.key).toBe(WEIRD);
      expect(content.list[0]).toBe(PLAIN);
      expect(JSON.parse(content.list[1].deeper).k).toBe(WEIRD);
    };
    for (const [name, write, adapter] of [
      ['anthropic', anthropicSse, anthropicMessages],
      ['chat', chatSse, openaiChat],
      ['responses', responsesSse, openaiResponses],
    ] as const) {
      for (const pieceSize of [1, 3, 7, 40]) {
        for (const split of splits(2)) {
          const { out } = sse(adapter, write({ tool: { name: 'write_file', input }, pieceSize }), split);
          const c = collect(out);
          const args = [...c.streams.entries()].find(([k]) => /json|tool|arguments/.test(k))?.[1];
          expect(args, name).toBeDefined();
          check(args as string);
          for (const copy of c.copies) check(copy);
        }
      }
    }
  });

  it('gives structured output (JSON text in a text stream) valid JSON back, split anywhere', () => {
    const text = JSON.stringify({ answer: W, items: [{ token: P }] });
    for (const pieceSize of [1, 2, 9]) {
      const { out } = sse(anthropicMessages, anthropicSse({ text, pieceSize }));
      const got = collect(out).streams.get('a0:text') as string;
      expect(JSON.parse(got)).toEqual({ answer: WEIRD, items: [{ token: PLAIN }] });
    }
  });

  it('lexes a JSON body labelled text/plain as JSON, and prose as prose', () => {
    const json = JSON.stringify({ k: W, nested: JSON.stringify({ v: W }) });
    const out = JSON.parse(body('text', json));
    expect(out.k).toBe(WEIRD);
    expect(JSON.parse(out.nested).v).toBe(WEIRD);
    expect(body('text', `plain "quoted" ${W}`)).toBe(`plain "quoted" ${WEIRD}`);
  });

  it('restores a placeholder used as a JSON key in a body and in an SSE event', () => {
    const doc = JSON.stringify({ [W]: 1, a: { [P]: W } });
    expect(JSON.parse(body('json', doc))).toEqual({ [WEIRD]: 1, a: { [PLAIN]: WEIRD } });
    for (const adapter of [generic, anthropicMessages, openaiResponses]) {
      const { out } = sse(adapter, `data: ${doc}\n\n`);
      expect(JSON.parse(parseSse(out)[0]!.data)).toEqual({ [WEIRD]: 1, a: { [PLAIN]: WEIRD } });
    }
  });
});

describe('rewritten events and bodies keep every byte that is not a placeholder', () => {
  const raw = `{"n":12345678901234567890,"f":1.50e+10,  "s":"\\u00e9\\/ ${P} \\ud83d\\ude00" , "k":{"${P}":[ 1 ,2 ]}}`;
  const want = raw.replaceAll(P, PLAIN);

  it('in a generic SSE event', () => {
    for (const split of splits()) expect(sse(generic, `data: ${raw}\n\n`, split).out).toBe(`data: ${want}\n\n`);
  });

  it('in Anthropic, Chat and Responses events that are not deltas', () => {
    const cases: Array<[StreamAdapter, string]> = [
      [anthropicMessages, `event: message_start\ndata: {"type":"message_start","message":${raw}}\n\n`],
      [openaiChat, `data: {"id":"c","choices":[],"usage":${raw}}\n\n`],
      [openaiResponses, `event: response.completed\ndata: {"type":"response.completed","response":${raw}}\n\n`],
    ];
    for (const [adapter, input] of cases) {
      for (const split of splits(3)) expect(sse(adapter, input, split).out).toBe(input.replaceAll(P, PLAIN));
    }
  });

  it('in delta events: only the placeholder bytes change, escapes and number formats stay', () => {
    const input =
      `event: content_block_delta\ndata: {"type":"content_block_delta",  "index":0,"delta":{"type":"text_delta","text":"\\u00e9\\/ ${P.slice(0, 9)}"},"n":12345678901234567890}\n\n` +
      `event: content_block_delta\ndata: {"type":"content_block_delta",  "index":0,"delta":{"type":"text_delta","text":"${P.slice(9)} \\ud83d\\ude00"},"n":1.0E2}\n\n` +
      `event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n`;
    const expected = input.replace(`${P.slice(0, 9)}"`, '"').replace(`"${P.slice(9)}`, `"${PLAIN}`);
    for (const split of splits()) expect(sse(anthropicMessages, input, split).out).toBe(expected);
  });

  it('in a JSON body', () => {
    for (const split of splits()) expect(body('json', raw, split)).toBe(want);
  });
});

describe('stream edge cases', () => {
  it('keeps a lone high surrogate at the end of a delta that also holds a placeholder', () => {
    const input =
      `data: {"choices":[{"index":0,"delta":{"content":"${P} \\ud83d"},"finish_reason":null}]}\n\n` +
      `data: {"choices":[{"index":0,"delta":{"content":"\\ude00 ${W.slice(0, 5)}"},"finish_reason":null}]}\n\n` +
      `data: {"choices":[{"index":0,"delta":{"content":"${W.slice(5)}\\ud83d"},"finish_reason":null}]}\n\n` +
      `data: {"choices":[{"index":0,"delta":{"content":"\\ude00"},"finish_reason":"stop"}]}\n\n` +
      `data: [DONE]\n\n`;
    for (const split of splits()) {
      const { out } = sse(openaiChat, input, split);
      expect(out).toContain('\\ud83d"');
      expect(collect(out).streams.get('c0:text')).toBe(`${PLAIN} 😀 ${WEIRD}😀`);
    }
  });

  it('keeps SSE framing when a value with LF is restored into non-JSON data on a generic route (further data: lines)', () => {
    const input = `data: token ${F} after\n\ndata: second\r\n\r\n: comment\n\ndata: ${F}\ndata: tail\n\n`;
    for (const split of splits()) {
      const { out, misses } = sse(generic, input, split);
      expect(parseSse(out).map((e) => e.data)).toEqual([`token ${LF_LINES} after`, 'second', `${LF_LINES}\ntail`]);
      expect(misses).toBe(0);
    }
  });

  it('leaves a value with CR or CRLF as its placeholder in non-JSON data (SSE cannot carry a CR), counting a miss', () => {
    const input = `data: token ${L} after\n\ndata: {"in":"json ${L}"}\n\n`;
    for (const split of splits()) {
      const { out, misses } = sse(generic, input, split);
      const events = parseSse(out).map((e) => e.data);
      expect(events[0]).toBe(`token ${L} after`);
      // Inside a JSON string the value is escaped, so it is restored there.
      expect(JSON.parse(events[1] as string).in).toBe(`json ${LINES}`);
      expect(misses).toBe(1);
    }
  });

  it('Chat: restores a placeholder split into the chunk that carries finish_reason', () => {
    const chunk = (content: string, finish: string | null): string => `data: {"id":"x","choices":[{"index":0,"delta":{"content":${JSON.stringify(content)}},"finish_reason":${JSON.stringify(finish)}}]}\n\n`;
    for (const at of [1, 5, 12, 26]) {
      const input = chunk(`a ${W.slice(0, at)}`, null) + chunk(`${W.slice(at)} b`, 'stop') + 'data: [DONE]\n\n';
      for (const split of splits(3)) {
        const { out } = sse(openaiChat, input, split);
        expect(collect(out).streams.get('c0:text')).toBe(`a ${WEIRD} b`);
        expect(out).not.toContain('~ficta_');
      }
    }
    const tool = (args: string, finish: string | null): string =>
      `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":${JSON.stringify(args)}}}]},"finish_reason":${JSON.stringify(finish)}}]}\n\n`;
    const args = JSON.stringify({ k: W });
    const input = tool(args.slice(0, 10), null) + tool(args.slice(10), 'tool_calls') + 'data: [DONE]\n\n';
    const { out } = sse(openaiChat, input);
    expect(JSON.parse(collect(out).streams.get('c0:tool0') as string)).toEqual({ k: WEIRD });
  });
});

describe('fail closed', () => {
  it('does not restore into a delta stream whose event repeats the field (duplicate keys), and says so in the misses', () => {
    const input =
      `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","text":"${P}"}}\n\n` +
      `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${P}"}}\n\n` +
      `event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n`;
    for (const split of splits(2)) {
      const { out, misses } = sse(anthropicMessages, input, split);
      expect(out).toBe(input);
      expect(misses).toBe(2);
    }
  });

  it('does not restore inside JSON text nested deeper than the lexer follows', () => {
    let inner = JSON.stringify({ k: W });
    for (let i = 0; i < 12; i++) inner = JSON.stringify({ n: inner });
    const input = JSON.stringify({ deep: inner, shallow: W });
    const out = JSON.parse(body('json', input));
    expect(out.shallow).toBe(WEIRD);
    expect(out.deep).toBe(inner);
  });
});

describe('watermark frames split across events (per-stream byte stripper)', () => {
  const FRAME = '\u2060\ufe03\ufe0a\ufe07\ufe01';
  it('removes a frame split across text deltas and across partial_json deltas, and restores placeholders around it', () => {
    const text = `Line one.${FRAME}\n${W} and ${P}`;
    const input = { content: `Doc.${FRAME}\nKey ${W}` };
    for (const pieceSize of [1, 2, 3, 7]) {
      for (const split of splits(3)) {
        const stats = createRestoreStats();
        const out = runThrough(
          () => createSseRestorer(set, anthropicMessages, stats, { maxEventBytes: 1 << 20, deltaFilter: createFrameStripper, deltaFilterNeeded: mayHoldFrame }),
          Buffer.from(anthropicSse({ text, tool: { name: 'write_file', input }, pieceSize })),
          split,
        ).toString('utf8');
        const c = collect(out);
        expect(c.streams.get('a0:text')).toBe(`Line one.\n${WEIRD} and ${PLAIN}`);
        expect(JSON.parse(c.streams.get('a1:json') as string)).toEqual({ content: `Doc.\nKey ${WEIRD}` });
      }
    }
  });
});
