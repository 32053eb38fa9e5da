// Detection through the request side's decoded views and the providers' exemptions, over real loopback
// HTTP: credentials nobody registered are found (and replaced by byte surgery on their encoded bytes) in
// JSON nested past the compiled depths, percent-encoded in text and form bodies, and refused in a binary
// body; Gemini's `?key=` and the auth headers pass as the client sent them although they hold a Google
// API key the detector would otherwise take.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleOf } from '../../fixtures/detect/tokens.ts';
import { KINDS } from '../../src/detect/kinds.ts';
import { mulberry32 } from '../../src/util/prng.ts';
import { ALL_SECRET_VALUES, startFicta, type TestFicta } from '../helpers/ficta-server.ts';
import { createMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';

const rnd = mulberry32(0x51e5);
const sample = (name: string, variant = 0): string => {
  const kind = KINDS.find((k) => k.name === name);
  if (kind === undefined) throw new Error(`no kind ${name}`);
  return sampleOf(kind, rnd, variant).secret;
};
const GITHUB = sample('github-classic-pat');
const PEM = sample('private-key');
const GOOGLE_KEY = sample('google-api-key');
const OTHER_GOOGLE_KEY = sample('google-api-key', 1);
const JWT = sample('jwt');
for (const v of [GITHUB, PEM, GOOGLE_KEY, OTHER_GOOGLE_KEY, JWT]) ALL_SECRET_VALUES.add(v);

/** `text` as a JSON string nested `depth` levels deep (JSON text in a string in a string …). */
function nest(text: string, depth: number): string {
  let s = JSON.stringify({ v: text });
  for (let i = 1; i < depth; i++) s = JSON.stringify({ v: s });
  return s;
}

/** Undoes {@link nest}. */
function unnest(json: string, depth: number): string {
  let s = json;
  for (let i = 0; i < depth; i++) s = (JSON.parse(s) as { v: string }).v;
  return s;
}

function percentAll(s: string): string {
  return [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');
}

let up: MockUpstream;
let proxy: TestFicta;
let blocking: TestFicta;

beforeAll(async () => {
  up = await createMockUpstream({ secrets: [GITHUB, PEM, OTHER_GOOGLE_KEY, JWT] });
  const gemini = { upstreams: { anthropic: up.url, openai: up.url, gemini: up.url } };
  proxy = await startFicta({ upstream: up.url, config: gemini });
  blocking = await startFicta({ upstream: up.url, config: { ...gemini, detect: { mode: 'block' } } });
});
afterAll(async () => {
  await proxy.close();
  await blocking.close();
  await up.close();
});

describe('detected credentials in decoded views', () => {
  it('redacts a private key block in JSON nested six levels deep, where its newlines are 63 backslashes', async () => {
    const body = `{"model":"x","messages":[{"role":"tool","content":${JSON.stringify(nest(`key:\n${PEM}\nend`, 5))}}]}`;
    const res = await fetch(`${proxy.url}/openai/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(res.status).toBe(200);
    const sent = up.requests.at(-1)!.body.toString('utf8');
    const inner = unnest((JSON.parse(sent) as { messages: Array<{ content: string }> }).messages[0]!.content, 5);
    expect(inner).toMatch(/^key:\n~ficta_[a-z0-9]+\nend$/);
    expect(sent).not.toContain('PRIVATE KEY-----');
    expect(up.leaks).toEqual([]);
  });

  it('redacts a token percent-encoded byte by byte in a text body and in a form field, and keeps the rest as sent', async () => {
    const text = `token=${percentAll(GITHUB)} and more%20text`;
    const res = await fetch(`${proxy.url}/openai/v1/notes`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: text });
    expect(res.status).toBe(200);
    expect(up.requests.at(-1)!.body.toString('utf8')).toMatch(/^token=~ficta_[a-z0-9]+ and more%20text$/);
    const form = `a=1&t=${percentAll(GITHUB)}&b=caf%C3%A9`;
    const formRes = await fetch(`${proxy.url}/openai/v1/moderations`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form });
    expect(formRes.status).toBe(200);
    expect(up.requests.at(-1)!.body.toString('utf8')).toMatch(/^a=1&t=~ficta_[a-z0-9]+&b=caf%C3%A9$/);
    expect(up.leaks).toEqual([]);
  });

  it('finds a token whose one escaped character is an ordinary letter (%67 for g, \\u0067), a key block and a signed JWT escaped far from their anchors', async () => {
    const text = `t=%67${GITHUB.slice(1)}`;
    expect((await fetch(`${proxy.url}/openai/v1/notes`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: text })).status).toBe(200);
    expect(up.requests.at(-1)!.body.toString('utf8')).toMatch(/^t=~ficta_[a-z0-9]+$/);
    // One base64 character of the key block, hundreds of bytes past `-----BEGIN`, written as \u00XX.
    const at = PEM.indexOf('\n', 400) + 5;
    const escapedPem = JSON.stringify(PEM).replace(/^"|"$/g, '');
    const cut = JSON.stringify(PEM.slice(0, at)).length - 2;
    const body = `{"model":"x","messages":[{"role":"user","content":"${escapedPem.slice(0, cut)}\\u00${PEM.charCodeAt(at).toString(16)}${escapedPem.slice(cut + 1)}"},{"role":"user","content":"\\u0067${GITHUB.slice(1)}"}]}`;
    expect(JSON.parse(body).messages.map((m: { content: string }) => m.content)).toEqual([PEM, GITHUB]);
    const res = await fetch(`${proxy.url}/openai/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(res.status).toBe(200);
    const sent = JSON.parse(up.requests.at(-1)!.body.toString('utf8')) as { messages: Array<{ content: string }> };
    const placeholder = expect.stringMatching(/^~ficta_[a-z0-9]+$/);
    expect(sent.messages.map((m) => m.content)).toEqual([placeholder, placeholder]);
    // A signed JWT with one payload character escaped over 100 bytes past its `eyJ` anchor: the decoded
    // view is read whole, not only around the escape.
    const e = JWT.indexOf('.') + 100;
    const jwtBody = `{"model":"x","messages":[{"role":"user","content":"${JWT.slice(0, e)}\\u00${JWT.charCodeAt(e).toString(16)}${JWT.slice(e + 1)}"}]}`;
    expect(JSON.parse(jwtBody).messages[0].content).toBe(JWT);
    expect((await fetch(`${proxy.url}/openai/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: jwtBody })).status).toBe(200);
    expect((JSON.parse(up.requests.at(-1)!.body.toString('utf8')) as { messages: Array<{ content: string }> }).messages[0]!.content).toMatch(/^~ficta_[a-z0-9]+$/);
    expect(up.leaks).toEqual([]);
  });

  it('blocks a \\u-escaped token in an octet-stream body (bytes it cannot rewrite), naming the kind', async () => {
    const before = up.requests.length;
    const escaped = [...GITHUB].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    const res = await fetch(`${proxy.url}/openai/v1/uploads/u1/parts`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: `{"t":"${escaped}"}` });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('credential detected:github-classic-pat in body (binary)');
    expect(up.requests.length).toBe(before);
  });

  it('in block mode refuses a percent-encoded token in the query, naming the kind', async () => {
    const before = up.requests.length;
    const res = await fetch(`${blocking.url}/openai/v1/models?q=${percentAll(GITHUB)}`);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('detected:github-classic-pat in query');
    expect(up.requests.length).toBe(before);
  });
});

describe('the client\'s own credentials pass undetected', () => {
  it('forwards Gemini\'s key= and x-goog-api-key as sent, and still redacts a key in the body', async () => {
    const target = `/gemini/v1beta/models/gemini-x:generateContent?key=${GOOGLE_KEY}&alt=json`;
    const body = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: `use ${OTHER_GOOGLE_KEY}` }] }] });
    const res = await fetch(`${proxy.url}${target}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-goog-api-key': GOOGLE_KEY }, body });
    expect(res.status).toBe(200);
    const seen = up.requests.at(-1)!;
    expect(seen.url).toBe(`/v1beta/models/gemini-x:generateContent?key=${GOOGLE_KEY}&alt=json`);
    expect(seen.headers['x-goog-api-key']).toBe(GOOGLE_KEY);
    expect(seen.body.toString('utf8')).toMatch(/"use ~ficta_[a-z0-9]+"/);
    expect(seen.body.toString('utf8')).not.toContain(OTHER_GOOGLE_KEY);
  });

  it('forwards api-key and authorization headers holding a detectable token as sent, also in block mode', async () => {
    for (const p of [proxy, blocking]) {
      const res = await fetch(`${p.url}/openai/v1/models`, { headers: { 'api-key': GITHUB, authorization: `Bearer ${GITHUB}` } });
      expect(res.status).toBe(200);
      const seen = up.requests.at(-1)!;
      expect([seen.headers['api-key'], seen.headers.authorization]).toEqual([GITHUB, `Bearer ${GITHUB}`]);
    }
  });

  it('never writes a detected value to a log line', () => {
    const all = [...proxy.logs, ...blocking.logs].join('\n');
    for (const v of [GITHUB, PEM, OTHER_GOOGLE_KEY]) expect(all).not.toContain(v);
  });
});
