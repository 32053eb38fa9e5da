// The `openai` SDK drives ficta against the mock upstream for Chat Completions and Responses: text,
// function calls and Codex-style custom tool input, streamed and not; the provider never sees a value.

import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFicta, type TestFicta } from '../helpers/ficta-server.ts';
import { createMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';

const PLAIN = 'ghp_A1b2C3d4E5f6G7h8I9j0KlMnOpQrStUv';
const WEIRD = 'pa"ss\\wörd\n-x1';
const SECRETS = { GITHUB_TOKEN: PLAIN, DB_PASSWORD: WEIRD };
const PROMPT = `Token ${PLAIN}, password ${WEIRD}.`;

let up: MockUpstream;
let proxy: TestFicta;
let client: OpenAI;

beforeAll(async () => {
  up = await createMockUpstream({ secrets: Object.values(SECRETS) });
  proxy = await startFicta({ upstream: up.url, secrets: SECRETS });
  client = new OpenAI({ baseURL: `${proxy.url}/openai/v1`, apiKey: 'test-key', maxRetries: 0 });
});
afterAll(async () => {
  await proxy.close();
  await up.close();
});

const chatTools = [{ type: 'function' as const, function: { name: 'write_file', parameters: { type: 'object', properties: { text: { type: 'string' } } } } }];

describe('OpenAI Chat Completions through ficta', () => {
  it('non-streaming: content and function arguments carry the real values', async () => {
    const res = await client.chat.completions.create({ model: 'gpt-x', messages: [{ role: 'user', content: PROMPT }], tools: chatTools });
    const msg = res.choices[0]?.message;
    expect(msg?.content).toBe(`ECHO: ${PROMPT}`);
    const call = msg?.tool_calls?.[0];
    expect(call?.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ text: PROMPT, note: 'echo' });
    expect(up.leaks).toEqual([]);
  });

  it('streaming: deltas and tool-call argument fragments reassemble to the real values', async () => {
    const stream = client.chat.completions.stream({ model: 'gpt-x', messages: [{ role: 'user', content: PROMPT }], tools: chatTools });
    let streamed = '';
    stream.on('content', (d) => {
      streamed += d;
    });
    const final = await stream.finalChatCompletion();
    expect(streamed).toBe(`ECHO: ${PROMPT}`);
    const call = final.choices[0]?.message.tool_calls?.[0];
    expect(call?.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ text: PROMPT, note: 'echo' });
    expect(up.leaks).toEqual([]);
  });

  it('a Python-style \\u-escaped request body is redacted too', async () => {
    const escaped = WEIRD.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    const body = `{"model":"gpt-x","messages":[{"role":"user","content":"pw ${JSON.stringify(escaped).slice(1, -1).replace(/\\\\u/g, '\\u')}"}]}`;
    expect(JSON.parse(body).messages[0].content).toBe(`pw ${WEIRD}`);
    const res = await fetch(`${proxy.url}/openai/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer k' }, body });
    expect(res.status).toBe(200);
    const json = (await res.json()) as any;
    expect(json.choices[0].message.content).toBe(`ECHO: pw ${WEIRD}`);
    expect(up.leaks).toEqual([]);
  });
});

describe('OpenAI Responses through ficta', () => {
  const fnTools = [{ type: 'function' as const, name: 'write_file', parameters: { type: 'object', properties: { text: { type: 'string' } } }, strict: false }];

  it('non-streaming: output text and function-call arguments carry the real values', async () => {
    const res = await client.responses.create({ model: 'gpt-x', input: PROMPT, tools: fnTools });
    expect(res.output_text).toBe(`ECHO: ${PROMPT}`);
    const call = res.output.find((o) => o.type === 'function_call');
    expect(call?.type === 'function_call' && JSON.parse(call.arguments)).toEqual({ text: PROMPT, note: 'echo' });
    expect(up.leaks).toEqual([]);
  });

  it('streaming: every delta and every repeated copy (*.done, output_item.done, completed) is restored', async () => {
    const stream = client.responses.stream({ model: 'gpt-x', input: PROMPT, tools: fnTools });
    let deltas = '';
    let args = '';
    const doneCopies: string[] = [];
    for await (const ev of stream) {
      if (ev.type === 'response.output_text.delta') deltas += ev.delta;
      if (ev.type === 'response.function_call_arguments.delta') args += ev.delta;
      if (ev.type === 'response.output_text.done') doneCopies.push(ev.text);
      if (ev.type === 'response.function_call_arguments.done') doneCopies.push(ev.arguments);
    }
    const final = await stream.finalResponse();
    expect(deltas).toBe(`ECHO: ${PROMPT}`);
    expect(JSON.parse(args)).toEqual({ text: PROMPT, note: 'echo' });
    expect(doneCopies[0]).toBe(`ECHO: ${PROMPT}`);
    expect(JSON.parse(doneCopies[1] as string)).toEqual({ text: PROMPT, note: 'echo' });
    expect(final.output_text).toBe(`ECHO: ${PROMPT}`);
    expect(JSON.stringify(final)).not.toContain('~ficta_');
    expect(up.leaks).toEqual([]);
  });

  it('streaming: a Codex-style custom tool (apply_patch) gets the real value in its free-text input', async () => {
    const patch = `*** Begin Patch\n*** Add File: .env\n+DB_PASSWORD=${WEIRD}\n+GITHUB_TOKEN=${PLAIN}\n*** End Patch`;
    const stream = client.responses.stream({ model: 'gpt-x', input: patch, tools: [{ type: 'custom', name: 'apply_patch' }] });
    let input = '';
    for await (const ev of stream) if (ev.type === 'response.custom_tool_call_input.delta') input += ev.delta;
    const final = await stream.finalResponse();
    expect(input).toBe(patch);
    const item = final.output.find((o) => o.type === 'custom_tool_call');
    expect(item?.type === 'custom_tool_call' && item.input).toBe(patch);
    expect(up.leaks).toEqual([]);
  });
});
