// End to end with the official Anthropic SDK: a 40 KB document goes out through a minimal stand-in for
// the proxy's watermark stages (markRequestBody on the way out; byte and per-delta strippers on the way
// back), a mock upstream records what it received and streams the document back in 7-character deltas,
// and attribution of the recorded copy names the session and the request.
import Anthropic from '@anthropic-ai/sdk';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proseDocument } from '../../fixtures/watermark/corpus.ts';
import { attributeText } from '../../src/watermark/attribute.ts';
import { parseWatermarkConfig } from '../../src/watermark/config.ts';
import { deriveKeys, readKeyFile } from '../../src/watermark/key.ts';
import { openRegistry } from '../../src/watermark/registry.ts';
import { createDeltaStripper, createStripTransform, type FrameStripper } from '../../src/watermark/strip.ts';
import { createWatermarker, type Watermarker } from '../../src/watermark/watermarker.ts';

const DOC = proseDocument(40_000, 4242);
let home: string;
let upstream: Server;
let proxy: Server;
let wm: Watermarker;
const received: Array<{ body: Buffer; requestId: string }> = [];

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

/** The SSE part of the stand-in: per content block, a delta stripper (frames split across events). */
function stripSseDeltas(): { push(text: string): string; end(): string } {
  let pending = '';
  const perBlock = new Map<number, FrameStripper<string>>();
  const rewrite = (event: string): string => {
    const dataLine = event.split('\n').find((l) => l.startsWith('data: '));
    if (dataLine === undefined) return event;
    const data = JSON.parse(dataLine.slice(6));
    if (data.type === 'content_block_delta' && data.delta?.type === 'text_delta') {
      let s = perBlock.get(data.index);
      if (s === undefined) perBlock.set(data.index, (s = createDeltaStripper()));
      data.delta.text = s.push(data.delta.text);
    } else if (data.type === 'content_block_stop') {
      const held = perBlock.get(data.index)?.flush() ?? '';
      if (held !== '') return `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: data.index, delta: { type: 'text_delta', text: held } })}\n\n${event}`;
    }
    return event.replace(dataLine, `data: ${JSON.stringify(data)}`);
  };
  return {
    push(text) {
      pending += text;
      let out = '';
      for (let end = pending.indexOf('\n\n'); end >= 0; end = pending.indexOf('\n\n')) {
        out += rewrite(pending.slice(0, end + 2));
        pending = pending.slice(end + 2);
      }
      return out;
    },
    end: () => pending,
  };
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'ficta-wm-sdk-'));
  const config = parseWatermarkConfig({});
  if (!config.ok) throw config.error;
  wm = createWatermarker({ config: config.value, home });

  upstream = createServer(async (req, res) => {
    const body = await readAll(req);
    received.push({ body, requestId: String(req.headers['x-ficta-request-id']) });
    const parsed = JSON.parse(body.toString());
    const echoed: string = parsed.messages[0].content[0].source.data; // the model quotes the document, frames and all
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const ev = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
    let out = ev('message_start', { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: parsed.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } });
    out += ev('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    for (let at = 0; at < echoed.length; at += 7) out += ev('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: echoed.slice(at, at + 7) } });
    out += ev('content_block_stop', { type: 'content_block_stop', index: 0 });
    out += ev('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 10 } });
    out += ev('message_stop', { type: 'message_stop' });
    // Odd-sized TCP writes so frames are split across chunks as well as events.
    const bytes = Buffer.from(out);
    for (let at = 0; at < bytes.length; at += 1021) res.write(bytes.subarray(at, at + 1021));
    res.end();
  });
  const upstreamUrl = new URL(await listen(upstream));

  proxy = createServer(async (req, res) => {
    const raw = await readAll(req);
    const requestId = `req-${received.length + 1}`;
    const sessionId = wm.sessionFor((name) => {
      const v = req.headers[name];
      return Array.isArray(v) ? v[0] : v;
    });
    // redact → gate → watermark → gate happen here in the real proxy; this stand-in only watermarks.
    const { body } = wm.markRequestBody(raw, { provider: 'anthropic', route: req.url ?? '/', sessionId, requestId });
    const up = httpRequest({ host: upstreamUrl.hostname, port: upstreamUrl.port, path: req.url, method: req.method, headers: { 'content-type': 'application/json', 'content-length': body.length, 'x-ficta-request-id': requestId } }, (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, { 'content-type': String(upRes.headers['content-type']) });
      const bytes = createStripTransform();
      const sse = stripSseDeltas();
      const decoder = new TextDecoder();
      upRes.on('data', (chunk: Buffer) => {
        for (const piece of bytes.push(chunk)) res.write(sse.push(decoder.decode(piece, { stream: true })));
      });
      upRes.on('end', () => {
        for (const piece of bytes.end()) res.write(sse.push(decoder.decode(piece, { stream: true })));
        res.end(sse.push(decoder.decode()) + sse.end());
      });
    });
    up.end(body);
  });
  await listen(proxy);
});

afterAll(async () => {
  await wm.close();
  await new Promise((r) => proxy.close(r));
  await new Promise((r) => upstream.close(r));
  rmSync(home, { recursive: true, force: true });
});

describe('watermark through the Anthropic SDK', () => {
  it('marks the document the upstream receives, strips every frame from the streamed echo, and attributes the copy', async () => {
    const address = proxy.address() as AddressInfo;
    const client = new Anthropic({ baseURL: `http://127.0.0.1:${address.port}`, apiKey: 'sk-ant-test', defaultHeaders: { 'x-claude-code-session-id': 'sess-42' }, maxRetries: 0 });
    const stream = await client.messages.create({
      model: 'claude-x',
      max_tokens: 1024,
      stream: true,
      messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: DOC } }, { type: 'text', text: 'Quote it back.' }] }],
    });
    let text = '';
    for await (const event of stream) if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;

    // The client sees the document exactly, with no frame, even though the upstream echoed frames
    // split across 7-character deltas and 1,021-byte TCP writes.
    expect(text).toBe(DOC);
    // The upstream received a marked copy.
    expect(received).toHaveLength(1);
    const upstreamCopy: string = JSON.parse(received[0]!.body.toString()).messages[0].content[0].source.data;
    expect(upstreamCopy).not.toBe(DOC);
    expect(upstreamCopy).toMatch(/\u2060[\ufe00-\ufe0f]{4}\n/);

    await wm.flush();
    const key = readKeyFile(home);
    const registry = openRegistry(home, { readonly: true });
    if (!key.ok || !registry.ok) throw new Error('registry or key missing');
    try {
      const a = attributeText(upstreamCopy, registry.value, deriveKeys(key.value));
      expect(a.candidates[0]).toMatchObject({ sessionId: 'claude-code:sess-42', verdict: 'confirmed' });
      expect(a.candidates[0]!.requests.latest[0]).toMatchObject({ requestId: received[0]!.requestId, provider: 'anthropic', model: 'claude-x', route: '/v1/messages' });
    } finally {
      registry.value.close();
    }
  });
});
