// Behaviour at the edges over real loopback HTTP: the gate's provider-shaped refusals, body limits,
// encodings, binary bodies, upstream failures, client disconnects, WebSocket upgrades, generic routes.

import { connect } from 'node:net';
import { request as httpRequest } from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync, zstdCompressSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFicta, type TestFicta } from '../helpers/ficta-server.ts';
import { asciiEscape } from '../helpers/leak-oracle.ts';
import { createMockUpstream, echoScript, type MockUpstream } from '../helpers/mock-upstream.ts';

const KEY = 'sk-proj-QwErTyUiOpAsDfGhJkL123';
const ACCOUNT = '4111111111111111';
const WEIRD = 'pa"ss\\wörd-99';
const SECRETS = { OPENAI_KEY: KEY, CARD_NUMBER: ACCOUNT, DB_PASSWORD: WEIRD };

let up: MockUpstream;
let proxy: TestFicta;

beforeAll(async () => {
  up = await createMockUpstream({ secrets: Object.values(SECRETS) });
  proxy = await startFicta({ upstream: up.url, secrets: SECRETS, config: { limits: { maxBodyBytes: 1024 * 1024, maxDecodedBytes: 2 * 1024 * 1024, headersTimeoutMs: 1500 } } });
});
afterAll(async () => {
  await proxy.close();
  await up.close();
});
afterEach(() => {
  expect(up.leaks).toEqual([]);
  up.setScript(echoScript());
});

async function post(path: string, body: Buffer | string, headers: Record<string, string> = {}): Promise<{ status: number; json: any; text: string; headers: Headers }> {
  const res = await fetch(`${proxy.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text, headers: res.headers };
}

describe('the gate over HTTP', () => {
  it('blocks a value sent as a JSON number with a provider-shaped 403 that names it, and forwards nothing', async () => {
    const before = up.requests.length;
    const r = await post('/anthropic/v1/messages', `{"model":"x","max_tokens":5,"metadata":{"card":${ACCOUNT}},"messages":[{"role":"user","content":"hi"}]}`);
    expect(r.status).toBe(403);
    expect(r.json.type).toBe('error');
    expect(r.json.error.type).toBe('ficta_leak_blocked');
    expect(r.json.error.message).toContain('CARD_NUMBER in body');
    expect(r.text).not.toContain(ACCOUNT);
    expect(up.requests.length).toBe(before);
  });

  it('uses the OpenAI error shape on OpenAI routes', async () => {
    const r = await post('/v1/chat/completions', `{"model":"x","n":${ACCOUNT},"messages":[]}`);
    expect(r.status).toBe(403);
    expect(r.json.error).toMatchObject({ type: 'ficta_leak_blocked', code: 'ficta_leak_blocked' });
  });

  it('redacts a value in the query string and in a non-auth header; passes auth headers', async () => {
    const r = await post(`/anthropic/v1/messages?beta=true&k=${encodeURIComponent(KEY)}`, JSON.stringify({ model: 'x', messages: [{ role: 'user', content: 'hi' }] }), {
      'x-api-key': 'the-real-api-key',
      'x-note': `token ${KEY}`,
    });
    expect(r.status).toBe(200);
    const seen = up.requests.at(-1)!;
    expect(seen.url).toMatch(/^\/v1\/messages\?beta=true&k=~ficta_[a-z2-7]{20}$/);
    expect(seen.headers['x-note']).toMatch(/^token ~ficta_/);
    expect(seen.headers['x-api-key']).toBe('the-real-api-key');
  });

  it('decodes gzip, deflate, br and zstd request bodies, redacts them and forwards them decoded', async () => {
    const body = Buffer.from(JSON.stringify({ model: 'x', messages: [{ role: 'user', content: `key ${KEY}` }] }));
    for (const [enc, data] of [['gzip', gzipSync(body)], ['deflate', deflateSync(body)], ['br', brotliCompressSync(body)], ['zstd', zstdCompressSync(body)]] as const) {
      const r = await post('/openai/v1/chat/completions', data, { 'content-encoding': enc });
      expect(r.status, enc).toBe(200);
      expect(r.json.choices[0].message.content).toBe(`ECHO: key ${KEY}`);
      const seen = up.requests.at(-1)!;
      expect(seen.headers['content-encoding']).toBeUndefined();
      expect(JSON.parse(seen.body.toString()).messages[0].content).toMatch(/^key ~ficta_/);
    }
  });

  it('redacts a \\u-escaped value', async () => {
    const r = await post('/openai/v1/chat/completions', `{"model":"x","messages":[{"role":"user","content":"${asciiEscape(WEIRD)}"}]}`);
    expect(r.status).toBe(200);
    expect(r.json.choices[0].message.content).toBe(`ECHO: ${WEIRD}`);
  });

  it('refuses a body over the limit with 413, by declared length and by streamed size', async () => {
    const big = Buffer.alloc(1024 * 1024 + 10, 0x61);
    const r = await post('/openai/v1/chat/completions', big);
    expect(r.status).toBe(413);
    expect(r.json.error.type).toBe('ficta_body_too_large');
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${proxy.url}/openai/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      for (let i = 0; i < 20; i++) req.write(Buffer.alloc(64 * 1024, 0x62));
      req.end();
    });
    expect(chunked).toBe(413);
  });

  it('refuses a gzip or zstd bomb (decoded size over the limit) with 413 and an unknown encoding with 415', async () => {
    const before = up.requests.length;
    for (const [enc, bomb] of [['gzip', gzipSync(Buffer.alloc(8 * 1024 * 1024, 0x20))], ['zstd', zstdCompressSync(Buffer.alloc(8 * 1024 * 1024, 0x20))]] as const) {
      expect(bomb.length).toBeLessThan(1024 * 1024);
      const r = await post('/openai/v1/chat/completions', bomb, { 'content-encoding': enc });
      expect(r.status, enc).toBe(413);
      expect(r.json.error.type).toBe('ficta_body_too_large');
    }
    const z = await post('/openai/v1/chat/completions', 'xx', { 'content-encoding': 'compress' });
    expect(z.status).toBe(415);
    expect(z.json.error.type).toBe('ficta_unsupported_encoding');
    const bad = await post('/openai/v1/chat/completions', 'not zstd at all', { 'content-encoding': 'zstd' });
    expect(bad.status).toBe(400);
    expect(up.requests.length).toBe(before);
  });

  it('forwards binary bodies byte-exact, and blocks one that holds a raw value', async () => {
    const boundary = 'XyZ';
    const clean = Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\n`), Buffer.from([0, 255, 1, 254, 0x7e, 0x22]), Buffer.from(`\r\n--${boundary}--\r\n`)]);
    const ok = await post('/openai/v1/audio/transcriptions', clean, { 'content-type': `multipart/form-data; boundary=${boundary}` });
    expect(ok.status).toBe(200);
    expect(up.requests.at(-1)!.body.equals(clean)).toBe(true);
    const dirty = Buffer.concat([clean.subarray(0, 80), Buffer.from(KEY), clean.subarray(80)]);
    const before = up.requests.length;
    const blocked = await post('/openai/v1/audio/transcriptions', dirty, { 'content-type': `multipart/form-data; boundary=${boundary}` });
    expect(blocked.status).toBe(403);
    expect(blocked.json.error.message).toContain('OPENAI_KEY in body (multipart)');
    expect(up.requests.length).toBe(before);
  });
});

describe('responses', () => {
  it('restores compressed upstream JSON responses and sends them decoded', async () => {
    up.setScript(async (req) => ({ ...(await echoScript()(req)), gzip: true }));
    const r = await post('/openai/v1/chat/completions', JSON.stringify({ model: 'x', messages: [{ role: 'user', content: KEY }] }), { 'accept-encoding': 'gzip' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-encoding')).toBeNull();
    expect(r.json.choices[0].message.content).toBe(`ECHO: ${KEY}`);
  });

  it('restores a zstd upstream response when the client accepts zstd, and sends it decoded', async () => {
    up.setScript(async (req) => ({ ...(await echoScript()(req)), zstd: true }));
    const r = await post('/openai/v1/responses', JSON.stringify({ model: 'x', stream: true, input: `key ${KEY}` }), { 'accept-encoding': 'zstd' });
    expect(up.requests.at(-1)!.headers['accept-encoding']).toBe('zstd');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-encoding')).toBeNull();
    expect(r.text).toContain(`ECHO: key ${KEY.slice(0, 2)}`);
    expect(r.text).not.toContain('~ficta_');
  });

  it('restores compressed upstream SSE streams', async () => {
    up.setScript(async (req) => ({ ...(await echoScript()(req)), gzip: true }));
    const r = await post('/anthropic/v1/messages', JSON.stringify({ model: 'x', stream: true, messages: [{ role: 'user', content: KEY }] }), { 'accept-encoding': 'gzip' });
    expect(r.status).toBe(200);
    expect(r.text).toContain(KEY.slice(0, 5));
    expect(r.text).not.toContain('~ficta_');
  });

  it('does not delay the first byte of a stream behind the whole response', async () => {
    up.setScript(async (req) => ({ ...(await echoScript({ gapMs: 40 })(req)) }));
    const t0 = performance.now();
    const res = await fetch(`${proxy.url}/anthropic/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'x', stream: true, messages: [{ role: 'user', content: 'a long enough message to make many events' }] }) });
    const reader = res.body!.getReader();
    await reader.read();
    const first = performance.now() - t0;
    let rest = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += value.length;
    }
    const total = performance.now() - t0;
    expect(rest).toBeGreaterThan(0);
    // ~25 events 40 ms apart: the first byte must come long before the end (not a timing benchmark: a 10× margin).
    expect(first).toBeLessThan(total / 4);
  });

  it('keeps unknown paths under a provider prefix working with generic redaction and restore', async () => {
    up.setScript((req) => ({ json: { echoed: JSON.parse(req.body.toString()), path: req.url } }));
    const r = await post('/openai/v1/vector_stores/vs_1/search?x=1', JSON.stringify({ query: `find ${WEIRD}` }));
    expect(r.status).toBe(200);
    expect(r.json.echoed.query).toBe(`find ${WEIRD}`);
    expect(r.json.path).toBe('/v1/vector_stores/vs_1/search?x=1');
    expect(JSON.parse(up.requests.at(-1)!.body.toString()).query).toMatch(/^find ~ficta_/);
  });
});

describe('upstream failures and client disconnects', () => {
  it('answers 502 in the provider shape when the upstream is unreachable', async () => {
    const dead = await startFicta({ upstream: 'http://127.0.0.1:1', secrets: SECRETS });
    try {
      const res = await fetch(`${dead.url}/anthropic/v1/messages`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(502);
      const json = (await res.json()) as any;
      expect(json.error.type).toBe('ficta_upstream_error');
    } finally {
      await dead.close();
    }
  });

  it('answers 504 when the upstream does not send headers in time', async () => {
    up.setScript(() => ({ hang: true }));
    const r = await post('/openai/v1/chat/completions', JSON.stringify({ model: 'x', messages: [] }));
    expect(r.status).toBe(504);
    expect(r.json.error.type).toBe('ficta_upstream_error');
  });

  it('aborts the upstream request when the client goes away mid-stream', async () => {
    up.setScript(async (req) => ({ ...(await echoScript({ gapMs: 50 })(req)) }));
    const ctrl = new AbortController();
    const res = await fetch(`${proxy.url}/anthropic/v1/messages`, { method: 'POST', signal: ctrl.signal, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'x', stream: true, messages: [{ role: 'user', content: 'a long enough message to make many events' }] }) });
    const reader = res.body!.getReader();
    await reader.read();
    ctrl.abort();
    const rec = up.requests.at(-1)!;
    for (let i = 0; i < 50 && !rec.aborted; i++) await new Promise((r) => setTimeout(r, 20));
    expect(rec.aborted).toBe(true);
  });

  it('answers a WebSocket upgrade at once with a non-101 status', async () => {
    const url = new URL(proxy.url);
    const reply = await new Promise<string>((resolve, reject) => {
      const sock = connect(Number(url.port), url.hostname, () => {
        sock.write(`GET /v1/responses HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`);
      });
      let data = '';
      sock.on('data', (d) => (data += d.toString()));
      sock.on('end', () => resolve(data));
      sock.on('error', reject);
    });
    expect(reply.startsWith('HTTP/1.1 426')).toBe(true);
  });

  it('refuses a CONNECT tunnel with 403 and logs it as a request with outcome egress_refused, a held value by name only', async () => {
    const url = new URL(proxy.url);
    const tunnel = (target: string): Promise<number> =>
      new Promise((resolve, reject) => {
        const req = httpRequest({ host: url.hostname, port: Number(url.port), method: 'CONNECT', path: target });
        req.on('connect', (res, socket) => {
          socket.destroy();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
    const before = proxy.ficta.report();
    expect(await tunnel('play.googleapis.com:443')).toBe(403);
    expect(await tunnel(`${KEY}.example:443`)).toBe(403);
    const lines = proxy.requestLogs().filter((l) => l.outcome === 'egress_refused');
    expect(lines.map((l) => [l.level, l.method, l.route, l.status, l.blocked])).toEqual([
      ['warn', 'CONNECT', 'play.googleapis.com:443', 403, undefined],
      ['warn', 'CONNECT', 'withheld', 403, [{ secret: 'OPENAI_KEY', surface: 'connect_target' }]],
    ]);
    expect(proxy.logs.join('\n')).not.toContain(KEY);
    const after = proxy.ficta.report();
    expect((after.byOutcome.egress_refused ?? 0) - (before.byOutcome.egress_refused ?? 0)).toBe(2);
    expect(after.requests - before.requests).toBe(2);
  });
});

describe('HEAD requests', () => {
  it('proxies a HEAD on a provider route (Claude Code connectivity check) without tripping the adapter', async () => {
    const spy = vi.spyOn(console, 'error');
    try {
      up.setScript(() => ({ status: 200, raw: '' }));
      const res = await fetch(`${proxy.url}/anthropic`, { method: 'HEAD' });
      expect(res.status).toBe(200);
      expect(up.requests.at(-1)?.method).toBe('HEAD');
      const health = await fetch(`${proxy.url}/healthz`, { method: 'HEAD' });
      expect(health.status).toBe(200);
      await new Promise((r) => setTimeout(r, 50));
      expect(spy).not.toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });
});

describe('service endpoints and logs', () => {
  it('GET /healthz reports counts only', async () => {
    const res = await fetch(`${proxy.url}/healthz`);
    const json = (await res.json()) as any;
    expect(json).toMatchObject({ status: 'ok', secrets: 3 });
    expect(JSON.stringify(json)).not.toContain(KEY);
  });

  it('logs one line per request with counts by name and never a value', async () => {
    await post('/openai/v1/chat/completions', JSON.stringify({ model: 'x', messages: [{ role: 'user', content: `${KEY} ${WEIRD}` }] }));
    const last = proxy.requestLogs().at(-1)!;
    expect(last).toMatchObject({ route: '/v1/chat/completions', status: 200, redactions: { OPENAI_KEY: 1, DB_PASSWORD: 1 }, restores: { OPENAI_KEY: 1, DB_PASSWORD: 1 }, restoreMisses: 0 });
    expect(typeof last.ms).toBe('number');
  });
});
