// Request-side hardening over real loopback HTTP: repeated content-encoding lines, dot segments, logs
// that never show a value in a path, multipart and binary bodies, byte surgery on headers and forms,
// bodies nested too deep to check, many hits, and internal errors logged with their site.

import { connect } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFicta, type TestFicta } from '../helpers/ficta-server.ts';
import { createMockUpstream, echoScript, type MockUpstream } from '../helpers/mock-upstream.ts';

const KEY = 'sk-proj-QwErTyUiOpAsDfGhJkL123';
const ACCOUNT = '4111111111111111';
const WEIRD = 'pa"ss-wörd-99';
const SECRETS = { OPENAI_KEY: KEY, CARD_NUMBER: ACCOUNT, DB_PASSWORD: WEIRD };
const TOKEN = 'tok-request-edges-0123456789';

let up: MockUpstream;
let proxy: TestFicta;
let ph: (value: string) => string;

beforeAll(async () => {
  up = await createMockUpstream({ secrets: Object.values(SECRETS) });
  proxy = await startFicta({ upstream: up.url, secrets: SECRETS, config: { limits: { maxBodyBytes: 16 * 1024 * 1024, maxDecodedBytes: 16 * 1024 * 1024 } } });
  const snap = proxy.ficta.registry.current();
  if (snap.kind !== 'ready') throw new Error('registry not ready');
  const set = snap.set;
  ph = (value) => set.placeholders[set.values.indexOf(value)] as string;
});
afterAll(async () => {
  await proxy.close();
  await up.close();
});
afterEach(() => {
  expect(up.leaks).toEqual([]);
  up.setScript(echoScript());
});

interface RawReply {
  status: number;
  body: string;
}

/** Sends one request over a raw socket, so header lines can repeat exactly as written. */
function rawRequest(base: string, head: string, body: Buffer = Buffer.alloc(0)): Promise<RawReply> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const sock = connect(Number(url.port), url.hostname, () => {
      sock.write(`${head}\r\nHost: ${url.host}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`);
      sock.write(body);
    });
    const chunks: Buffer[] = [];
    sock.on('data', (d: Buffer) => chunks.push(d));
    sock.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const status = Number(text.slice(9, 12));
      const sep = text.indexOf('\r\n\r\n');
      resolve({ status, body: sep === -1 ? '' : text.slice(sep + 4) });
    });
    sock.on('error', reject);
  });
}

function chatBody(content: string): Buffer {
  return Buffer.from(JSON.stringify({ model: 'x', messages: [{ role: 'user', content }] }));
}

describe('repeated content-encoding lines', () => {
  it('decodes every coding across the lines (identity, then gzip) and redacts what they held', async () => {
    const before = up.requests.length;
    const r = await rawRequest(proxy.url, 'POST /openai/v1/chat/completions HTTP/1.1\r\nContent-Type: application/json\r\nContent-Encoding: identity\r\nContent-Encoding: gzip', gzipSync(chatBody(`key ${KEY}`)));
    expect(r.status).toBe(200);
    expect(up.requests.length).toBe(before + 1);
    const seen = up.requests.at(-1)!;
    expect(seen.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(seen.body.toString('utf8')).messages[0].content).toBe(`key ${ph(KEY)}`);
  });

  it('undoes codings stacked over two lines in reverse order', async () => {
    const r = await rawRequest(proxy.url, 'POST /openai/v1/chat/completions HTTP/1.1\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Encoding: br', brotliCompressSync(gzipSync(chatBody(`key ${KEY}`))));
    expect(r.status).toBe(200);
    expect(JSON.parse(up.requests.at(-1)!.body.toString('utf8')).messages[0].content).toBe(`key ${ph(KEY)}`);
  });

  it('refuses with 415 when any line names a coding it cannot decode, and forwards nothing', async () => {
    const before = up.requests.length;
    const r = await rawRequest(proxy.url, 'POST /openai/v1/chat/completions HTTP/1.1\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Encoding: x-secret-sauce', gzipSync(chatBody(`key ${KEY}`)));
    expect(r.status).toBe(415);
    expect(JSON.parse(r.body).error.type).toBe('ficta_unsupported_encoding');
    expect(up.requests.length).toBe(before);
  });

  it('redacts every line of another repeated header', async () => {
    const r = await rawRequest(proxy.url, `POST /openai/v1/chat/completions HTTP/1.1\r\nContent-Type: application/json\r\nX-Note: plain\r\nX-Note: k=${KEY}`, chatBody('hi'));
    expect(r.status).toBe(200);
    expect(up.requests.at(-1)!.headers['x-note']).toBe(`plain, k=${ph(KEY)}`);
  });
});

describe('dot segments', () => {
  const targets = [
    ['/anthropic/../openai/v1/models', 'anthropic'],
    ['/openai/v1/%2e%2e/%2E%2e/admin', 'openai'],
    ['/openai/v1/.%2e/x', 'openai'],
    ['/openai/v1/%2E/models', 'openai'],
    ['/openai/v1/..\\..\\x', 'openai'],
    ['/openai/v1/..%5cx', 'openai'],
    ['/openai/v1/..;/x', 'openai'],
    ['/openai/v1/%252e%252e/x', 'openai'],
    ['/x/../openai/v1/models', 'openai'],
  ] as const;
  for (const [target, shape] of targets) {
    it(`refuses ${target} with a provider-shaped 400 and forwards nothing`, async () => {
      const before = up.requests.length;
      const r = await rawRequest(proxy.url, `GET ${target} HTTP/1.1`);
      expect(r.status).toBe(400);
      const json = JSON.parse(r.body);
      if (shape === 'anthropic') expect(json).toMatchObject({ type: 'error', error: { type: 'ficta_bad_request' } });
      else expect(json.error.type).toBe('ficta_bad_request');
      expect(up.requests.length).toBe(before);
    });
  }

  it('keeps dots that are not segments (model names, file names)', async () => {
    const r = await rawRequest(proxy.url, 'GET /openai/v1/models/gpt-4.1-mini..x/.well-known HTTP/1.1');
    expect(r.status).toBe(200);
    expect(up.requests.at(-1)!.url).toBe('/v1/models/gpt-4.1-mini..x/.well-known');
  });

  it('never leaves the upstream base path', async () => {
    const based = await startFicta({ upstream: `${up.url}/base/v1`, secrets: SECRETS });
    try {
      const before = up.requests.length;
      const r = await rawRequest(based.url, 'GET /openai/../../x HTTP/1.1');
      expect(r.status).toBe(400);
      expect(up.requests.length).toBe(before);
      const ok = await rawRequest(based.url, 'GET /openai/models HTTP/1.1');
      expect(ok.status).toBe(200);
      expect(up.requests.at(-1)!.url).toBe('/base/v1/models');
    } finally {
      await based.close();
    }
  });
});

describe('logs show the redacted target', () => {
  const requestLines = (logs: readonly string[]): Array<Record<string, unknown>> => logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.event === 'request');

  it('logs a value in a path segment as its placeholder on the request line, blocked or not', async () => {
    const path = `/openai/v1/x;m=${encodeURIComponent(KEY)}/y`;
    const ok = await rawRequest(proxy.url, `POST ${path} HTTP/1.1\r\nContent-Type: application/json`, chatBody('hi'));
    expect(ok.status).toBe(200);
    expect(up.requests.at(-1)!.url).toBe(`/v1/x;m=${ph(KEY)}/y`);
    const blocked = await rawRequest(proxy.url, `POST ${path} HTTP/1.1\r\nContent-Type: application/json`, Buffer.from(`{"n":${ACCOUNT}}`));
    expect(blocked.status).toBe(403);
    const [first, second] = requestLines(proxy.logs).slice(-2);
    expect(first).toMatchObject({ outcome: 'ok', route: `/v1/x;m=${ph(KEY)}/y` });
    expect(second).toMatchObject({ outcome: 'blocked', route: `/v1/x;m=${ph(KEY)}/y`, blocked: [{ secret: 'CARD_NUMBER', surface: 'body' }] });
    for (const l of [first, second]) expect(JSON.stringify(l)).not.toContain(KEY.slice(8));
  });

  it('masks a value that spans a slash of the path in the log of the request it blocks', async () => {
    const slashed = 'tenant-8842/secret-path-token-77';
    const withSlash = await startFicta({ upstream: up.url, secrets: { ...SECRETS, PATH_TOKEN: slashed } });
    try {
      const before = up.requests.length;
      const r = await rawRequest(withSlash.url, `GET /openai/v1/files/${slashed}/content HTTP/1.1`);
      expect(r.status).toBe(403);
      expect(up.requests.length).toBe(before);
      const line = requestLines(withSlash.logs).at(-1)!;
      expect(line).toMatchObject({ outcome: 'blocked', blocked: [{ secret: 'PATH_TOKEN', surface: 'path' }] });
      expect(String(line.route)).toMatch(/^\/v1\/files\/~ficta_[a-z0-9]+\/content$/);
      expect(JSON.stringify(withSlash.logs)).not.toContain('secret-path-token-77');
    } finally {
      await withSlash.close();
    }
  });

  it('logs a refused WebSocket upgrade as a request line: token segment dropped, values replaced', async () => {
    const guarded = await startFicta({ upstream: up.url, secrets: SECRETS, config: { token: TOKEN } });
    try {
      const reply = await rawRequest(guarded.url, `GET /t/${TOKEN}/v1/responses/${encodeURIComponent(WEIRD)}?k=${encodeURIComponent(KEY)} HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13`);
      expect(reply.status).toBe(426);
      const snap = guarded.ficta.registry.current();
      if (snap.kind !== 'ready') throw new Error('not ready');
      const line = requestLines(guarded.logs).at(-1)!;
      expect(line).toMatchObject({ method: 'GET', route: `/v1/responses/${snap.set.placeholders[snap.set.values.indexOf(WEIRD)]}`, status: 426, outcome: 'websocket_refused' });
      expect(line.bytesOut).toBe(Buffer.byteLength(reply.body));
      const all = JSON.stringify(guarded.logs);
      for (const v of [TOKEN, KEY, WEIRD, encodeURIComponent(WEIRD)]) expect(all).not.toContain(v);
    } finally {
      await guarded.close();
    }
  });

  it('logs a dot-segment refusal as a request line (bad_request), token dropped and values replaced', async () => {
    const guarded = await startFicta({ upstream: up.url, secrets: SECRETS, config: { token: TOKEN } });
    try {
      const reply = await rawRequest(guarded.url, `GET /t/${TOKEN}/anthropic/${encodeURIComponent(KEY)}/../v1/models HTTP/1.1`);
      expect(reply.status).toBe(400);
      expect(JSON.parse(reply.body)).toMatchObject({ type: 'error', error: { type: 'ficta_bad_request' } });
      const snap = guarded.ficta.registry.current();
      if (snap.kind !== 'ready') throw new Error('not ready');
      const line = requestLines(guarded.logs).at(-1)!;
      expect(line).toMatchObject({ method: 'GET', route: `/anthropic/${snap.set.placeholders[snap.set.values.indexOf(KEY)]}/../v1/models`, status: 400, outcome: 'bad_request', bytesOut: Buffer.byteLength(reply.body) });
      const all = JSON.stringify(guarded.logs);
      for (const v of [TOKEN, KEY, encodeURIComponent(KEY)]) expect(all).not.toContain(v);
    } finally {
      await guarded.close();
    }
  });
});

describe('bodies of every kind', () => {
  const boundary = 'ficta-edges-3Xq';
  const multipart = (parts: Array<[string, Buffer | string]>): Buffer =>
    Buffer.concat([...parts.flatMap(([h, b]) => [Buffer.from(`--${boundary}\r\n${h}\r\n\r\n`), Buffer.isBuffer(b) ? b : Buffer.from(b), Buffer.from('\r\n')]), Buffer.from(`--${boundary}--\r\n`)]);

  it('redacts a JSONL file part written by json.dumps (\\u escapes) and keeps the framing and a binary part byte-exact', async () => {
    const jsonl = `{"custom_id":"1","body":{"messages":[{"role":"user","content":"${'pa\\"ss-w\\u00f6rd-99'} and ${KEY}"}]}}\n`;
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 0xff, 0x5c, 0x75]);
    const body = multipart([
      ['Content-Disposition: form-data; name="purpose"', 'batch'],
      ['Content-Disposition: form-data; name="file"; filename="batch.jsonl"\r\nContent-Type: application/jsonl', jsonl],
      ['Content-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png', png],
    ]);
    const res = await fetch(`${proxy.url}/openai/v1/files`, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body });
    expect(res.status).toBe(200);
    const expected = multipart([
      ['Content-Disposition: form-data; name="purpose"', 'batch'],
      ['Content-Disposition: form-data; name="file"; filename="batch.jsonl"\r\nContent-Type: application/jsonl', `{"custom_id":"1","body":{"messages":[{"role":"user","content":"${ph(WEIRD)} and ${ph(KEY)}"}]}}\n`],
      ['Content-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png', png],
    ]);
    expect(up.requests.at(-1)!.body.equals(expected)).toBe(true);
  });

  it('blocks an octet-stream body holding \\u-escaped JSON with a value', async () => {
    const before = up.requests.length;
    const res = await fetch(`${proxy.url}/openai/v1/uploads/u1/parts`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: `{"pw":"pa\\"ss-w\\u00f6rd-99"}` });
    expect(res.status).toBe(403);
    expect(((await res.json()) as any).error.message).toContain('DB_PASSWORD in body (binary)');
    expect(up.requests.length).toBe(before);
  });

  it('refuses a body nested too deep to check with a provider-shaped 400', async () => {
    let s = '\\u0041';
    for (let i = 0; i < 20; i++) s = s.replace(/\\/g, '\\u005c');
    const before = up.requests.length;
    const res = await fetch(`${proxy.url}/anthropic/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"t":"${s}"}` });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.type).toBe('ficta_too_deeply_encoded');
    expect(up.requests.length).toBe(before);
  });
});

describe('only the value span changes', () => {
  it('replaces a percent-encoded value inside a header without re-encoding the rest of it', async () => {
    const r = await rawRequest(proxy.url, `POST /openai/v1/chat/completions HTTP/1.1\r\nContent-Type: application/json\r\nX-Meta: name=John Doe; tok=${encodeURIComponent(WEIRD)}; n=%41`, chatBody('hi'));
    expect(r.status).toBe(200);
    expect(up.requests.at(-1)!.headers['x-meta']).toBe(`name=John Doe; tok=${ph(WEIRD)}; n=%41`);
  });

  it('keeps raw UTF-8 in a form body around a replaced value', async () => {
    const body = Buffer.from(`q=café+${KEY}&r=${encodeURIComponent(WEIRD)}&s=naïve`, 'utf8');
    const r = await rawRequest(proxy.url, 'POST /openai/v1/moderations HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded', body);
    expect(r.status).toBe(200);
    expect(up.requests.at(-1)!.body.toString('utf8')).toBe(`q=café+${ph(KEY)}&r=${ph(WEIRD)}&s=naïve`);
  });

  it('keeps the rest of a query parameter as sent around a replaced value', async () => {
    const r = await rawRequest(proxy.url, `GET /openai/v1/models?q=caf%C3%A9%2D${encodeURIComponent(KEY)}%21&b=%7e HTTP/1.1`);
    expect(r.status).toBe(200);
    expect(up.requests.at(-1)!.url).toBe(`/v1/models?q=caf%C3%A9%2D${ph(KEY)}%21&b=%7e`);
  });
});

describe('many hits', () => {
  it('redacts a body with 200,000 hits (a spread used to overflow the stack: 500)', async () => {
    const content = `${KEY} `.repeat(200_000);
    up.setScript(() => ({ json: { ok: true } }));
    const res = await fetch(`${proxy.url}/openai/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: chatBody(content) });
    expect(res.status).toBe(200);
    expect(JSON.parse(up.requests.at(-1)!.body.toString('utf8')).messages[0].content).toBe(`${ph(KEY)} `.repeat(200_000));
  });
});

describe('internal errors', () => {
  it('log their site and error class, never a value', async () => {
    const broken = await startFicta({ upstream: up.url, secrets: SECRETS });
    try {
      const snap = broken.ficta.registry.current();
      if (snap.kind !== 'ready') throw new Error('not ready');
      // A fault inside redaction stands in for any bug there.
      (snap.set.matcher as { scan: unknown }).scan = () => {
        throw new RangeError(`boom ${KEY}`);
      };
      const res = await fetch(`${broken.url}/openai/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: chatBody('hi') });
      expect(res.status).toBe(500);
      const line = broken.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.event === 'internal_error')!;
      expect(line).toMatchObject({ site: 'redact-target', error: 'RangeError' });
      expect(JSON.stringify(broken.logs)).not.toContain(KEY);
    } finally {
      await broken.close();
    }
  });
});
