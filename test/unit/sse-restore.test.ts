import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anthropicMessages } from '../../src/providers/anthropic-messages.ts';
import { generic } from '../../src/providers/generic.ts';
import { openaiChat } from '../../src/providers/openai-chat.ts';
import { openaiResponses } from '../../src/providers/openai-responses.ts';
import type { StreamAdapter } from '../../src/providers/types.ts';
import { createRestoreStats } from '../../src/restore/restore-bytes.ts';
import { createSseRestorer } from '../../src/restore/sse-restorer.ts';
import { runThrough, splits } from '../helpers/chunking.ts';
import { ph, testSet } from '../helpers/secret-set.ts';
import { collect, parseSse } from '../helpers/sse-client.ts';
import { anthropicSse, chatSse, responsesSse, type Reply } from '../helpers/wire.ts';

const PLAIN = 'sk-ant-api03-AbCdEfGhIjKlMnOp';
const WEIRD = 'pa"ss\\wörd\n-x1 🔑';
const set = testSet({ PLAIN, WEIRD });
const P = ph(set, PLAIN);
const W = ph(set, WEIRD);

const FIXTURES = join(import.meta.dirname, '../../fixtures/wire');
const ADAPTER: Record<string, StreamAdapter> = { anthropic: anthropicMessages, chat: openaiChat, responses: openaiResponses };

function restore(adapter: StreamAdapter, input: Buffer, split = splits()[0]!): { out: string; stats: ReturnType<typeof createRestoreStats> } {
  const stats = createRestoreStats();
  const out = runThrough(() => createSseRestorer(set, adapter, stats, { maxEventBytes: 1 << 20 }), input, split);
  return { out: out.toString('utf8'), stats };
}

/** Puts placeholders into a captured transcript: text gets W split across its two deltas, tool args get W split too. */
function withPlaceholders(text: string): string {
  return text
    .replaceAll('"MOCK_ECHO: H"', `"MOCK_ECHO: ${W.slice(0, 9)}"`)
    .replaceAll('"ello there"', `"${W.slice(9)} and ${P}"`)
    .replaceAll('MOCK_ECHO: Hello there', `MOCK_ECHO: ${W} and ${P}`)
    .replaceAll('{\\"city\\":\\"Par"', `{\\"city\\":\\"${W.slice(0, 4)}"`)
    .replaceAll('"is\\"}"', `"${W.slice(4)}\\"}"`)
    .replaceAll('{\\"city\\":\\"Paris\\"}', `{\\"city\\":\\"${W}\\"}`);
}

/** String content of `s` as it stands inside a JSON string literal. */
const esc = (s: string): string => JSON.stringify(s).slice(1, -1);

/** Lexer-hostile placeholders in a captured transcript: text that starts with `[` and holds quotes, tool arguments whose string holds JSON text. */
function withHostilePlaceholders(text: string): string {
  const args = JSON.stringify({ city: JSON.stringify({ k: W }) });
  const cut = args.indexOf(W) + 4;
  return text
    .replaceAll('"MOCK_ECHO: H"', `"${esc(`[note: "${W.slice(0, 9)}`)}"`)
    .replaceAll('"ello there"', `"${esc(`${W.slice(9)} "q" ${P}`)}"`)
    .replaceAll('MOCK_ECHO: Hello there', esc(`[note: "${W} "q" ${P}`))
    .replaceAll('{\\"city\\":\\"Par"', `${esc(args.slice(0, cut))}"`)
    .replaceAll('"is\\"}"', `"${esc(args.slice(cut))}"`)
    .replaceAll('{\\"city\\":\\"Paris\\"}', esc(args));
}

describe('SSE restore of the captured wire transcripts', () => {
  const files = readdirSync(FIXTURES).filter((f) => f.startsWith('sse-'));
  it('has all six captures', () => expect(files.length).toBe(6));

  for (const file of files) {
    const format = file.split('-')[1] as string;
    const adapter = ADAPTER[format] as StreamAdapter;
    const original = readFileSync(join(FIXTURES, file), 'utf8');

    for (const split of splits()) {
      it(`${file} without placeholders passes through byte-identical (${split.name})`, () => {
        expect(restore(adapter, Buffer.from(original), split).out).toBe(original);
      });

      it(`${file} restores placeholders split across events exactly once (${split.name})`, () => {
        const input = withPlaceholders(original);
        expect(input).not.toBe(original);
        const { out, stats } = restore(adapter, Buffer.from(input), split);
        expect(out).not.toContain('~ficta_');
        const before = collect(original);
        const after = collect(out);
        for (const [key, value] of before.streams) {
          const got = after.streams.get(key) as string;
          if (value === 'MOCK_ECHO: Hello there') expect(got).toBe(`MOCK_ECHO: ${WEIRD} and ${PLAIN}`);
          else if (value === '{"city":"Paris"}') expect(JSON.parse(got)).toEqual({ city: WEIRD });
          else expect(got).toBe(value);
        }
        for (const copy of after.copies) {
          if (copy.startsWith('MOCK_ECHO')) expect(copy).toBe(`MOCK_ECHO: ${WEIRD} and ${PLAIN}`);
          else expect(JSON.parse(copy)).toEqual({ city: WEIRD });
        }
        expect(after.copies.length).toBe(before.copies.length);
        expect(stats.misses).toBe(0);
      });

      it(`${file} restores prose that starts with \`[\` and JSON text inside tool arguments at their depth (${split.name})`, () => {
        const input = withHostilePlaceholders(original);
        expect(input).not.toBe(original);
        const { out, stats } = restore(adapter, Buffer.from(input), split);
        expect(out).not.toContain('~ficta_');
        const city = (args: string): string => JSON.parse(JSON.parse(args).city).k;
        const before = collect(original);
        const after = collect(out);
        for (const [key, value] of before.streams) {
          const got = after.streams.get(key) as string;
          if (value === 'MOCK_ECHO: Hello there') expect(got).toBe(`[note: "${WEIRD} "q" ${PLAIN}`);
          else if (value === '{"city":"Paris"}') expect(city(got)).toBe(WEIRD);
          else expect(got).toBe(value);
        }
        for (const copy of after.copies) {
          if (copy.startsWith('[')) expect(copy).toBe(`[note: "${WEIRD} "q" ${PLAIN}`);
          else expect(city(copy)).toBe(WEIRD);
        }
        expect(stats.misses).toBe(0);
      });
    }
  }
});

describe('SSE restore of generated streams', () => {
  const text = `start ${P}${W}ö🔑 middle ${W} ~ not a placeholder ~fic end ${P}`;
  const expectedText = `start ${PLAIN}${WEIRD}ö🔑 middle ${WEIRD} ~ not a placeholder ~fic end ${PLAIN}`;
  const reply = (pieceSize: number): Reply => ({
    text,
    thinking: `think ${P}`,
    tool: { name: 'write_file', input: { path: '/tmp/x', content: `token=${W}\nkey=${P}` } },
    customTool: { name: 'apply_patch', input: `*** Add File: a.env\n+KEY=${W}\n` },
    pieceSize,
  });
  const writers: Record<string, (r: Reply) => string> = { anthropic: anthropicSse, chat: chatSse, responses: responsesSse };

  for (const [format, write] of Object.entries(writers)) {
    for (const pieceSize of [1, 2, 5, 13]) {
      for (const split of splits(3)) {
        it(`${format}: text, thinking and tool input restored with piece size ${pieceSize} (${split.name})`, () => {
          const input = write(reply(pieceSize));
          const { out } = restore(ADAPTER[format] as StreamAdapter, Buffer.from(input), split);
          expect(out).not.toContain('~ficta_');
          const c = collect(out);
          const values = [...c.streams.values()];
          expect(values).toContain(expectedText);
          const tool = values.find((v) => v.startsWith('{"path"'));
          expect(JSON.parse(tool as string)).toEqual({ path: '/tmp/x', content: `token=${WEIRD}\nkey=${PLAIN}` });
          if (format !== 'chat') expect(values).toContain(`think ${PLAIN}`);
          if (format === 'responses') {
            expect(values).toContain(`*** Add File: a.env\n+KEY=${WEIRD}\n`);
            for (const copy of c.copies) expect(copy).not.toContain('~ficta_');
            expect(c.copies).toContain(expectedText);
          }
        });
      }
    }
  }
});

describe('OpenAI-compatible Chat Completions dialects (DESIGN §3)', () => {
  const thinking = `plan ${W} then ${P}`;
  const text = `answer ${P}${W}`;
  /** Reassembles reasoning and answer text whichever field a dialect streams them in. */
  const reassemble = (out: string): { reasoning: string; content: string } => {
    let reasoning = '';
    let content = '';
    for (const { data } of parseSse(out)) {
      if (data === '[DONE]') continue;
      const delta = JSON.parse(data).choices?.[0]?.delta ?? {};
      reasoning += delta.reasoning_content ?? delta.reasoning ?? '';
      for (const d of delta.reasoning_details ?? []) reasoning += d.text ?? '';
      if (typeof delta.content === 'string') content += delta.content;
      for (const part of Array.isArray(delta.content) ? delta.content : []) {
        if (part.type === 'text') content += part.text;
        for (const t of part.thinking ?? []) reasoning += t.text;
      }
    }
    return { reasoning, content };
  };
  for (const dialect of ['reasoning_content', 'reasoning', 'reasoning_details', 'content_array'] as const) {
    for (const pieceSize of [1, 4, 9]) {
      for (const split of splits(3)) {
        it(`${dialect}: reasoning and text restored exactly once with piece size ${pieceSize} (${split.name})`, () => {
          const input = chatSse({ thinking, text, pieceSize, chatDialect: dialect });
          const { out, stats } = restore(openaiChat, Buffer.from(input), split);
          expect(out).not.toContain('~ficta_');
          expect(reassemble(out)).toEqual({ reasoning: `plan ${WEIRD} then ${PLAIN}`, content: `answer ${PLAIN}${WEIRD}` });
          expect(stats.misses).toBe(0);
        });
      }
    }
  }
});

describe('Mistral thinking parts: several texts of one stream in one event', () => {
  it('restores a placeholder split between two thinking texts of one event and across events', () => {
    const ev = (texts: string[], finish: string | null = null): string =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: [{ type: 'thinking', thinking: texts.map((text) => ({ type: 'text', text })) }] }, finish_reason: finish }] })}\n\n`;
    const body = ev(['plan ', W.slice(0, 5), W.slice(5, 12)]) + ev([W.slice(12), ` then ${P.slice(0, 9)}`]) + ev([P.slice(9)], 'stop') + 'data: [DONE]\n\n';
    for (const split of splits()) {
      const { out, stats } = restore(openaiChat, Buffer.from(body), split);
      let thinking = '';
      for (const { data } of parseSse(out)) {
        if (data === '[DONE]') continue;
        for (const part of JSON.parse(data).choices[0].delta.content ?? []) for (const t of part.thinking) thinking += t.text;
      }
      expect(thinking).toBe(`plan ${WEIRD} then ${PLAIN}`);
      expect(stats.misses).toBe(0);
    }
  });
});

describe('SSE framing details', () => {
  it('handles CRLF line ends, comments and keep-alives, and multi-line data', () => {
    const body =
      `: keep-alive\r\n\r\n` +
      `event: content_block_delta\r\ndata: {"type":"content_block_delta","index":0,\r\ndata: "delta":{"type":"text_delta","text":"a ${P.slice(0, 3)}"}}\r\n\r\n` +
      `:ping\r\n\r\n` +
      `event: content_block_delta\r\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${P.slice(3)} b"}}\r\n\r\n` +
      `event: content_block_stop\r\ndata: {"type":"content_block_stop","index":0}\r\n\r\n`;
    for (const split of splits()) {
      const { out } = restore(anthropicMessages, Buffer.from(body), split);
      expect(out).toContain(': keep-alive\r\n\r\n');
      expect(out).not.toContain('\n\n');
      expect(collect(out).streams.get('a0:text')).toBe(`a ${PLAIN} b`);
    }
  });

  it('handles bare-CR line ends', () => {
    const body = `event: content_block_delta\rdata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${P}"}}\r\r`;
    const { out } = restore(anthropicMessages, Buffer.from(body));
    expect(collect(out).streams.get('a0:text')).toBe(PLAIN);
  });

  it('restores placeholders in a mid-stream error event and sends held text first', () => {
    const body =
      `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x ~fi"}}\n\n` +
      `event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"failed near ${P}"}}\n\n`;
    const { out } = restore(anthropicMessages, Buffer.from(body));
    const c = collect(out);
    expect(c.streams.get('a0:text')).toBe('x ~fi');
    expect(c.errors[0]).toContain(`failed near ${PLAIN}`);
    expect(out.indexOf('x ~fi')).toBeLessThan(out.indexOf('error'));
  });

  it('flushes held text when a stream is cut off, and forwards the partial event', () => {
    const body = `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"tail ~ficta_ab"}}\n\nevent: content_block_delta\ndata: {"type":"con`;
    const { out } = restore(anthropicMessages, Buffer.from(body));
    expect(collect(out).streams.get('a0:text')).toBe('tail ~ficta_ab');
    expect(out.endsWith('data: {"type":"con')).toBe(true);
  });

  it('counts an unknown or mangled placeholder as a miss and leaves it alone', () => {
    const unknown = '~ficta_aaaaaaaaaaaaaaaaaaaa';
    const body = `data: {"x":"${unknown} and ${P.slice(0, 12)} ${P.slice(12)}"}\n\n`;
    const { out, stats } = restore(generic, Buffer.from(body));
    expect(out).toBe(body);
    expect(stats.misses).toBe(2);
  });

  it('generic streams restore whole placeholders per event', () => {
    const body = `data: {"a":"${P}","b":{"c":"${JSON.stringify({ k: W }).slice(1, -1).replaceAll('"', '\\"')}"}}\n\ndata: [DONE]\n\n`;
    const { out } = restore(generic, Buffer.from(body));
    expect(out).not.toContain('~ficta_');
    expect(out.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  describe('raw values in plain-text data (the client joins data lines with LF)', () => {
    const LEAD = ' lead-space-value';
    const LINES = 'two\nlines\n';
    const CR = 'has\rcr-value';
    const CRLF = 'has\r\ncrlf-value';
    const raw = testSet({ LEAD, LINES, CR, CRLF });
    const run = (body: string, split = splits()[0]!): { data: string[]; out: string; misses: number } => {
      const stats = createRestoreStats();
      const out = runThrough(() => createSseRestorer(raw, generic, stats, { maxEventBytes: 1 << 20 }), Buffer.from(body), split).toString('utf8');
      return { data: parseSse(out).map((e) => e.data), out, misses: stats.misses };
    };

    it('restores a value with LF as further data: lines in the block\'s own line ending', () => {
      for (const eol of ['\n', '\r\n', '\r']) {
        for (const split of splits(3)) {
          const { data, misses } = run(`data: a ${ph(raw, LINES)} b${eol}data: ${ph(raw, LINES)}${eol}${eol}`, split);
          expect(data).toEqual([`a ${LINES} b\n${LINES}`]);
          expect(misses).toBe(0);
        }
      }
    });

    it('leaves a value holding CR or CRLF as its placeholder and counts a miss (SSE data cannot carry CR)', () => {
      for (const value of [CR, CRLF]) {
        const body = `data: see ${ph(raw, value)} and ${ph(raw, LINES)}\n\n`;
        const { data, misses } = run(body);
        expect(data).toEqual([`see ${ph(raw, value)} and ${LINES}`]);
        expect(misses).toBe(1);
      }
    });

    it('keeps a value\'s leading space when the placeholder starts a data: line written without one', () => {
      for (const body of [`data:${ph(raw, LEAD)}\n\n`, `data: ${ph(raw, LEAD)}\n\n`, `data:x\ndata:${ph(raw, LEAD)}\n\n`]) {
        const { data } = run(body);
        expect(data[0]?.endsWith(LEAD)).toBe(true);
        expect(data[0]?.replace(LEAD, '')).toBe(body.startsWith('data:x') ? 'x\n' : '');
      }
    });
  });

  it('restores an upper-cased placeholder (models sometimes change case)', () => {
    const body = `data: {"choices":[{"index":0,"delta":{"content":"${P.toUpperCase()}"}}]}\n\n`;
    const { out } = restore(openaiChat, Buffer.from(body));
    expect(collect(out).streams.get('c0:text')).toBe(PLAIN);
  });
});
