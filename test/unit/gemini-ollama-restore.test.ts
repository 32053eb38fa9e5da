// Conformance of the Gemini and Ollama adapters (the suite every adapter runs: whole, seeded random
// chunkings, byte by byte): Gemini alt=sse events, the streamed JSON array and the whole body, Ollama
// NDJSON lines (chat and generate) and the stream:false body. Placeholders split across events, lines and
// array elements, values that need escaping (`"`, `\`, `ö`, newline, astral), JSON text inside a text
// stream and inside a functionCall argument string; held bytes at a stream's end, and a stream without
// placeholders passes byte-identical.

import { describe, expect, it } from 'vitest';
import { geminiStream } from '../../src/providers/gemini.ts';
import { ollama } from '../../src/providers/ollama.ts';
import type { StreamAdapter } from '../../src/providers/types.ts';
import { createBodyRestorer } from '../../src/restore/body-restorer.ts';
import type { Framing } from '../../src/restore/framing.ts';
import { createJsonSeqFraming } from '../../src/restore/json-seq-frame.ts';
import { createNdjsonFraming } from '../../src/restore/ndjson-frame.ts';
import { createRestoreStats, type RestoreStats } from '../../src/restore/restore-bytes.ts';
import { createSseFraming } from '../../src/restore/sse-frame.ts';
import { createStreamRestorer } from '../../src/restore/stream-restorer.ts';
import { runThrough, splits } from '../helpers/chunking.ts';
import { ph, testSet } from '../helpers/secret-set.ts';
import type { Reply } from '../helpers/wire.ts';
import { geminiJson, geminiJsonArray, geminiSse } from '../helpers/wire-gemini.ts';
import { ollamaJson, ollamaNdjson } from '../helpers/wire-ollama.ts';

const PLAIN = 'sk-ant-api03-AbCdEfGhIjKlMnOp';
const WEIRD = 'pa"ss\\wörd\n-x1 🔑';
const set = testSet({ PLAIN, WEIRD });
const P = ph(set, PLAIN);
const W = ph(set, WEIRD);

/** Prose (raw values), a thought that is JSON text (values escaped in it), and arguments with JSON text inside a string. */
const TEXT = `[note: "${W} "q" ${P}${W}ö🔑 ~ not one ~fic`;
const WANT_TEXT = `[note: "${WEIRD} "q" ${PLAIN}${WEIRD}ö🔑 ~ not one ~fic`;
const THOUGHT = `{"note": "${W}", "n": [1, "${P}"]}`;
const WANT_THOUGHT = `{"note": ${JSON.stringify(WEIRD)}, "n": [1, "${PLAIN}"]}`;
const ARGS = { file_path: `/tmp/${W}`, content: JSON.stringify({ k: W, p: [P] }) };
const WANT_ARGS = { file_path: `/tmp/${WEIRD}`, content: JSON.stringify({ k: WEIRD, p: [PLAIN] }) };

const reply = (pieceSize: number): Reply => ({ text: TEXT, thinking: THOUGHT, tool: { name: 'write_file', input: ARGS }, pieceSize });

type Kind = 'sse' | 'array' | 'ndjson';

function framing(kind: Kind): Framing {
  return kind === 'sse' ? createSseFraming(1 << 20) : kind === 'array' ? createJsonSeqFraming(1 << 20) : createNdjsonFraming(1 << 20);
}

function restoreStream(adapter: StreamAdapter, kind: Kind, input: string, split = splits()[0]!): { out: string; stats: RestoreStats } {
  const stats = createRestoreStats();
  const out = runThrough(() => createStreamRestorer(set, adapter, stats, framing(kind)), Buffer.from(input), split);
  return { out: out.toString('utf8'), stats };
}

/** GenerateContentResponse objects of a Gemini stream, as a client reads them. */
function geminiObjects(kind: 'sse' | 'array', out: string): any[] {
  if (kind === 'array') return JSON.parse(out);
  return out
    .split(/\r?\n\r?\n/)
    .filter((e) => e.trim() !== '')
    .map((e) =>
      JSON.parse(
        e
          .split(/\r?\n/)
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(l.startsWith('data: ') ? 6 : 5))
          .join('\n'),
      ),
    );
}

/** What @google/genai and Gemini CLI rebuild: text and thought joined per candidate, function calls in order. */
function readGemini(objects: any[]): { text: string; thought: string; calls: any[]; signatures: string[] } {
  const r = { text: '', thought: '', calls: [] as any[], signatures: [] as string[] };
  for (const o of objects) {
    for (const p of o.candidates?.[0]?.content?.parts ?? []) {
      if (typeof p.text === 'string') {
        if (p.thought === true) r.thought += p.text;
        else r.text += p.text;
      }
      if (p.functionCall !== undefined) r.calls.push(p.functionCall.args);
      if (p.thoughtSignature !== undefined) r.signatures.push(p.thoughtSignature);
    }
  }
  return r;
}

/** What an Ollama client rebuilds from NDJSON lines (chat: message.*; generate: response/thinking). */
function readOllama(out: string): { text: string; thought: string; calls: any[]; lines: any[] } {
  const lines = out
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
  const r = { text: '', thought: '', calls: [] as any[], lines };
  for (const l of lines) {
    r.text += l.message?.content ?? l.response ?? '';
    r.thought += l.message?.thinking ?? l.thinking ?? '';
    for (const c of l.message?.tool_calls ?? []) r.calls.push(c.function.arguments);
  }
  return r;
}

const SPLITS = splits(4);

describe('Gemini streams (alt=sse events and the streamed JSON array)', () => {
  for (const kind of ['sse', 'array'] as const) {
    const write = kind === 'sse' ? geminiSse : geminiJsonArray;
    for (const size of [1, 3, 11]) {
      it(`${kind}: text and thought split across events (pieces of ${size}) and functionCall.args are restored exactly once, at their depth`, () => {
        const input = write(reply(size));
        for (const split of SPLITS) {
          const { out, stats } = restoreStream(geminiStream, kind, input, split);
          const got = readGemini(geminiObjects(kind, out));
          expect(got.text, split.name).toBe(WANT_TEXT);
          expect(got.thought, split.name).toBe(WANT_THOUGHT);
          expect(got.calls).toEqual([WANT_ARGS]);
          expect(got.signatures).toEqual(['c2lnbmF0dXJlLW9wYXF1ZQ==']);
          expect(out).not.toContain('~ficta_');
          expect(stats.misses).toBe(0);
        }
      });
    }

    it(`${kind}: a stream without placeholders passes byte-identical`, () => {
      const input = write({ text: 'plain "text" [1, 2] and more', thinking: '{"a": "b"}', tool: { name: 'f', input: { a: 'x' } }, pieceSize: 2 });
      for (const split of splits()) expect(restoreStream(geminiStream, kind, input, split).out).toBe(input);
    });

    it(`${kind}: bytes held at a stream's end leave in a copy of its last event (never one that carries a call), the call once`, () => {
      // The text ends in what could start a placeholder; the function call and the end come in later events.
      const head = `text ${P} then ${P.slice(0, 12)}`;
      const chunks = [
        { candidates: [{ content: { parts: [{ text: head }], role: 'model' }, index: 0 }] },
        { candidates: [{ content: { parts: [{ text: ` and ${P.slice(0, 12)}` }, { functionCall: { name: 'f', args: { a: P } } }], role: 'model' }, index: 0 }] },
        { candidates: [{ content: { parts: [], role: 'model' }, finishReason: 'STOP', index: 0 }] },
      ];
      const input = kind === 'sse' ? chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`).join('') : `[${chunks.map((c) => JSON.stringify(c)).join(',\r\n')}]`;
      for (const split of splits()) {
        const { out } = restoreStream(geminiStream, kind, input, split);
        const got = readGemini(geminiObjects(kind, out));
        expect(got.text).toBe(`text ${PLAIN} then ${P.slice(0, 12)} and ${P.slice(0, 12)}`);
        expect(got.calls).toEqual([{ a: PLAIN }]);
      }
    });
  }

  it('a streamed-array response that is one object (an error) is read as a document of its own', () => {
    const input = JSON.stringify({ error: { code: 400, message: `bad ${W} ${P.slice(0, 9)}`, status: 'INVALID_ARGUMENT' } });
    for (const split of splits()) {
      const { out } = restoreStream(geminiStream, 'array', input, split);
      expect(JSON.parse(out).error.message).toBe(`bad ${WEIRD} ${P.slice(0, 9)}`);
    }
    // A lone GenerateContentResponse whose text ends like a placeholder's start: never sent twice.
    const lone = JSON.stringify({ candidates: [{ content: { parts: [{ text: `x ${P} ${P.slice(0, 7)}` }] } }] });
    for (const split of splits()) expect(JSON.parse(restoreStream(geminiStream, 'array', lone, split).out).candidates[0].content.parts[0].text).toBe(`x ${PLAIN} ${P.slice(0, 7)}`);
  });

  it('the whole :generateContent body: text, thought and functionCall.args restored, thoughtSignature untouched', () => {
    const input = JSON.stringify(geminiJson(reply(3)));
    for (const split of splits()) {
      const out = runThrough(() => createBodyRestorer(set, 'json', createRestoreStats()), Buffer.from(input), split).toString();
      const got = readGemini([JSON.parse(out)]);
      expect(got).toEqual({ text: WANT_TEXT, thought: WANT_THOUGHT, calls: [WANT_ARGS], signatures: ['c2lnbmF0dXJlLW9wYXF1ZQ=='] });
    }
  });

  it('a chunk with several parts of one stream that ends it: the stream continues through each part, ends after the last', () => {
    // The API may put several parts in a chunk; here the last chunk (finishReason, and a call) completes a placeholder over two parts.
    const chunks = [
      { candidates: [{ content: { parts: [{ text: `a ${P.slice(0, 9)}`, thought: true }] }, index: 0 }] },
      { candidates: [{ content: { parts: [{ text: P.slice(9, 20), thought: true }, { text: `${P.slice(20)} b`, thought: true }, { functionCall: { name: 'f', args: {} } }] }, finishReason: 'STOP', index: 0 }] },
    ];
    for (const kind of ['sse', 'array'] as const) {
      const input = kind === 'sse' ? chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') : `[${chunks.map((c) => JSON.stringify(c)).join(',')}]`;
      for (const split of splits()) {
        const { out, stats } = restoreStream(geminiStream, kind, input, split);
        expect(readGemini(geminiObjects(kind, out)).thought, `${kind} ${split.name}`).toBe(`a ${PLAIN} b`);
        expect(stats.misses).toBe(0);
      }
    }
  });

  it('keys text per candidate and part kind: two candidates and thought parts never mix', () => {
    const [a, b] = [P.slice(0, 10), P.slice(10)];
    const chunks = [
      { candidates: [{ content: { parts: [{ text: `A ${a}` }, { text: `T ${b}`, thought: true }] }, index: 0 }, { content: { parts: [{ text: `B ${a}` }] }, index: 1 }] },
      { candidates: [{ content: { parts: [{ text: `${b} A` }] }, index: 0 }, { content: { parts: [{ text: `${b} B` }] }, finishReason: 'STOP', index: 1 }] },
      { candidates: [{ content: { parts: [{ text: '' }] }, finishReason: 'STOP', index: 0 }] },
    ];
    const input = chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('');
    for (const split of splits()) {
      const objects = geminiObjects('sse', restoreStream(geminiStream, 'sse', input, split).out);
      const per = (i: number, thought: boolean): string =>
        objects
          .flatMap((o) => o.candidates.filter((c: any) => c.index === i).flatMap((c: any) => c.content.parts))
          .filter((p: any) => (p.thought === true) === thought)
          .map((p: any) => p.text)
          .join('');
      expect(per(0, false)).toBe(`A ${PLAIN} A`);
      expect(per(1, false)).toBe(`B ${PLAIN} B`);
      // The thought stream got only its first half: it ends with the response, its prefix as it came.
      expect(per(0, true)).toBe(`T ${b}`);
    }
  });
});

describe('Ollama streams (NDJSON) and stream:false bodies', () => {
  for (const endpoint of ['chat', 'generate'] as const) {
    for (const size of [1, 3, 11]) {
      it(`/api/${endpoint}: content and thinking split across lines (pieces of ${size})${endpoint === 'chat' ? ' and tool_calls arguments' : ''} are restored exactly once`, () => {
        const input = ollamaNdjson(endpoint, reply(size));
        for (const split of SPLITS) {
          const { out, stats } = restoreStream(ollama, 'ndjson', input, split);
          const got = readOllama(out);
          expect(got.text, split.name).toBe(WANT_TEXT);
          expect(got.thought, split.name).toBe(WANT_THOUGHT);
          expect(got.calls).toEqual(endpoint === 'chat' ? [WANT_ARGS] : []);
          expect(got.lines.at(-1).done).toBe(true);
          expect(out).not.toContain('~ficta_');
          expect(stats.misses).toBe(0);
        }
      });
    }

    it(`/api/${endpoint}: a stream without placeholders passes byte-identical; the stream:false body is restored`, () => {
      const input = ollamaNdjson(endpoint, { text: 'plain "text" and more', thinking: '{"a": 1}', tool: { name: 'f', input: { a: 'x' } }, pieceSize: 2 });
      for (const split of splits()) expect(restoreStream(ollama, 'ndjson', input, split).out).toBe(input);
      const body = JSON.stringify(ollamaJson(endpoint, reply(3)));
      for (const split of splits()) {
        const got = readOllama(runThrough(() => createBodyRestorer(set, 'json', createRestoreStats()), Buffer.from(body), split).toString());
        expect([got.text, got.thought, got.calls]).toEqual([WANT_TEXT, WANT_THOUGHT, endpoint === 'chat' ? [WANT_ARGS] : []]);
      }
    });
  }

  it('held bytes at a stream’s end leave in a line of their own, never in a copy of the tool_calls line; arguments sent as JSON text are restored too', () => {
    const lines = [
      { message: { role: 'assistant', content: `see ${P.slice(0, 14)}` }, done: false },
      { message: { role: 'assistant', content: '', tool_calls: [{ function: { name: 'f', arguments: JSON.stringify({ a: W }) } }] }, done: false },
      { done: true, done_reason: 'stop' },
    ];
    const input = lines.map((l) => `${JSON.stringify(l)}\n`).join('');
    for (const split of splits()) {
      const got = readOllama(restoreStream(ollama, 'ndjson', input, split).out);
      expect(got.text).toBe(`see ${P.slice(0, 14)}`);
      expect(got.calls.map((c) => JSON.parse(c))).toEqual([{ a: WEIRD }]);
    }
  });
});
