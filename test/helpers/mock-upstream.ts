// A mock model provider on loopback that speaks the Anthropic Messages, OpenAI Chat Completions, OpenAI
// Responses, Gemini and Ollama wire formats (JSON, SSE, streamed JSON arrays, NDJSON), splits streams into
// tiny pieces and chunks, and acts as a leak oracle: any form of a registered value arriving in a request
// is recorded (the test then fails).

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync, gzipSync, inflateSync, brotliDecompressSync, zstdCompressSync, zstdDecompressSync } from 'node:zlib';
import { findLeaks, type Leak } from './leak-oracle.ts';
import { anthropicJson, anthropicSse, chatJson, chatSse, responsesJson, responsesSse, type Reply } from './wire.ts';
import { geminiFirstFunction, geminiJson, geminiJsonArray, geminiSse, geminiUserText } from './wire-gemini.ts';
import { ollamaJson, ollamaNdjson } from './wire-ollama.ts';
import { mulberry32 } from '../../src/util/prng.ts';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The body as it arrived (decoded if it was compressed). */
  body: Buffer;
  json: any;
  /** The client (ficta) went away before the response ended. */
  aborted: boolean;
}

export type Chunking = 'whole' | 'events' | 'bytes' | { seed: number; max: number };

export interface MockResponse {
  status?: number;
  headers?: Record<string, string>;
  json?: unknown;
  sse?: string;
  raw?: Buffer | string;
  chunking?: Chunking;
  /** Delay before the first byte of the body, and between chunks. */
  firstByteDelayMs?: number;
  gapMs?: number;
  gzip?: boolean;
  zstd?: boolean;
  /** Never answer (for timeouts and client disconnects). */
  hang?: boolean;
  /** Cut the connection after this many body bytes. */
  destroyAfterBytes?: number;
}

export type Script = (req: RecordedRequest) => MockResponse | Promise<MockResponse>;

export interface MockUpstream {
  url: string;
  requests: RecordedRequest[];
  leaks: Leak[];
  setScript(script: Script): void;
  /** Registered values the oracle watches for (may be changed between requests). */
  secrets: string[];
  close(): Promise<void>;
}

/** Credentials the real provider needs: the oracle does not count them (ficta forwards them on purpose). */
const AUTH = new Set(['authorization', 'x-api-key', 'x-goog-api-key', 'api-key']);

/** The request target without Gemini's `key=` credential parameter, on Gemini paths. */
function targetWithoutAuth(url: string): string {
  if (formatOf(url) !== 'gemini' && !/\/v1beta\//.test(url)) return url;
  const q = url.indexOf('?');
  if (q === -1) return url;
  return `${url.slice(0, q)}?${url
    .slice(q + 1)
    .split('&')
    .filter((p) => !p.startsWith('key='))
    .join('&')}`;
}

/** Starts the mock on 127.0.0.1:0. */
export async function createMockUpstream(options: { secrets?: string[]; script?: Script } = {}): Promise<MockUpstream> {
  let script: Script = options.script ?? echoScript();
  const requests: RecordedRequest[] = [];
  const leaks: Leak[] = [];
  const state = { secrets: options.secrets ?? [] };

  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body = Buffer.concat(chunks);
    const enc = req.headers['content-encoding'];
    if (enc === 'gzip') body = gunzipSync(body);
    else if (enc === 'deflate') body = inflateSync(body);
    else if (enc === 'br') body = brotliDecompressSync(body);
    else if (enc === 'zstd') body = zstdDecompressSync(body);
    let json: unknown;
    try {
      json = body.length > 0 ? JSON.parse(body.toString('utf8')) : undefined;
    } catch {
      json = undefined;
    }
    const rec: RecordedRequest = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body, json, aborted: false };
    requests.push(rec);
    res.on('close', () => {
      if (!res.writableFinished) rec.aborted = true;
    });

    const headerText = Object.entries(req.headers)
      .filter(([k]) => !AUTH.has(k))
      .map(([k, v]) => `${k}: ${String(v)}`)
      .join('\n');
    const found = [
      ...findLeaks(state.secrets, Buffer.from(targetWithoutAuth(rec.url), 'latin1'), 'target'),
      ...findLeaks(state.secrets, Buffer.from(headerText, 'latin1'), 'headers'),
      ...findLeaks(state.secrets, body, 'body'),
    ];
    if (found.length > 0) {
      leaks.push(...found);
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'mock upstream: LEAK of a registered value', type: 'mock_leak' } }));
      return;
    }
    let reply: MockResponse;
    try {
      reply = await script(rec);
    } catch (e) {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`mock script failed: ${(e as Error).message}`);
      return;
    }
    await sendReply(res, reply);
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    leaks,
    get secrets() {
      return state.secrets;
    },
    set secrets(v: string[]) {
      state.secrets = v;
    },
    setScript(s) {
      script = s;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function sendReply(res: import('node:http').ServerResponse, reply: MockResponse): Promise<void> {
  if (reply.hang === true) return;
  let body: Buffer;
  const headers: Record<string, string> = { ...(reply.headers ?? {}) };
  if (reply.sse !== undefined) {
    body = Buffer.from(reply.sse, 'utf8');
    headers['content-type'] ??= 'text/event-stream';
  } else if (reply.json !== undefined) {
    body = Buffer.from(JSON.stringify(reply.json), 'utf8');
    headers['content-type'] ??= 'application/json';
  } else body = Buffer.isBuffer(reply.raw) ? reply.raw : Buffer.from(reply.raw ?? '', 'utf8');
  if (reply.gzip === true) {
    body = gzipSync(body);
    headers['content-encoding'] = 'gzip';
  }
  if (reply.zstd === true) {
    body = zstdCompressSync(body);
    headers['content-encoding'] = 'zstd';
  }
  const chunks = chunk(body, reply.chunking ?? (reply.sse !== undefined ? 'events' : 'whole'));
  if (chunks.length === 1 && reply.destroyAfterBytes === undefined) headers['content-length'] = String(body.length);
  res.writeHead(reply.status ?? 200, headers);
  res.flushHeaders();
  if (reply.firstByteDelayMs !== undefined) await sleep(reply.firstByteDelayMs);
  let sent = 0;
  for (const c of chunks) {
    if (res.destroyed) return;
    if (reply.destroyAfterBytes !== undefined && sent + c.length > reply.destroyAfterBytes) {
      res.write(c.subarray(0, reply.destroyAfterBytes - sent));
      await sleep(5);
      res.destroy();
      return;
    }
    res.write(c);
    sent += c.length;
    if (reply.gapMs !== undefined && reply.gapMs > 0) await sleep(reply.gapMs);
    else if (chunks.length > 1) await new Promise((r) => setImmediate(r));
  }
  res.end();
}

function chunk(body: Buffer, how: Chunking): Buffer[] {
  if (how === 'whole') return [body];
  if (how === 'bytes') return [...body].map((b) => Buffer.from([b]));
  if (how === 'events') {
    const out: Buffer[] = [];
    let pos = 0;
    for (;;) {
      const i = body.indexOf('\n\n', pos);
      if (i === -1) break;
      out.push(body.subarray(pos, i + 2));
      pos = i + 2;
    }
    if (pos < body.length) out.push(body.subarray(pos));
    return out;
  }
  const rand = mulberry32(how.seed);
  const out: Buffer[] = [];
  let pos = 0;
  while (pos < body.length) {
    const n = 1 + Math.floor(rand() * how.max);
    out.push(body.subarray(pos, pos + n));
    pos += n;
  }
  return out;
}

export { mulberry32 };

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

// ---- the default "model": echo what it was told ----

/** The text of the last user turn, in any of the three formats. */
export function lastUserText(json: any): string {
  if (json === undefined || json === null) return '';
  const fromContent = (content: unknown): string => {
    if (typeof content === 'string') return content;
    if (Array.isArray(content)) {
      return content
        .map((b: any) => (typeof b?.text === 'string' ? b.text : typeof b?.content === 'string' ? b.content : typeof b?.output === 'string' ? b.output : ''))
        .join('');
    }
    return '';
  };
  if (Array.isArray(json.messages)) {
    for (let i = json.messages.length - 1; i >= 0; i--) {
      const m = json.messages[i];
      if (m?.role === 'user' || m?.role === 'tool') return fromContent(m.content);
    }
  }
  if (Array.isArray(json.contents)) return geminiUserText(json);
  if (typeof json.prompt === 'string') return json.prompt;
  if (typeof json.input === 'string') return json.input;
  if (Array.isArray(json.input)) {
    for (let i = json.input.length - 1; i >= 0; i--) {
      const item = json.input[i];
      if (item?.role === 'user') return fromContent(item.content);
      if (item?.type === 'function_call_output' && typeof item.output === 'string') return item.output;
    }
  }
  return '';
}

export type Format = 'anthropic' | 'chat' | 'responses' | 'gemini' | 'ollama-chat' | 'ollama-generate';

/** Which wire format a request path speaks. */
export function formatOf(url: string): Format {
  const path = url.split('?', 1)[0] as string;
  if (path.includes('/v1/messages')) return 'anthropic';
  if (path.endsWith('/responses')) return 'responses';
  if (/:(stream)?generateContent$/i.test(path)) return 'gemini';
  if (path.endsWith('/api/chat')) return 'ollama-chat';
  if (path.endsWith('/api/generate')) return 'ollama-generate';
  return 'chat';
}

/** Renders a reply in the request's format, streamed when the request asked for it. */
export function render(req: RecordedRequest, reply: Reply, extra: Omit<MockResponse, 'json' | 'sse'> = {}): MockResponse {
  const format = formatOf(req.url);
  if (format === 'gemini') {
    if (!req.url.includes(':streamGenerateContent')) return { ...extra, json: geminiJson(reply) };
    if (/[?&]alt=sse(&|$)/.test(req.url)) return { ...extra, sse: geminiSse(reply) };
    return { ...extra, raw: geminiJsonArray(reply), headers: { 'content-type': 'application/json; charset=UTF-8', ...(extra.headers ?? {}) } };
  }
  if (format === 'ollama-chat' || format === 'ollama-generate') {
    const endpoint = format === 'ollama-chat' ? 'chat' : 'generate';
    // Ollama streams unless told `stream: false`.
    if (req.json?.stream === false) return { ...extra, json: ollamaJson(endpoint, reply) };
    return { ...extra, raw: ollamaNdjson(endpoint, reply), headers: { 'content-type': 'application/x-ndjson', ...(extra.headers ?? {}) } };
  }
  const stream = req.json?.stream === true;
  if (format === 'anthropic') return stream ? { ...extra, sse: anthropicSse(reply) } : { ...extra, json: anthropicJson(reply) };
  if (format === 'responses') return stream ? { ...extra, sse: responsesSse(reply) } : { ...extra, json: responsesJson(reply) };
  return stream ? { ...extra, sse: chatSse(reply) } : { ...extra, json: chatJson(reply) };
}

/** A model that repeats the last user text, and when tools are offered, calls the first one with it. */
export function echoScript(extra: Omit<MockResponse, 'json' | 'sse'> = {}, pieceSize = 3): Script {
  return (req) => {
    const text = lastUserText(req.json);
    const reply: Reply = { text: `ECHO: ${text}`, pieceSize };
    const geminiFn = geminiFirstFunction(req.json);
    if (geminiFn !== undefined) {
      reply.tool = { name: geminiFn, input: { text, note: 'echo' } };
      return render(req, reply, extra);
    }
    const tools: any[] = Array.isArray(req.json?.tools) ? req.json.tools : [];
    const fn = tools.find((t) => t?.type === undefined || t?.type === 'function' || t?.type === 'custom' || typeof t?.name === 'string');
    if (fn !== undefined) {
      const name: string = fn.name ?? fn.function?.name ?? 'tool';
      if (fn.type === 'custom') reply.customTool = { name, input: text };
      else reply.tool = { name, input: { text, note: 'echo' } };
    }
    return render(req, reply, extra);
  };
}
