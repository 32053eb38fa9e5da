// Detection through the real proxy, for every kind: a credential nobody registered, sent in a JSON string,
// inside tool-argument JSON text, \u-escaped, in the query and in a header, never reaches the upstream;
// the echoed placeholder comes back as the exact credential, in JSON and in SSE split across events.
// Then `--detect block` and `off`, and the hard negatives forwarded byte-exact.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { negatives } from '../../fixtures/detect/corpus.ts';
import { sampleOf, type Sample } from '../../fixtures/detect/tokens.ts';
import { KINDS } from '../../src/detect/kinds.ts';
import { mulberry32 } from '../../src/util/prng.ts';
import { ALL_SECRET_VALUES, startFicta, type TestFicta } from '../helpers/ficta-server.ts';
import { fullUnicodeEscape } from '../helpers/leak-oracle.ts';
import { createMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';
import { collect } from '../helpers/sse-client.ts';

const rnd = mulberry32(0xdec7);
const BATCH = 15;
const SAMPLES: Sample[] = KINDS.map((k, i) => sampleOf(k, rnd, i));
const secretsOf = (s: Sample): string[] => [s.secret, ...(s.also ?? []).map((a) => a.secret)];
// The suite-wide log guard checks every log line against these too: detections are counted, never logged.
for (const s of SAMPLES) for (const v of secretsOf(s)) ALL_SECRET_VALUES.add(v);

/** A Chat Completions body carrying `text` as user content, in tool-call arguments (JSON text) and \u-escaped in a tool result. */
function chatBody(text: string, stream: boolean): string {
  const args = JSON.stringify({ cmd: `use ${text}` });
  return `{"model":"gpt-x","stream":${stream},"messages":[`
    + `{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"sh","arguments":${JSON.stringify(args)}}}]},`
    + `{"role":"tool","tool_call_id":"c1","content":"${fullUnicodeEscape(text)}"},`
    + `{"role":"user","content":${JSON.stringify(`see ${text}`)}}]}`;
}

async function send(proxy: TestFicta, text: string, stream: boolean): Promise<Response> {
  const oneLine = text.replace(/\r?\n/g, ' ');
  return fetch(`${proxy.url}/openai/v1/chat/completions?note=${encodeURIComponent(oneLine)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test', 'x-note': oneLine },
    body: chatBody(text, stream),
  });
}

describe('detection through the proxy (redact, the default)', () => {
  let up: MockUpstream;
  let proxy: TestFicta;
  beforeAll(async () => {
    up = await createMockUpstream({ secrets: SAMPLES.flatMap(secretsOf) });
    proxy = await startFicta({ upstream: up.url });
  });
  afterAll(async () => {
    await proxy.close();
    await up.close();
  });

  it('keeps every kind from the upstream in every form and restores it exactly, in JSON and in split SSE', async () => {
    const failures: string[] = [];
    // Kinds go in batches (one request carries several), so the machine's load costs few round trips.
    const batches: Sample[][] = [];
    for (let i = 0; i < SAMPLES.length; i += BATCH) batches.push(SAMPLES.slice(i, i + BATCH));
    for (const batch of batches) {
      const text = batch.map((s) => s.text).join(' | ');
      const json = await send(proxy, text, false);
      const got = ((await json.json()) as any).choices?.[0]?.message?.content as string | undefined;
      const sse = await send(proxy, text, true);
      const streamed = collect(await sse.text()).streams.get('c0:text');
      for (const s of batch) {
        if (json.status !== 200 || got === undefined || !got.includes(s.text)) failures.push(`${s.kind}: JSON`);
        if (sse.status !== 200 || streamed === undefined || !streamed.includes(s.text)) failures.push(`${s.kind}: SSE`);
      }
      expect(got).toBe(`ECHO: see ${text}`);
      expect(streamed).toBe(`ECHO: see ${text}`);
    }
    expect(failures).toEqual([]);
    expect(up.leaks).toEqual([]);
    // The oracle really looked: every request reached the upstream, with placeholders.
    expect(up.requests.length).toBe(batches.length * 2);
    expect(up.requests.every((r) => r.body.includes('~ficta_'))).toBe(true);
  });

  it('counts detections by kind in the request log and the report, never values', () => {
    const logged = new Set<string>();
    for (const l of proxy.requestLogs()) for (const name of Object.keys(l.redactions ?? {})) logged.add(name);
    for (const s of SAMPLES) expect(logged.has(`detected:${s.kind}`), s.kind).toBe(true);
    const report = proxy.ficta.report();
    expect(report.restores[`detected:${SAMPLES[0]!.kind}`]).toBeGreaterThan(0);
    expect(report.detectedStore).toMatchObject({ entries: expect.any(Number), evicted: 0 });
    expect(report.detectedStore!.entries).toBeGreaterThanOrEqual(SAMPLES.length);
  });

  it('forwards the hard negatives byte-exact and blocks none of them', async () => {
    const all = negatives();
    for (let i = 0; i < all.length; i += 4 * BATCH) {
      const batch = all.slice(i, i + 4 * BATCH);
      const body = JSON.stringify({ model: 'gpt-x', messages: batch.map((n) => ({ role: 'user', content: n.text })) });
      const res = await fetch(`${proxy.url}/openai/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      const arrived = up.requests.at(-1)!;
      const changed = batch.filter((n, k) => arrived.json.messages[k].content !== n.text).map((n) => n.label);
      expect(changed).toEqual([]);
      expect(arrived.body.toString('utf8')).toBe(body);
    }
  });
});

describe('detection modes', () => {
  const sample = SAMPLES.find((s) => s.kind === 'github-classic-pat')!;

  it('--detect block: 403 ficta_leak_blocked naming the kind, nothing forwarded', async () => {
    const up = await createMockUpstream({ secrets: [sample.secret] });
    const proxy = await startFicta({ upstream: up.url, config: { detect: { mode: 'block' } } });
    try {
      const res = await send(proxy, sample.text, false);
      const body = (await res.json()) as any;
      expect(res.status).toBe(403);
      expect(body.error.type).toBe('ficta_leak_blocked');
      expect(body.error.message).toContain('detected:github-classic-pat');
      expect(body.error.message).not.toContain(sample.secret);
      expect(up.requests).toEqual([]);
      expect(proxy.ficta.report().blockedBySecret).toEqual({ 'detected:github-classic-pat': 1 });
    } finally {
      await proxy.close();
      await up.close();
    }
  });

  it('--detect off: a credential nobody registered passes as it came', async () => {
    const up = await createMockUpstream();
    const proxy = await startFicta({ upstream: up.url, config: { detect: { mode: 'off' } } });
    try {
      const res = await send(proxy, sample.text, false);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      expect(up.requests[0]!.body.toString()).toBe(chatBody(sample.text, false));
    } finally {
      await proxy.close();
      await up.close();
    }
  });
});
