// The config's own kinds through the real proxy with the official SDKs: custom detectors, terms and PII
// are redacted upstream, restored exactly (each casing of a term as written) in streamed and whole text
// and in tool-call arguments (`cd /srv/falcon` restores: a path is no destination), counted by name; in
// `block` mode custom detectors block and terms are still redacted; terms work with detection off; a
// rule that would match too much is refused at start, naming it.

import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { ALL_SECRET_VALUES, startFicta, type TestFicta } from '../helpers/ficta-server.ts';
import { createMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';

const ACME = 'acme_live_Q7vR2mXk9TzL4wNp8YcB3dHs';
const CARD = '4111 1111 1111 1111';
const IBAN = 'DE89 3704 0044 0532 0130 00';
const EMAIL = 'jane.doe@corp-mail.io';
const KEPT = 'noreply@corp-mail.io';
const CASINGS = ['Falcon', 'FALCON', 'falcon'];
const PROMPT = `Project ${CASINGS[0]} (${CASINGS[1]}) ships for Acme Corp; key ${ACME}; card ${CARD}; IBAN ${IBAN}; mail ${EMAIL}, not ${KEPT}; cd /srv/${CASINGS[2]} && ls`;
/** A shell command naming no destination: every placeholder in it is restored (a path is no destination). */
const COMMAND = `cd /srv/${CASINGS[2]} && grep -r ${CASINGS[1]} . > ${CASINGS[0]}.log; echo ${ACME} ${CARD} ${IBAN}`;
const VALUES = [ACME, CARD, IBAN, EMAIL, ...CASINGS, 'Acme Corp', 'Müller'];
for (const v of VALUES) ALL_SECRET_VALUES.add(v);

const CONFIG = {
  detect: {
    custom: [{ name: 'acme-token', prefix: ['acme_live_', 'acme_test_'], charset: 'A-Za-z0-9', length: [30, 40] }],
    pii: ['payment-card', 'iban', 'email'],
    allow: ['noreply@'],
  },
  secrets: { terms: ['project=Falcon', 'Acme Corp', 'person=Müller'] },
};

/** What the upstream saw: none of the values in any casing, the allowed address as it was. */
function checkUpstream(up: MockUpstream): void {
  expect(up.requests.length).toBeGreaterThan(0);
  for (const r of up.requests) {
    const body = r.body.toString();
    for (const v of [ACME, CARD, IBAN, EMAIL, 'Acme Corp']) expect(body.includes(v), v).toBe(false);
    expect(/falcon/i.test(body)).toBe(false);
    expect(body.includes('~ficta_')).toBe(true);
  }
  expect(up.requests.some((r) => r.body.toString().includes(KEPT))).toBe(true);
  expect(up.leaks).toEqual([]);
}

describe('custom detectors, terms and PII through the proxy (redact)', () => {
  let up: MockUpstream;
  let proxy: TestFicta;
  beforeAll(async () => {
    up = await createMockUpstream({ secrets: VALUES });
    proxy = await startFicta({ upstream: up.url, config: CONFIG });
  });
  afterAll(async () => {
    await proxy.close();
    await up.close();
  });

  it('openai SDK: streamed text and function arguments come back exact, each casing as written', async () => {
    const client = new OpenAI({ baseURL: `${proxy.url}/openai/v1`, apiKey: 'test-key', maxRetries: 0 });
    const tools = [{ type: 'function' as const, function: { name: 'bash', parameters: { type: 'object', properties: { text: { type: 'string' } } } } }];
    const stream = client.chat.completions.stream({ model: 'gpt-x', messages: [{ role: 'user', content: PROMPT }] });
    let streamed = '';
    stream.on('content', (d) => {
      streamed += d;
    });
    await stream.finalChatCompletion();
    expect(streamed).toBe(`ECHO: ${PROMPT}`);
    const final = await client.chat.completions.stream({ model: 'gpt-x', messages: [{ role: 'user', content: COMMAND }], tools }).finalChatCompletion();
    const call = final.choices[0]?.message.tool_calls?.[0];
    expect(call?.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ text: COMMAND, note: 'echo' });
    const whole = await client.chat.completions.create({ model: 'gpt-x', messages: [{ role: 'user', content: PROMPT }] });
    expect(whole.choices[0]?.message.content).toBe(`ECHO: ${PROMPT}`);
    checkUpstream(up);
  });

  it('anthropic SDK: streamed text and tool input come back exact', async () => {
    const client = new Anthropic({ baseURL: `${proxy.url}/anthropic`, apiKey: 'test-key', maxRetries: 0 });
    const tools = [{ name: 'bash', description: 'run a command', input_schema: { type: 'object' as const, properties: { text: { type: 'string' } } } }];
    const stream = client.messages.stream({ model: 'claude-x', max_tokens: 100, messages: [{ role: 'user', content: PROMPT }] });
    let text = '';
    stream.on('text', (t) => {
      text += t;
    });
    await stream.finalMessage();
    expect(text).toBe(`ECHO: ${PROMPT}`);
    const msg = await client.messages.stream({ model: 'claude-x', max_tokens: 100, messages: [{ role: 'user', content: COMMAND }], tools }).finalMessage();
    const tool = msg.content.find((b) => b.type === 'tool_use');
    expect(tool?.type === 'tool_use' && tool.input).toEqual({ text: COMMAND, note: 'echo' });
    // A term in a host position is a restore like any other under the sink rules: withheld towards a
    // destination nobody allowed, the placeholder left in its place.
    const remote = await client.messages.create({ model: 'claude-x', max_tokens: 100, messages: [{ role: 'user', content: 'ssh falcon.example.com uptime' }], tools });
    const held = remote.content.find((b) => b.type === 'tool_use');
    expect(held?.type === 'tool_use' && (held.input as { text: string }).text).toMatch(/^ssh ~ficta_[a-z0-9]+\.example\.com uptime$/);
    checkUpstream(up);
  });

  it('an email and a term in a request header are redacted there too; a card as a JSON number is refused (fail closed)', async () => {
    const send = (body: string) =>
      fetch(`${proxy.url}/openai/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer k', 'x-requested-by': `${EMAIL} for Falcon` },
        body,
      });
    const res = await send('{"model":"m","messages":[{"role":"user","content":"hi"}]}');
    expect(res.status).toBe(200);
    expect(String(up.requests.at(-1)!.headers['x-requested-by'])).toMatch(/^~ficta_[a-z0-9]+ for ~ficta_[a-z0-9]+$/);
    // A placeholder cannot stand where a number stands: the gate refuses the request, naming the kind.
    const before = up.requests.length;
    const number = await send('{"model":"m","metadata":{"card":4111111111111111},"messages":[{"role":"user","content":"hi"}]}');
    expect(number.status).toBe(403);
    expect(await number.text()).toContain('detected:payment-card in body');
    expect(up.requests.length).toBe(before);
  });

  it('a non-ASCII term sent \\u-escaped (Python json.dumps) is redacted and comes back as written', async () => {
    const before = up.requests.length;
    const res = await fetch(`${proxy.url}/openai/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: '{"model":"m","messages":[{"role":"user","content":"Herr M\\u00fcller and MÜLLER"}]}',
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).choices[0].message.content).toBe('ECHO: Herr Müller and MÜLLER');
    const sent = up.requests[before]!.body.toString();
    expect(sent).not.toMatch(/M\\u00fcller|Müller/);
    expect(sent).toContain('MÜLLER'); // only ASCII letters fold: Ü is not ü
  });

  it('counts by name: each term under its own, detections under their kind; never a value in the logs', () => {
    const names = new Set<string>();
    for (const l of proxy.requestLogs()) for (const n of Object.keys(l.redactions ?? {})) names.add(n);
    for (const n of ['project', 'term-2', 'detected:acme-token', 'detected:payment-card', 'detected:iban', 'detected:email']) expect(names, n).toContain(n);
    const all = proxy.logs.join('\n');
    for (const v of VALUES) expect(all.includes(v), v).toBe(false);
  });
});

describe('block mode and detection off', () => {
  let up: MockUpstream;
  beforeAll(async () => {
    up = await createMockUpstream({ secrets: VALUES });
  });
  afterAll(async () => {
    await up.close();
  });

  it('block: a custom detector refuses the request (403 naming it); a term alone is still redacted and restored', async () => {
    const proxy = await startFicta({ upstream: up.url, config: { ...CONFIG, detect: { ...CONFIG.detect, mode: 'block' } } });
    try {
      const client = new OpenAI({ baseURL: `${proxy.url}/openai/v1`, apiKey: 'test-key', maxRetries: 0 });
      const before = up.requests.length;
      await expect(client.chat.completions.create({ model: 'gpt-x', messages: [{ role: 'user', content: `key ${ACME}` }] })).rejects.toMatchObject({ status: 403, message: expect.stringContaining('detected:acme-token') });
      expect(up.requests.length).toBe(before);
      const res = await client.chat.completions.create({ model: 'gpt-x', messages: [{ role: 'user', content: 'ship FALCON today' }] });
      expect(res.choices[0]?.message.content).toBe('ECHO: ship FALCON today');
      expect(/falcon/i.test(up.requests.at(-1)!.body.toString())).toBe(false);
    } finally {
      await proxy.close();
    }
  });

  it('off: terms are still redacted and restored; custom detectors and PII are off', async () => {
    const proxy = await startFicta({ upstream: up.url, config: { ...CONFIG, detect: { ...CONFIG.detect, mode: 'off' } } });
    try {
      const client = new OpenAI({ baseURL: `${proxy.url}/openai/v1`, apiKey: 'test-key', maxRetries: 0 });
      up.secrets = [];
      const res = await client.chat.completions.create({ model: 'gpt-x', messages: [{ role: 'user', content: `falcon ${ACME}` }] });
      expect(res.choices[0]?.message.content).toBe(`ECHO: falcon ${ACME}`);
      const body = up.requests.at(-1)!.body.toString();
      expect(/falcon/i.test(body)).toBe(false);
      expect(body.includes(ACME)).toBe(true);
    } finally {
      up.secrets = VALUES;
      await proxy.close();
    }
  });

  it('refuses at start a rule that would match too much, naming it', () => {
    for (const [rule, why] of [
      [{ name: 'too-short', prefix: 'ac', charset: 'A-Za-z0-9', length: [20, 30] }, /too-short refused: a prefix shorter than 3 bytes/],
      [{ name: 'anything', charset: 'A-Za-z0-9', length: [32, 32] }, /anything refused: a rule with only a charset/],
      [{ name: 'hex-ids', prefix: 'commit ', charset: '0-9a-f', length: [47, 47] }, /hex-ids refused: it matches a git commit SHA/],
    ] as const) {
      const loaded = loadConfig({ env: { FICTA_HOME: '/nonexistent-ficta-home' }, flags: { detect: { custom: [rule] } } });
      expect(loaded.ok).toBe(false);
      expect(!loaded.ok && loaded.error.message).toMatch(why);
      expect(!loaded.ok && loaded.error.message).toMatch(/detect\.custom\[0\]|detect\.custom\.0/);
    }
    const term = loadConfig({ env: { FICTA_HOME: '/nonexistent-ficta-home' }, flags: { secrets: { terms: ['ok=Falcon', 'x=ab'] } } });
    expect(!term.ok && term.error.message).toMatch(/term x refused: it is shorter than 3 bytes/);
  });
});
