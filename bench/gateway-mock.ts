// The gateway bench's mock provider (its own process): answers every request with a paced Anthropic
// Messages stream of a fixed size whose text carries the first four placeholders the request held, split
// across deltas — so each tenant gets its own placeholders back and the gateway restores them. The
// stream is built once with four marker slots; a request costs one copy and 108 byte writes.
// usage: gateway-mock.ts BYTES WATCH.json   (prints `gateway mock listening on <port>`; a request with
// `x-bench-check: 1` is answered with `x-bench-leaks`: how many values of WATCH.json arrived raw)

import { readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PLACEHOLDER_LENGTH } from '../src/redact/placeholder.ts';

const BYTES = Number(process.argv[2] ?? 200 * 1024);
/** Delay to the first text delta, then the rest in TICKS writes GAP_MS apart (as the e2e harness's mock). */
const FIRST_TOKEN_MS = 5;
const TICKS = 10;
const GAP_MS = 1;
const DELTA_CHARS = 24;
const SLOTS = 4;
const PLACEHOLDER = /~ficta_[a-z2-7]{20}/g;
const WATCH = process.argv[3];
const CHECK_HEADER = 'x-bench-check';

const ev = (name: string, data: string): string => `event: ${name}\ndata: ${data}\n\n`;
const head = Buffer.from(
  ev('message_start', '{"type":"message_start","message":{"id":"msg_gw","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}}') +
    ev('content_block_start', '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}'),
);
const tail = Buffer.from(ev('content_block_stop', '{"type":"content_block_stop","index":0}') + ev('message_stop', '{"type":"message_stop"}'));

// The text: filler words with the four slots spread through it (plain ASCII: no JSON escapes, so each
// character sits at one byte of the stream).
const words = 'the quick model wrote a careful answer about deploy scripts and config files for the team'.split(' ');
const deltaPrefix = '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"';
const eventBytes = `event: content_block_delta\ndata: ${deltaPrefix}`.length + DELTA_CHARS + '"}}\n\n'.length;
const deltas = Math.max(TICKS, Math.floor((BYTES - head.length - tail.length) / eventBytes));
let text = '';
for (let i = 0; text.length < deltas * DELTA_CHARS; i++) text += `${words[i % words.length]} `;
text = text.slice(0, deltas * DELTA_CHARS);
const slotAt: number[] = [];
for (let s = 0; s < SLOTS; s++) {
  const at = Math.floor(((s + 1) * text.length) / (SLOTS + 1)) + 7; // deliberately not on a delta boundary
  slotAt.push(at);
  text = text.slice(0, at) + '#'.repeat(PLACEHOLDER_LENGTH) + text.slice(at + PLACEHOLDER_LENGTH);
}
const parts: string[] = [];
const charOffset = new Int32Array(text.length); // text index → byte offset in the body
let bodyLen = head.length;
const tickBounds: number[] = [];
const perTick = Math.ceil(deltas / TICKS);
for (let d = 0; d < deltas; d++) {
  if (d % perTick === 0) tickBounds.push(bodyLen);
  const pre = `event: content_block_delta\ndata: ${deltaPrefix}`;
  for (let k = 0; k < DELTA_CHARS; k++) charOffset[d * DELTA_CHARS + k] = bodyLen + pre.length + k;
  const e = `${pre}${text.slice(d * DELTA_CHARS, (d + 1) * DELTA_CHARS)}"}}\n\n`;
  parts.push(e);
  bodyLen += e.length;
}
tickBounds.push(bodyLen);
const base = Buffer.concat([head, Buffer.from(parts.join('')), tail]);

function streamFor(placeholders: readonly string[]): Buffer {
  const out = Buffer.from(base);
  for (let s = 0; s < SLOTS; s++) {
    const p = placeholders[s % Math.max(1, placeholders.length)] ?? '#'.repeat(PLACEHOLDER_LENGTH);
    for (let k = 0; k < PLACEHOLDER_LENGTH; k++) out[charOffset[(slotAt[s] as number) + k] as number] = p.charCodeAt(k);
  }
  return out;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function send(res: ServerResponse, body: Buffer, extra: Record<string, string>): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...extra });
  res.write(body.subarray(0, tickBounds[0]));
  await sleep(FIRST_TOKEN_MS);
  for (let t = 0; t + 1 < tickBounds.length; t++) {
    if (res.destroyed) return;
    if (t > 0) await sleep(GAP_MS);
    res.write(body.subarray(tickBounds[t], tickBounds[t + 1]));
  }
  res.end(body.subarray(bodyLen));
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('latin1');
    const found = [...new Set(body.match(PLACEHOLDER) ?? [])].slice(0, SLOTS);
    const extra: Record<string, string> = {};
    if (req.headers[CHECK_HEADER] === '1' && WATCH !== undefined) {
      const watched = JSON.parse(readFileSync(WATCH, 'utf8')) as string[];
      extra['x-bench-leaks'] = String(watched.filter((w) => body.includes(Buffer.from(w, 'utf8').toString('latin1'))).length);
    }
    void send(res, streamFor(found), extra);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`gateway mock listening on ${(server.address() as AddressInfo).port}\n`));
const stop = (): void => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
