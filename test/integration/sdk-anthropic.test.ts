// @anthropic-ai/sdk drives ficta against the mock upstream: the provider never sees a registered value
// and the client ends up with the exact originals, in text and in tool input, streamed or not.

import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFicta, type TestFicta } from '../helpers/ficta-server.ts';
import { createMockUpstream, echoScript, type MockUpstream } from '../helpers/mock-upstream.ts';

const PLAIN = 'sk-ant-api03-Zx81Kq0pLmNoPqRsTuVw';
const WEIRD = 'pa"ss\\wörd\n-x1';
const SECRETS = { ANTHROPIC_TEST_KEY: PLAIN, DB_PASSWORD: WEIRD };
const PROMPT = `Use key ${PLAIN} and password ${WEIRD} to write the config.`;

let up: MockUpstream;
let proxy: TestFicta;
let client: Anthropic;

beforeAll(async () => {
  up = await createMockUpstream({ secrets: Object.values(SECRETS) });
  proxy = await startFicta({ upstream: up.url, secrets: SECRETS });
  client = new Anthropic({ baseURL: `${proxy.url}/anthropic`, apiKey: 'test-key', maxRetries: 0 });
});
afterAll(async () => {
  await proxy.close();
  await up.close();
});

const tools = [{ name: 'write_file', description: 'write a file', input_schema: { type: 'object' as const, properties: { text: { type: 'string' } } } }];

describe('Anthropic Messages through ficta', () => {
  it('non-streaming: text and tool input come back with the real values', async () => {
    const msg = await client.messages.create({ model: 'claude-x', max_tokens: 100, messages: [{ role: 'user', content: PROMPT }], tools });
    const text = msg.content.find((b) => b.type === 'text');
    const tool = msg.content.find((b) => b.type === 'tool_use');
    expect(text?.type === 'text' && text.text).toBe(`ECHO: ${PROMPT}`);
    expect(tool?.type === 'tool_use' && tool.input).toEqual({ text: PROMPT, note: 'echo' });
    expect(up.leaks).toEqual([]);
    const seen = up.requests.at(-1)?.json;
    expect(JSON.stringify(seen)).toContain('~ficta_');
  });

  it('streaming: deltas with placeholders split into 3-char pieces reassemble to the real values', async () => {
    const stream = client.messages.stream({ model: 'claude-x', max_tokens: 100, messages: [{ role: 'user', content: PROMPT }], tools });
    let streamedText = '';
    stream.on('text', (t) => {
      streamedText += t;
    });
    const msg = await stream.finalMessage();
    expect(streamedText).toBe(`ECHO: ${PROMPT}`);
    const tool = msg.content.find((b) => b.type === 'tool_use');
    expect(tool?.type === 'tool_use' && tool.input).toEqual({ text: PROMPT, note: 'echo' });
    expect(up.leaks).toEqual([]);
  });

  it('streaming with one-byte TCP chunks restores every value exactly once', async () => {
    up.setScript(echoScript({ chunking: 'bytes' }, 1));
    try {
      const stream = client.messages.stream({ model: 'claude-x', max_tokens: 100, messages: [{ role: 'user', content: PROMPT }], tools });
      const msg = await stream.finalMessage();
      const text = msg.content.find((b) => b.type === 'text');
      expect(text?.type === 'text' && text.text).toBe(`ECHO: ${PROMPT}`);
      const tool = msg.content.find((b) => b.type === 'tool_use');
      expect(tool?.type === 'tool_use' && tool.input).toEqual({ text: PROMPT, note: 'echo' });
    } finally {
      up.setScript(echoScript());
    }
  });

  it('a restored signed thinking block re-redacts to the identical bytes on the next turn', async () => {
    up.setScript((req) => {
      const text = JSON.stringify(req.json.messages);
      const ph = /~ficta_[a-z2-7]{20}/.exec(text)?.[0] ?? 'none';
      return { json: { id: 'msg_t', type: 'message', role: 'assistant', model: 'claude-x', stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 }, content: [{ type: 'thinking', thinking: `The user's key is ${ph}; I must not repeat it.`, signature: 'sig-abc' }, { type: 'text', text: 'ok' }] } };
    });
    try {
      const first = await client.messages.create({ model: 'claude-x', max_tokens: 100, messages: [{ role: 'user', content: `key ${PLAIN}` }] });
      const thinking = first.content[0];
      expect(thinking?.type === 'thinking' && thinking.thinking).toBe(`The user's key is ${PLAIN}; I must not repeat it.`);
      const modelProduced = /"thinking":"([^"]*)"/.exec(JSON.stringify(first))?.[1];
      expect(modelProduced).toBeDefined();
      await client.messages.create({
        model: 'claude-x',
        max_tokens: 100,
        messages: [
          { role: 'user', content: `key ${PLAIN}` },
          { role: 'assistant', content: first.content },
          { role: 'user', content: 'continue' },
        ],
      });
      const sentBack = up.requests.at(-1)?.json.messages[1].content[0];
      const originalPlaceholder = /~ficta_[a-z2-7]{20}/.exec(JSON.stringify(up.requests.at(-2)?.json))?.[0];
      expect(sentBack.thinking).toBe(`The user's key is ${originalPlaceholder}; I must not repeat it.`);
      expect(sentBack.signature).toBe('sig-abc');
    } finally {
      up.setScript(echoScript());
    }
  });

  it('upstream errors keep their status and body, restored', async () => {
    up.setScript((req) => ({ status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message: `bad: ${/~ficta_[a-z2-7]{20}/.exec(req.body.toString())?.[0]}` } } }));
    try {
      const err = await client.messages.create({ model: 'claude-x', max_tokens: 10, messages: [{ role: 'user', content: PLAIN }] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Anthropic.BadRequestError);
      expect((err as InstanceType<typeof Anthropic.BadRequestError>).status).toBe(400);
      expect(String((err as Error).message)).toContain(`bad: ${PLAIN}`);
    } finally {
      up.setScript(echoScript());
    }
  });

  it('redacts a value sent in a custom header (headers are redacted, auth headers excepted)', async () => {
    const before = up.requests.length;
    const err = await client.messages
      .create({ model: 'claude-x', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }, { headers: { 'x-debug-token': PLAIN } })
      .then(() => undefined)
      .catch((e: unknown) => e);
    expect(err).toBeUndefined();
    expect(up.requests.at(-1)?.headers['x-debug-token']).toMatch(/^~ficta_/);
    expect(up.requests.length).toBe(before + 1);
  });
});
