// The stream restorer over other framings than SSE (the seam Gemini and Ollama adapters plug into):
// NDJSON lines and the elements of a streamed JSON array, with placeholders split across events,
// whole values, and bytes passed through unchanged. Also the SSE framing's own invariants.

import { describe, expect, it } from 'vitest';
import { ALL_KEYS, type DeltaField, type StreamAdapter } from '../../src/providers/types.ts';
import { createJsonSeqFraming } from '../../src/restore/json-seq-frame.ts';
import { createNdjsonFraming } from '../../src/restore/ndjson-frame.ts';
import { createRestoreStats } from '../../src/restore/restore-bytes.ts';
import { createSseFraming, lastEventEnd, readSseEvent } from '../../src/restore/sse-frame.ts';
import { createStreamRestorer } from '../../src/restore/stream-restorer.ts';
import { runThrough, splits } from '../helpers/chunking.ts';
import { ph, testSet } from '../helpers/secret-set.ts';
import { pieces } from '../helpers/wire.ts';

const PLAIN = 'sk-ant-api03-AbCdEfGhIjKlMnOp';
const WEIRD = 'pa"ss\\wörd\n-x1 🔑';
const set = testSet({ PLAIN, WEIRD });
const P = ph(set, PLAIN);
const W = ph(set, WEIRD);

/** An Ollama-like adapter: `message.content` / `message.thinking` fragments per line, `done: true` ends them. */
const ndjsonAdapter: StreamAdapter = {
  id: 'generic',
  deltas(_event, data) {
    const m = data.message as Record<string, unknown> | undefined;
    const out: DeltaField[] = [];
    for (const f of ['content', 'thinking']) if (typeof m?.[f] === 'string') out.push({ key: f, path: ['message', f], json: false });
    return out;
  },
  ends: (_event, data) => (data?.done === true ? ALL_KEYS : undefined),
};

/** A Gemini-like adapter: `candidates[i].content.parts[j].text` fragments, `finishReason` ends a candidate. */
const arrayAdapter: StreamAdapter = {
  id: 'generic',
  jsonArrayStream: true,
  deltas(_event, data) {
    const out: DeltaField[] = [];
    const candidates = Array.isArray(data.candidates) ? data.candidates : [];
    candidates.forEach((c: Record<string, unknown>, ci) => {
      const parts = (c?.content as Record<string, unknown> | undefined)?.parts;
      if (!Array.isArray(parts)) return;
      parts.forEach((p: Record<string, unknown>, pj) => {
        if (typeof p?.text === 'string') out.push({ key: `${String(c.index ?? ci)}/${pj}`, path: ['candidates', ci, 'content', 'parts', pj, 'text'], json: false });
      });
    });
    return out;
  },
  ends(_event, data) {
    const candidates = Array.isArray(data?.candidates) ? data.candidates : [];
    const done = candidates.filter((c: Record<string, unknown>) => typeof c?.finishReason === 'string').map((c: Record<string, unknown>) => `${String(c.index ?? 0)}/`);
    return done.length === 0 ? undefined : (k) => done.some((p: string) => k.startsWith(p));
  },
};

const TEXT = `Here ${W} and ${P}: {"json": "${P}"} ~ not one`;
const EXPECTED = `Here ${WEIRD} and ${PLAIN}: {"json": "${PLAIN}"} ~ not one`;

function ndjson(text: string, size: number): string {
  const lines = pieces(text, size).map((p) => JSON.stringify({ model: 'm', message: { role: 'assistant', content: p }, done: false }));
  lines.push(JSON.stringify({ model: 'm', message: { role: 'assistant', content: '', tool_calls: [{ function: { name: 'f', arguments: { key: W } } }] }, done: true, total_duration: 1 }).replace('"total_duration":1', '"total_duration":12345678901234567890'));
  return `${lines.join('\n')}\n`;
}

function jsonArray(text: string, size: number): string {
  const elems = pieces(text, size).map((p) => JSON.stringify({ candidates: [{ content: { parts: [{ text: p }], role: 'model' }, index: 0 }] }, null, 2));
  elems.push(JSON.stringify({ candidates: [{ content: { parts: [{ functionCall: { name: 'f', args: { key: W } } }], role: 'model' }, finishReason: 'STOP', index: 0 }], usageMetadata: { big: 1 } }).replace('"big":1', '"big":12345678901234567890'));
  return `[${elems.join(',\r\n')}]`;
}

describe('stream restore over NDJSON lines', () => {
  const restore = (input: string, split = splits()[0]!): string =>
    runThrough(() => createStreamRestorer(set, ndjsonAdapter, createRestoreStats(), createNdjsonFraming(1 << 20)), Buffer.from(input), split).toString('utf8');

  for (const size of [1, 4, 25]) {
    it(`restores placeholders split across lines and whole values (pieces of ${size})`, () => {
      for (const split of splits(4)) {
        const out = restore(ndjson(TEXT, size), split);
        const lines = out.trimEnd().split('\n').map((l) => JSON.parse(l));
        expect(lines.map((l) => l.message.content).join('')).toBe(EXPECTED);
        expect(lines.at(-1).message.tool_calls[0].function.arguments.key).toBe(WEIRD);
        expect(out).toContain('"total_duration":12345678901234567890');
      }
    });
  }

  it('passes a stream without placeholders through byte-identical', () => {
    const input = ndjson('no placeholders here {"a": 1}', 3).replaceAll(W, 'x');
    for (const split of splits()) expect(restore(input, split)).toBe(input);
  });

  it('leaves a raw value with a line break in a text line as its placeholder (it would cut the line), counting a miss', () => {
    // WEIRD holds LF: restored raw into a non-JSON line it would make two lines of one.
    const input = `plain ${W} and ${P}\n{"message":{"content":"${W}"}}\n`;
    const stats = createRestoreStats();
    const out = runThrough(() => createStreamRestorer(set, ndjsonAdapter, stats, createNdjsonFraming(1 << 20)), Buffer.from(input), splits()[0]!).toString('utf8');
    const lines = out.split('\n');
    expect(lines[0]).toBe(`plain ${W} and ${PLAIN}`);
    expect(JSON.parse(lines[1] as string).message.content).toBe(WEIRD);
    expect(lines.length).toBe(3);
    expect(stats.misses).toBe(1);
  });
});

describe('stream restore over a streamed JSON array', () => {
  const restore = (input: string, split = splits()[0]!): string =>
    runThrough(() => createStreamRestorer(set, arrayAdapter, createRestoreStats(), createJsonSeqFraming(1 << 20)), Buffer.from(input), split).toString('utf8');

  for (const size of [1, 5, 30]) {
    it(`restores placeholders split across elements and whole values (pieces of ${size})`, () => {
      for (const split of splits(4)) {
        const out = restore(jsonArray(TEXT, size), split);
        const elems = JSON.parse(out);
        const text = elems.map((e: any) => e.candidates[0].content.parts[0].text ?? '').join('');
        expect(text).toBe(EXPECTED);
        expect(elems.at(-1).candidates[0].content.parts[0].functionCall.args.key).toBe(WEIRD);
        expect(out).toContain('"big":12345678901234567890');
        expect(out.startsWith('[{\n  "candidates"')).toBe(true);
      }
    });
  }

  it('passes a stream without placeholders through byte-identical, and a single object too', () => {
    const input = jsonArray('plain "text" [1, 2]', 2).replaceAll(W, 'x');
    for (const split of splits()) expect(restore(input, split)).toBe(input);
    const single = JSON.stringify({ error: { message: `bad ${W}` } });
    for (const split of splits(2)) expect(JSON.parse(restore(single, split)).error.message).toBe(`bad ${WEIRD}`);
  });
});

describe('SSE framing', () => {
  it('cuts any chunking into regions of whole events whose bytes are the stream', () => {
    const events = [`data: a\n\n`, `event: x\r\ndata: b\r\ndata: c\r\n\r\n`, `: ping\n\n`, `data: d\r\rdata: e\r\r`, `data: ${'y'.repeat(300)}\n\n`];
    const stream = Buffer.from(events.join('').repeat(5));
    for (const split of splits()) {
      const framing = createSseFraming(1 << 20);
      const regions: Buffer[] = [];
      for (const c of split.chunks(stream)) regions.push(...framing.push(Buffer.from(c)));
      const rest = framing.end();
      if (rest !== undefined) regions.push(rest);
      expect(Buffer.concat(regions).equals(stream)).toBe(true);
      const datas: string[] = [];
      for (const r of regions) {
        for (let pos = 0; pos < r.length; ) {
          const end = framing.nextEventEnd(r, pos);
          const d = readSseEvent(r.subarray(pos, end)).data;
          if (d !== undefined) datas.push(d.toString());
          pos = end;
        }
      }
      expect(datas.slice(0, 5)).toEqual(['a', 'b\nc', 'd', 'e', 'y'.repeat(300)]);
      expect(datas.length).toBe(25);
    }
  });

  it('finds (or rules out) a blank line however far back the previous line break is', () => {
    for (let n = 0; n < 120; n++) {
      const line = Buffer.from(`${"x".repeat(n)}\n`);
      expect(lastEventEnd(line), `${n}`).toBe(-1);
      expect(lastEventEnd(Buffer.from(`\n${"x".repeat(n)}\n\n`)), `${n}`).toBe(n + 3);
      expect(lastEventEnd(Buffer.from(`a\n\n${"x".repeat(n)}\n`)), `${n}`).toBe(n === 0 ? 4 : 3);
    }
  });

  it('reads one event of many short data lines, and rewrites it by byte surgery', () => {
    const lines = Array.from({ length: 2000 }, (_, i) => (i === 1234 ? `data: ${P}` : `data: ${String(i).padStart(6, '0')}`));
    const block = Buffer.from(`event: big\n${lines.join('\n')}\n\n`);
    const ev = readSseEvent(block);
    expect(ev.name).toBe('big');
    const data = ev.data as Buffer;
    const at = data.indexOf(P);
    const out = ev.rewrite([{ start: at, end: at + P.length, bytes: Buffer.from('A\nB') }]).toString();
    expect(out).toBe(block.toString().replace(`data: ${P}\n`, 'data: A\ndata: B\n'));
    // A CR has no form in SSE data: the restorer never asks for one (Framing.carries), and a rewrite refuses it.
    expect(() => ev.rewrite([{ start: at, end: at + P.length, bytes: Buffer.from('A\r\nB') }])).toThrow(/CR/);
  });
});
