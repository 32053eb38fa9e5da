// Delta events read by their shape (event-shape.ts) instead of a parse: they restore exactly as parsed
// events do, and a shape is only ever taken from an event whose data is its own bytes.

import { describe, expect, it } from 'vitest';
import { anthropicMessages } from '../../src/providers/anthropic-messages.ts';
import { createRestoreStats } from '../../src/restore/restore-bytes.ts';
import { createSseRestorer } from '../../src/restore/sse-restorer.ts';
import { runThrough, splits } from '../helpers/chunking.ts';
import { ph, testSet } from '../helpers/secret-set.ts';

const WEIRD = 'pa"ss\\wörd\n-x1 🔑';
const PLAIN = 'sk-ant-api03-AbCdEfGhIjKlMnOp';
const set = testSet({ WEIRD, PLAIN });
const W = ph(set, WEIRD);
const P = ph(set, PLAIN);

function restore(input: string, split = splits()[0]!): string {
  return runThrough(() => createSseRestorer(set, anthropicMessages, createRestoreStats(), { maxEventBytes: 1 << 20 }), Buffer.from(input), split).toString('utf8');
}

/** The concatenated delta strings of block `index`, as a client reads them. */
function streamed(sse: string, index: number): string {
  let out = '';
  for (const block of sse.split('\n\n')) {
    const data = block
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(l.startsWith('data: ') ? 6 : 5))
      .join('\n');
    if (data === '') continue;
    const ev = JSON.parse(data) as { type: string; index?: number; delta?: { text?: string; partial_json?: string } };
    if (ev.type === 'content_block_delta' && ev.index === index) out += ev.delta?.text ?? ev.delta?.partial_json ?? '';
  }
  return out;
}

const START = `data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[]}}\n\n`;
const STOP = `data: {"type":"message_stop"}\n\n`;

describe('delta events read by their shape', () => {
  it('never learns a shape from data joined from several lines (a copy from the same pool slab gave wrong offsets)', () => {
    // Tool arguments in look-alike events whose data spans two `data:` lines, an array of numbers: any
    // byte wrongly taken for arguments content breaks their grammar, and the placeholder after them would
    // be restored at the wrong depth.
    const delta = (partial: string): string =>
      `data: {"type":"content_block_delta","index":0,\ndata: "delta":{"type":"input_json_delta","partial_json":${JSON.stringify(partial)}}}\n\n`;
    const pieces = ['{"a":[', ...Array<string>(12).fill('1,'), '1],"k":', `"${W}"}`];
    const input = `${START}data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"t","input":{}}}\n\n${pieces.map(delta).join('')}data: {"type":"content_block_stop","index":0}\n\n${STOP}`;
    // Small enough that the region and every joined copy come from Node's Buffer pool.
    expect(input.length).toBeLessThan(4096);
    for (const split of splits(2)) expect(JSON.parse(streamed(restore(input, split), 0)), split.name).toEqual({ a: Array<number>(13).fill(1), k: WEIRD });
  });

  it('restores placeholders split across many look-alike text deltas as a parse would, byte for byte elsewhere', () => {
    const text = `intro ${W} mid ${P}${P} [json "${W}"] ~ ~~ end ${W}`.repeat(6);
    const delta = (t: string): string => `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":${JSON.stringify(t)}}}\n\n`;
    const cps = [...text];
    let body = '';
    for (let i = 0; i < cps.length; i += 7) body += delta(cps.slice(i, i + 7).join(''));
    const head = `event: message_start\n${START}event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n`;
    const input = `${head}${body}event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\nevent: message_stop\n${STOP}`;
    const want = text.replaceAll(W, WEIRD).replaceAll(P, PLAIN);
    for (const split of splits(3)) {
      const out = restore(input, split);
      expect(streamed(out, 0), split.name).toBe(want);
      // Every byte outside the delta strings is as it came.
      expect(out.replace(/"text":"(?:[^"\\]|\\.)*"/g, ''), split.name).toBe(input.replace(/"text":"(?:[^"\\]|\\.)*"/g, ''));
    }
  });
});
