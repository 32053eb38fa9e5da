// Response bodies whose kind the content-type does not give (issue 9, item 9): no content-type and a
// 1-byte first chunk, JSON labelled text/plain, and NDJSON, restored with the escaping the bytes need.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFicta, type TestFicta } from '../helpers/ficta-server.ts';
import { createMockUpstream, echoScript, type MockUpstream } from '../helpers/mock-upstream.ts';
import { parseSse } from '../helpers/sse-client.ts';

const WEIRD = 'pa"ss\\wörd\n-9 🔑';
const KEY = 'sk-proj-QwErTyUiOpAsDfGhJkL123';

let up: MockUpstream;
let proxy: TestFicta;

beforeAll(async () => {
  up = await createMockUpstream({ secrets: [WEIRD, KEY] });
  proxy = await startFicta({ upstream: up.url, secrets: { DB_PASSWORD: WEIRD, OPENAI_KEY: KEY } });
});
afterAll(async () => {
  await proxy.close();
  await up.close();
});
afterEach(() => {
  expect(up.leaks).toEqual([]);
  up.setScript(echoScript());
});

/** Sends `value` through the proxy (redacted on the way out) and answers with `reply(placeholder)`. */
async function roundTrip(path: string, reply: (placeholder: string) => { raw: string; headers: Record<string, string>; chunking?: 'bytes' | 'whole' }): Promise<string> {
  up.setScript((req) => {
    const placeholder = JSON.parse(req.body.toString()).messages[0].content as string;
    return reply(placeholder);
  });
  const res = await fetch(`${proxy.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'x', messages: [{ role: 'user', content: WEIRD }] }) });
  expect(res.status).toBe(200);
  return res.text();
}

describe('response body kinds', () => {
  it('reads an SSE stream without content-type as SSE even when the first chunk is one byte', async () => {
    const text = await roundTrip('/openai/v1/chat/completions', (p) => ({
      raw: `data: {"choices":[{"index":0,"delta":{"content":"a ${p.slice(0, 9)}"},"finish_reason":null}]}\n\ndata: {"choices":[{"index":0,"delta":{"content":"${p.slice(9)} b"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n`,
      headers: {},
      chunking: 'bytes',
    }));
    const events = parseSse(text);
    expect(events.length).toBe(3);
    const content = events
      .slice(0, 2)
      .map((e) => JSON.parse(e.data).choices[0].delta.content)
      .join('');
    expect(content).toBe(`a ${WEIRD} b`);
  });

  it('gives JSON labelled text/plain (or with no content-type) valid JSON back, and prose raw', async () => {
    for (const headers of [{ 'content-type': 'text/plain' }, {}]) {
      const json = await roundTrip('/openai/v1/other', (p) => ({ raw: JSON.stringify({ a: p, nested: JSON.stringify({ b: p }) }), headers, chunking: 'bytes' }));
      const parsed = JSON.parse(json);
      expect(parsed.a).toBe(WEIRD);
      expect(JSON.parse(parsed.nested).b).toBe(WEIRD);
      const prose = await roundTrip('/openai/v1/other', (p) => ({ raw: `the password is ${p} "quoted"`, headers }));
      expect(prose).toBe(`the password is ${WEIRD} "quoted"`);
    }
  });

  it('restores NDJSON line by line with JSON escaping', async () => {
    const text = await roundTrip('/openai/api/chat', (p) => ({
      raw: `${JSON.stringify({ message: { content: `x ${p}` }, done: false })}\n${JSON.stringify({ message: { content: p }, done: true })}\n`,
      headers: { 'content-type': 'application/x-ndjson' },
      chunking: 'bytes',
    }));
    const lines = text.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.message.content)).toEqual([`x ${WEIRD}`, WEIRD]);
  });
});
