// Watermark microbenchmarks: embed and fingerprint per 10 KiB, streaming strip per MiB (clean and
// frame-heavy), detect over 1 MiB, and the token overhead of marked documents by size.
// Run: node --import tsx bench/watermark.bench.ts [--rounds N]

import { execSync } from 'node:child_process';
import { cpus } from 'node:os';
import { encode as cl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { encode as o200k } from 'gpt-tokenizer/encoding/o200k_base';
import { Bench } from 'tinybench';
import { codeDocument, proseDocument } from '../fixtures/watermark/corpus.ts';
import { detectMarks } from '../src/watermark/detect.ts';
import { applyPlan, planEmbedding } from '../src/watermark/embed.ts';
import { fingerprintText } from '../src/watermark/fingerprint.ts';
import { formatFrame } from '../src/watermark/frame.ts';
import { deriveKeys } from '../src/watermark/key.ts';
import { rsEncode } from '../src/watermark/reed-solomon.ts';
import { parseWatermarkConfig } from '../src/watermark/config.ts';
import type { Registry } from '../src/watermark/registry.ts';
import { createFrameStripper, stripFramesFromText } from '../src/watermark/strip.ts';
import { createWatermarker } from '../src/watermark/watermarker.ts';

const KiB = 1024;
const MiB = 1024 * KiB;
const CHUNK = 16 * KiB;
const roundsArg = process.argv.indexOf('--rounds');
const ROUNDS = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 3;

const keys = deriveKeys(Buffer.alloc(32, 1));
const SESSION = 'bench-session';
const codeword = rsEncode(keys.sessionMark(SESSION));

function fail(msg: string): never {
  throw new Error(`bench: ${msg}`);
}

// Inputs, named by size.
const doc10 = proseDocument(10 * KiB, 10);
const code10 = codeDocument(10 * KiB, 11);

/** An Anthropic SSE stream of ~1 MiB of text deltas; `everyLines` > 0 plants a frame that often. */
function sseStream(everyLines: number): { chunks: Buffer[]; expected: Buffer } {
  const text = proseDocument(900 * KiB, 12);
  const lines = text.split('\n');
  const marked = lines.map((l, i) => (everyLines > 0 && i % everyLines === 1 ? l + formatFrame({ index: i % 16, value: i & 255 }) : l)).join('\n');
  // One event per line, so no frame is split across events (that case is the restorer's per-delta-stream stripper's).
  const events = (t: string) => {
    let out = '';
    for (const line of t.split('\n')) out += `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: `${line}\n` } })}\n\n`;
    return Buffer.from(out);
  };
  const body = events(marked);
  const chunks: Buffer[] = [];
  for (let at = 0; at < body.length; at += CHUNK) chunks.push(body.subarray(at, at + CHUNK));
  return { chunks, expected: Buffer.from(stripFramesFromText(body.toString())) };
}

function streamStrip(chunks: readonly Buffer[]): Buffer[] {
  const s = createFrameStripper();
  const out: Buffer[] = [];
  for (const c of chunks) out.push(s.push(c));
  out.push(s.flush());
  return out;
}

const clean = sseStream(0);
const framed = sseStream(20);
const MB_CLEAN = clean.chunks.reduce((n, c) => n + c.length, 0) / MiB;
const MB_FRAMED = framed.chunks.reduce((n, c) => n + c.length, 0) / MiB;

const big = proseDocument(1 * MiB, 13);
const bigMarked = applyPlan(big, planEmbedding(big, codeword, keys.placementSeed(SESSION, big)));

// The request-side stage on an Anthropic body with one 10 KiB document; registry writes go to a no-op.
const config = parseWatermarkConfig({});
if (!config.ok) throw config.error;
const noRegistry = { recordSession() {}, recordDocument: () => 'new', close() {} } as unknown as Registry;
const marker = createWatermarker({ config: config.value, home: '/nonexistent', key: Buffer.alloc(32, 1), registry: noRegistry });
const docBody = Buffer.from(JSON.stringify({ model: 'claude-x', max_tokens: 1024, messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: doc10 } }, { type: 'text', text: 'Summarise.' }] }] }));
let sessionCounter = 0;
const markBody = (sessionId: string) => marker.markRequestBody(docBody, { provider: 'anthropic', route: '/v1/messages', sessionId, requestId: 'r' });

function embed(text: string): string {
  return applyPlan(text, planEmbedding(text, codeword, keys.placementSeed(SESSION, text)));
}

// Assert every output before timing it.
{
  const e = embed(doc10);
  if (stripFramesFromText(e) !== doc10 || detectMarks(e).frames.length === 0) fail('embed 10KiB did not place a frame that strips back');
  const fps = fingerprintText(doc10, keys);
  if (fps.length < 200 || fingerprintText(doc10, keys).join() !== fps.join()) fail('fingerprint 10KiB not deterministic or too few');
  const outClean = streamStrip(clean.chunks);
  // Chunks are passed through as the same Buffer unless one ends inside a possible start (`\`, `\u20`…).
  const same = outClean.filter((b, i) => b === clean.chunks[i]).length;
  if (same < 0.8 * clean.chunks.length) fail(`only ${same}/${clean.chunks.length} clean chunks passed through zero-copy`);
  console.log(`clean stream: ${same}/${clean.chunks.length} chunks of ${CHUNK / KiB} KiB passed through as the same Buffer`);
  if (!Buffer.concat(outClean).equals(clean.expected)) fail('clean strip changed bytes');
  if (!Buffer.concat(streamStrip(framed.chunks)).equals(framed.expected)) fail('framed strip wrong');
  if (framed.expected.includes('\u2060')) fail('framed expectation still has frames');
  const m = markBody('assert');
  if (m.marked !== 1 || stripFramesFromText(m.body.toString()) !== docBody.toString()) fail('markRequestBody did not mark the document in place');
  const d = detectMarks(bigMarked);
  if (d.decoded === undefined || Buffer.from(d.decoded.mark).toString('hex') !== Buffer.from(keys.sessionMark(SESSION)).toString('hex')) fail('detect 1MiB did not decode the mark');
}

interface Row {
  task: string;
  unit: string;
  target: string;
  p50: number[];
  p99: number[];
  scale: number;
}

const rows: Row[] = [
  { task: 'embed 10KiB prose', unit: 'ms / 10 KiB', target: '≤ 0.2', p50: [], p99: [], scale: 1 },
  { task: 'embed 10KiB code', unit: 'ms / 10 KiB', target: '≤ 0.2', p50: [], p99: [], scale: 1 },
  { task: 'markRequestBody 10KiB doc, new session', unit: 'ms / body', target: '-', p50: [], p99: [], scale: 1 },
  { task: 'markRequestBody 10KiB doc, resent turn', unit: 'ms / body', target: '-', p50: [], p99: [], scale: 1 },
  { task: 'fingerprint 10KiB prose', unit: 'ms / 10 KiB', target: '≤ 1', p50: [], p99: [], scale: 1 },
  { task: 'strip SSE, no frames', unit: 'ms / MiB', target: '≤ 0.3', p50: [], p99: [], scale: 1 / MB_CLEAN },
  { task: 'strip SSE, frame every 20 lines', unit: 'ms / MiB', target: '≤ 0.3', p50: [], p99: [], scale: 1 / MB_FRAMED },
  { task: 'detect 1MiB marked prose', unit: 'ms / MiB', target: '≤ 20', p50: [], p99: [], scale: 1 },
];
const fns: Array<() => unknown> = [
  () => embed(doc10),
  () => embed(code10),
  () => markBody(`s${sessionCounter++}`),
  () => markBody('same-session'),
  () => fingerprintText(doc10, keys),
  () => streamStrip(clean.chunks),
  () => streamStrip(framed.chunks),
  () => detectMarks(bigMarked),
];

for (let round = 0; round < ROUNDS; round++) {
  const bench = new Bench({ time: 800, warmupTime: 200 });
  // Alternate the order between rounds so drift on a shared machine does not favour one task.
  const order = rows.map((_, i) => i);
  if (round % 2 === 1) order.reverse();
  for (const i of order) bench.add(rows[i]!.task, fns[i]!);
  await bench.run();
  for (const row of rows) {
    const result = bench.tasks.find((t) => t.name === row.task)?.result;
    if (result === undefined || !('latency' in result)) fail(`${row.task} has no result`);
    row.p50.push(result.latency.p50 * row.scale);
    row.p99.push(result.latency.p99 * row.scale);
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const sha = (() => {
  try {
    return execSync('git rev-parse --short HEAD', { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    return 'unknown';
  }
})();
console.log(`node ${process.version} · ${cpus()[0]?.model ?? 'cpu?'} × ${cpus().length} · git ${sha} · ${ROUNDS} rounds, median of per-round p50 (p99 alongside)`);
console.table(
  rows.map((r) => ({ task: r.task, unit: r.unit, 'p50 (median)': median(r.p50).toFixed(4), 'p99 (median)': median(r.p99).toFixed(4), 'p50 per round': r.p50.map((x) => x.toFixed(4)).join(' '), target: r.target })),
);

// Token overhead of marked documents, measured with real tokenizers.
const overhead: Array<Record<string, string | number>> = [];
for (const [kind, make] of [
  ['prose', proseDocument],
  ['code', codeDocument],
] as const) {
  for (const size of [2 * KiB, 5 * KiB, 10 * KiB, 20 * KiB, 40 * KiB, 100 * KiB, 200 * KiB]) {
    const text = make(size, size + 7);
    const plan = planEmbedding(text, codeword, keys.placementSeed(SESSION, text));
    const marked = applyPlan(text, plan);
    const o = o200k(text).length;
    const c = cl100k(text).length;
    const oMarked = o200k(marked).length;
    const cMarked = cl100k(marked).length;
    if ((oMarked - o) / o > 0.009 || (cMarked - c) / c > 0.009) fail(`${kind} ${size} over budget`);
    overhead.push({
      document: `${kind} ${Math.round(size / KiB)}KiB`,
      frames: plan.frames.length,
      'o200k tokens': o,
      'o200k +%': (((oMarked - o) / o) * 100).toFixed(3),
      'cl100k tokens': c,
      'cl100k +%': (((cMarked - c) / c) * 100).toFixed(3),
      'per frame (o200k)': plan.frames.length > 0 ? ((oMarked - o) / plan.frames.length).toFixed(1) : '-',
    });
  }
}
console.log('token overhead (target ≤ 0.9 %):');
console.table(overhead);
