// The benchmark's mock model provider (run in its own process by mock-upstream-process.ts): answers
// Anthropic Messages requests with a JSON body or a paced SSE stream of a requested size, drains
// request bodies without keeping them, and on request reports how many watched values arrived raw
// (the leak check the load client uses to verify a proxy before timing it).

import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { makeMessagesResponse, makeMessagesSse, makeToolSse, type SseScript } from './corpus.ts';

export interface MockUpstreamConfig {
  /** Strings planted in every response body (placeholders the proxy should restore). */
  plant: string[];
  /** Values whose raw presence in a checked request is counted (registered secrets planted in requests). */
  watch: string[];
  /** Delay before the first text delta of a stream (time to first token). */
  firstTokenMs: number;
  /** Delay between two groups of deltas. */
  gapMs: number;
  /** Groups of deltas per stream. */
  ticks: number;
}

/**
 * Request header choosing the reply: `json:<bytes>`, `sse:<bytes>` (paced), `sse-tool:<bytes>` (paced text,
 * then two tool calls, the second with a placeholder), `sse-burst:<bytes>` (unpaced) or `small`.
 */
export const REPLY_HEADER = 'x-bench-reply';
/** Request header asking for the leak count; the answer comes in {@link LEAKS_HEADER}. */
export const CHECK_HEADER = 'x-bench-check';
/** Response header: how many watched values arrived raw in a checked request. */
export const LEAKS_HEADER = 'x-bench-leaks';
/** Response header with the request body size as received. */
export const RECEIVED_HEADER = 'x-bench-received';

/** Starts the mock on 127.0.0.1:`port` (0 = any). */
export async function startMockUpstream(config: MockUpstreamConfig, port = 0): Promise<{ server: Server; port: number }> {
  const json = new Map<number, Buffer>();
  const sse = new Map<number, SseScript>();
  const jsonBody = (bytes: number): Buffer => {
    let b = json.get(bytes);
    if (b === undefined) json.set(bytes, (b = makeMessagesResponse(bytes, config.plant)));
    return b;
  };
  const sseScript = (bytes: number, ticks: number): SseScript => {
    const key = bytes * 1000 + ticks;
    let s = sse.get(key);
    if (s === undefined) sse.set(key, (s = makeMessagesSse(bytes, ticks, config.plant)));
    return s;
  };
  const toolScripts = new Map<number, SseScript>();
  const toolScript = (bytes: number): SseScript => {
    let s = toolScripts.get(bytes);
    if (s === undefined) toolScripts.set(bytes, (s = makeToolSse(bytes, config.ticks, config.plant, config.plant[0] ?? '')));
    return s;
  };
  const small = Buffer.from(JSON.stringify({ type: 'message', role: 'assistant', content: [{ type: 'text', text: 'ok' }] }));

  const server = createServer((req, res) => {
    const check = req.headers[CHECK_HEADER] === '1';
    const chunks: Buffer[] = [];
    let received = 0;
    req.on('data', (c: Buffer) => {
      received += c.length;
      if (check) chunks.push(c);
    });
    req.on('end', () => {
      const extra: Record<string, string> = { [RECEIVED_HEADER]: String(received) };
      if (check) extra[LEAKS_HEADER] = String(countLeaks(Buffer.concat(chunks), config.watch));
      const reply = String(req.headers[REPLY_HEADER] ?? 'small');
      const [kind, size] = reply.split(':');
      const bytes = Number(size);
      if (kind === 'json' && bytes > 0) return sendJson(res, jsonBody(bytes), extra);
      if (kind === 'sse' && bytes > 0) return void sendSse(res, sseScript(bytes, config.ticks), config, extra);
      if (kind === 'sse-tool' && bytes > 0) return void sendSse(res, toolScript(bytes), config, extra);
      if (kind === 'sse-burst' && bytes > 0) return void sendBurstSse(res, sseScript(Math.min(bytes, BURST_SCRIPT_BYTES), 1), bytes, extra);
      return sendJson(res, small, extra);
    });
    req.on('error', () => res.destroy());
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port };
}

function countLeaks(body: Buffer, watch: readonly string[]): number {
  let n = 0;
  for (const w of watch) if (body.includes(w)) n++;
  return n;
}

function sendJson(res: ServerResponse, body: Buffer, extra: Record<string, string>): void {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length), 'request-id': 'req_bench', ...extra });
  res.end(body);
}

async function sendSse(res: ServerResponse, s: SseScript, config: MockUpstreamConfig, extra: Record<string, string>): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'request-id': 'req_bench', ...extra });
  // message_start goes out with the headers, as Anthropic's does; text follows after the model "thinks".
  res.write(s.head);
  await sleep(config.firstTokenMs);
  for (let i = 0; i < s.ticks.length; i++) {
    if (res.destroyed) return;
    if (i > 0 && config.gapMs > 0) await sleep(config.gapMs);
    res.write(s.ticks[i] as Buffer);
  }
  res.end(s.tail);
}

/** Longest distinct script of an unpaced stream; longer streams repeat its deltas. */
const BURST_SCRIPT_BYTES = 1024 * 1024;

/** A stream of about `bytes` without pauses (memory checks): the script's deltas, repeated as needed, with backpressure. */
async function sendBurstSse(res: ServerResponse, s: SseScript, bytes: number, extra: Record<string, string>): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', ...extra });
  res.write(s.head);
  const body = s.ticks[0] as Buffer;
  let sent = s.head.length;
  do {
    sent += body.length;
    if (!res.write(body)) await new Promise<void>((resolve) => drainOrClose(res, resolve));
  } while (sent < bytes && !res.destroyed);
  res.end(s.tail);
}

function drainOrClose(res: ServerResponse, done: () => void): void {
  const finish = (): void => {
    res.off('drain', finish);
    res.off('close', finish);
    done();
  };
  res.on('drain', finish);
  res.on('close', finish);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
