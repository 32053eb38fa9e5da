// Named upstreams, Ollama and the ChatGPT backend over real loopback HTTP: the official `openai` SDK
// through a named OpenAI-compatible upstream (reasoning_content deltas), Azure OpenAI (`api-key`,
// `?api-version=`), Ollama's native NDJSON API (the official `ollama` client, streamed and not) and its
// OpenAI-compatible /v1, each with its own error shape, and Claude Code signed in with a subscription
// (OAuth bearer) — the mock provider never sees a value.

import { Ollama } from 'ollama';
import OpenAI, { AzureOpenAI } from 'openai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFicta, type TestFicta } from '../helpers/ficta-server.ts';
import { collect } from '../helpers/sse-client.ts';
import { createMockUpstream, echoScript, lastUserText, render, type MockUpstream } from '../helpers/mock-upstream.ts';

const DB = 'pa"ss\\wörd-77';
const TOKEN = 'ghp_Z9y8X7w6V5u4T3s2R1q0PoNmLkJiHgFeDc';
const AZURE_KEY = 'azure-key-0123456789abcdef0123';
const CARD = '4111111111111111';
const OAUTH = 'sk-ant-oat01-FAKE-subscription-token-000000000000';
const SECRETS = { DB_PASSWORD: DB, GITHUB_TOKEN: TOKEN, AZURE_OPENAI_API_KEY: AZURE_KEY, CARD_NUMBER: CARD, CLAUDE_CODE_OAUTH_TOKEN: OAUTH };
const PROMPT = `use ${DB} with ${TOKEN}`;

let up: MockUpstream;
let proxy: TestFicta;

beforeAll(async () => {
  up = await createMockUpstream({ secrets: Object.values(SECRETS) });
  proxy = await startFicta({
    upstream: up.url,
    secrets: SECRETS,
    config: {
      upstreams: { anthropic: up.url, openai: up.url, ollama: up.url, chatgpt: up.url, openrouter: { url: up.url }, azure: { url: up.url }, vllm: { url: `${up.url}/vllm-base/` } },
    },
  });
});
afterAll(async () => {
  await proxy.close();
  await up.close();
});
afterEach(() => {
  expect(up.leaks).toEqual([]);
  up.setScript(echoScript());
});

async function post(path: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string; json: any; type: string | null }> {
  const res = await fetch(`${proxy.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json, type: res.headers.get('content-type') };
}

describe('named upstreams', () => {
  it('the openai SDK through /openrouter: reasoning_content and content deltas are restored exactly once', async () => {
    up.setScript((req) => render(req, { text: `ECHO: ${lastUserText(req.json)}`, thinking: `think ${lastUserText(req.json)}`, chatDialect: 'reasoning_content', pieceSize: 3 }));
    const client = new OpenAI({ baseURL: `${proxy.url}/openrouter/api/v1`, apiKey: 'or-key', maxRetries: 0 });
    const stream = await client.chat.completions.create({ model: 'deepseek/deepseek-r1', messages: [{ role: 'user', content: PROMPT }], stream: true });
    let reasoning = '';
    let content = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { content?: string | null; reasoning_content?: string } | undefined;
      reasoning += delta?.reasoning_content ?? '';
      content += delta?.content ?? '';
    }
    expect(up.requests.at(-1)!.url).toBe('/api/v1/chat/completions');
    expect(up.requests.at(-1)!.headers.authorization).toBe('Bearer or-key');
    expect(reasoning).toBe(`think ${PROMPT}`);
    expect(content).toBe(`ECHO: ${PROMPT}`);
    const log = proxy.requestLogs().at(-1)!;
    expect(log).toMatchObject({ provider: 'openrouter', adapter: 'openai-chat', restoreMisses: 0 });
  });

  it('keeps a named upstream base path, and answers errors in the OpenAI shape', async () => {
    const client = new OpenAI({ baseURL: `${proxy.url}/vllm/v1`, apiKey: 'k', maxRetries: 0 });
    const res = await client.chat.completions.create({ model: 'qwen', messages: [{ role: 'user', content: PROMPT }] });
    expect(up.requests.at(-1)!.url).toBe('/vllm-base/v1/chat/completions');
    expect(res.choices[0]?.message.content).toBe(`ECHO: ${PROMPT}`);
    const before = up.requests.length;
    const blocked = await post('/vllm/v1/chat/completions', `{"model":"q","seed":${CARD},"messages":[]}`);
    expect(blocked.status).toBe(403);
    expect(blocked.json.error).toMatchObject({ type: 'ficta_leak_blocked', code: 'ficta_leak_blocked' });
    expect(up.requests.length).toBe(before);
  });

  it('Azure OpenAI through the official AzureOpenAI client: api-key passes while registered, api-version is forwarded, the stream is restored', async () => {
    const client = new AzureOpenAI({ endpoint: `${proxy.url}/azure`, apiKey: AZURE_KEY, apiVersion: '2024-10-21', deployment: 'gpt-4o-prod', maxRetries: 0 });
    const stream = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: PROMPT }], stream: true });
    let content = '';
    for await (const chunk of stream) content += chunk.choices[0]?.delta?.content ?? '';
    const seen = up.requests.at(-1)!;
    expect(seen.url).toBe('/openai/deployments/gpt-4o-prod/chat/completions?api-version=2024-10-21');
    expect(seen.headers['api-key']).toBe(AZURE_KEY);
    expect(content).toBe(`ECHO: ${PROMPT}`);
  });

  it('an unknown path under a named upstream gets generic redaction and restore, and the gate still holds', async () => {
    up.setScript((req) => ({ json: { echoed: req.json, path: req.url } }));
    const r = await post('/openrouter/api/v1/some/new/thing?q=1', JSON.stringify({ note: PROMPT }));
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ echoed: { note: PROMPT }, path: '/api/v1/some/new/thing?q=1' });
    const before = up.requests.length;
    expect((await post('/openrouter/api/v1/some/new/thing', `{"n":${CARD}}`)).status).toBe(403);
    expect(up.requests.length).toBe(before);
  });
});

describe('Ollama (/ollama)', () => {
  const tools = [{ type: 'function', function: { name: 'write_file', parameters: { type: 'object', properties: { text: { type: 'string' } } } } }];

  it('/api/chat with stream:false: content and tool_calls argument objects are restored', async () => {
    const r = await post('/ollama/api/chat', JSON.stringify({ model: 'llama-x', stream: false, messages: [{ role: 'user', content: PROMPT }], tools }));
    expect(r.status).toBe(200);
    expect(up.requests.at(-1)!.url).toBe('/api/chat');
    expect(up.requests.at(-1)!.json.messages[0].content).toMatch(/^use ~ficta_/);
    expect(r.json.message.content).toBe(`ECHO: ${PROMPT}`);
    expect(r.json.message.tool_calls[0].function.arguments).toEqual({ text: PROMPT, note: 'echo' });
  });

  it('/api/chat and /api/generate NDJSON streams: lines that hold whole placeholders are restored, every other byte passes', async () => {
    up.setScript(echoScript({ chunking: { seed: 5, max: 9 } }, 10_000));
    const chat = await post('/ollama/api/chat', JSON.stringify({ model: 'llama-x', messages: [{ role: 'user', content: PROMPT }], tools }));
    expect(chat.type).toBe('application/x-ndjson');
    const lines = chat.text.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.message.content).join('')).toBe(`ECHO: ${PROMPT}`);
    expect(lines.find((l) => l.message.tool_calls)?.message.tool_calls[0].function.arguments).toEqual({ text: PROMPT, note: 'echo' });
    expect(lines.at(-1).done).toBe(true);
    const gen = await post('/ollama/api/generate', JSON.stringify({ model: 'llama-x', prompt: PROMPT }));
    expect(up.requests.at(-1)!.json.prompt).toMatch(/^use ~ficta_/);
    expect(gen.text.trimEnd().split('\n').map((l) => JSON.parse(l).response).join('')).toBe(`ECHO: ${PROMPT}`);
  });

  it('the official ollama client: chat and generate, streamed and not, with placeholders split across NDJSON lines and in tool_calls arguments', async () => {
    up.setScript((req) => {
      const text = lastUserText(req.json);
      const tools = req.json?.tools !== undefined;
      return render(req, { text: `ECHO: ${text}`, thinking: `think ${text}`, ...(tools ? { tool: { name: 'write_file', input: { file_path: '/x', content: text } } } : {}), pieceSize: 2 }, { chunking: { seed: 11, max: 7 } });
    });
    const client = new Ollama({ host: `${proxy.url}/ollama` });
    const messages = [{ role: 'user', content: PROMPT }];
    let content = '';
    let thinking = '';
    const calls: unknown[] = [];
    for await (const part of await client.chat({ model: 'llama-x', messages, tools, stream: true })) {
      content += part.message.content;
      thinking += part.message.thinking ?? '';
      for (const c of part.message.tool_calls ?? []) calls.push(c.function.arguments);
    }
    expect(up.requests.at(-1)!.url).toBe('/api/chat');
    expect(JSON.stringify(up.requests.at(-1)!.json)).not.toContain(DB);
    expect([content, thinking]).toEqual([`ECHO: ${PROMPT}`, `think ${PROMPT}`]);
    expect(calls).toEqual([{ file_path: '/x', content: PROMPT }]);

    const whole = await client.chat({ model: 'llama-x', messages, tools, stream: false });
    expect(whole.message.content).toBe(`ECHO: ${PROMPT}`);
    expect(whole.message.tool_calls?.[0]?.function.arguments).toEqual({ file_path: '/x', content: PROMPT });

    let response = '';
    for await (const part of await client.generate({ model: 'llama-x', prompt: PROMPT, stream: true })) response += part.response;
    expect(response).toBe(`ECHO: ${PROMPT}`);
    expect((await client.generate({ model: 'llama-x', prompt: PROMPT })).response).toBe(`ECHO: ${PROMPT}`);
    expect(proxy.requestLogs().at(-1)).toMatchObject({ restoreMisses: 0 });
  });

  it('answers refusals in Ollama’s native shape on /api/*, and the OpenAI shape on its /v1 routes', async () => {
    const before = up.requests.length;
    const native = await post('/ollama/api/chat', `{"model":"x","options":{"seed":${CARD}},"messages":[]}`);
    expect(native.status).toBe(403);
    expect(native.json).toEqual({ error: expect.stringMatching(/^ficta: request blocked: registered secret CARD_NUMBER in body/) });
    const compat = await post('/ollama/v1/chat/completions', `{"model":"x","seed":${CARD},"messages":[]}`);
    expect(compat.status).toBe(403);
    expect(compat.json.error.type).toBe('ficta_leak_blocked');
    expect(native.text + compat.text).not.toContain(CARD);
    expect(up.requests.length).toBe(before);
  });

  it('its OpenAI-compatible /v1 works under the same prefix with the openai SDK', async () => {
    const client = new OpenAI({ baseURL: `${proxy.url}/ollama/v1`, apiKey: 'ollama', maxRetries: 0 });
    const stream = client.chat.completions.stream({ model: 'llama-x', messages: [{ role: 'user', content: PROMPT }] });
    let content = '';
    stream.on('content', (d) => (content += d));
    await stream.finalChatCompletion();
    expect(up.requests.at(-1)!.url).toBe('/v1/chat/completions');
    expect(content).toBe(`ECHO: ${PROMPT}`);
  });
});

describe('Claude Code signed in with a Claude subscription', () => {
  it('the recorded Claude Code request with an OAuth bearer and anthropic-beta oauth passes its auth unredacted while the body is redacted', async () => {
    const recorded = JSON.parse(readFileSync(join(import.meta.dirname, '../../fixtures/wire/claude-code-2.1.197-bare-edit-request1.json'), 'utf8').toString());
    // A subscription login replaces x-api-key with the account's OAuth bearer and adds the oauth beta.
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(recorded.headers as Record<string, string>)) {
      if (!['x-api-key', 'host', 'connection', 'content-length', 'accept-encoding'].includes(k)) headers[k] = v;
    }
    headers.authorization = `Bearer ${OAUTH}`;
    headers['anthropic-beta'] = `oauth-2025-04-20,${headers['anthropic-beta']}`;
    const body = recorded.body;
    body.messages.push({ role: 'user', content: [{ type: 'text', text: PROMPT }] });
    body.stream = true;
    const r = await post(`/anthropic${recorded.url}`, JSON.stringify(body), headers);
    expect(r.status).toBe(200);
    const seen = up.requests.at(-1)!;
    expect(seen.url).toBe('/v1/messages?beta=true');
    expect(seen.headers.authorization).toBe(`Bearer ${OAUTH}`);
    expect(seen.headers['anthropic-beta']).toMatch(/^oauth-2025-04-20,claude-code-20250219,/);
    expect(JSON.stringify(seen.json)).not.toContain(TOKEN);
    expect(collect(r.text).streams.get('a0:text')).toBe(`ECHO: ${PROMPT}`);
  });
});
