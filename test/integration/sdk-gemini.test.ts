// The official `@google/genai` SDK drives ficta's Gemini routes against the mock Gemini upstream: request
// strings (contents, systemInstruction, functionDeclarations, functionResponse) are redacted, the user's
// own key passes in x-goog-api-key and `?key=` even though it is registered, errors come back
// Gemini-shaped; text, thought and functionCall.args are restored in the whole body, in alt=sse events and
// in the streamed JSON array, placeholders split across streamed parts included.

import { GoogleGenAI, type FunctionDeclaration } from '@google/genai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFicta, type TestFicta } from '../helpers/ficta-server.ts';
import { createMockUpstream, echoScript, lastUserText, render, type MockUpstream } from '../helpers/mock-upstream.ts';

const GEMINI_KEY = 'AIzaSyD-FAKE-gemini-key-0123456789abc';
const WEIRD = 'pa"ss\\wörd-42';
const TOKEN = 'ghp_A1b2C3d4E5f6G7h8I9j0KlMnOpQrStUv';
const CARD = '4111111111111111';
const SECRETS = { GEMINI_API_KEY: GEMINI_KEY, DB_PASSWORD: WEIRD, GITHUB_TOKEN: TOKEN, CARD_NUMBER: CARD };
const PROMPT = `write ${WEIRD} and ${TOKEN}`;

let up: MockUpstream;
let proxy: TestFicta;
let ai: GoogleGenAI;

beforeAll(async () => {
  up = await createMockUpstream({ secrets: Object.values(SECRETS) });
  proxy = await startFicta({ upstream: up.url, secrets: SECRETS, config: { upstreams: { anthropic: up.url, openai: up.url, gemini: up.url } } });
  ai = new GoogleGenAI({ apiKey: GEMINI_KEY, httpOptions: { baseUrl: `${proxy.url}/gemini` } });
});
afterAll(async () => {
  await proxy.close();
  await up.close();
});
afterEach(() => {
  expect(up.leaks).toEqual([]);
  up.setScript(echoScript());
});

const writeFile: FunctionDeclaration = {
  name: 'write_file',
  description: `Writes a file. Never print ${TOKEN}.`,
  parametersJsonSchema: { type: 'object', properties: { text: { type: 'string' } } },
};

describe('@google/genai through /gemini', () => {
  it('generateContent with a function call: every request string redacted, text and functionCall.args restored, the registered key still authenticates', async () => {
    const res = await ai.models.generateContent({
      model: 'gemini-x',
      contents: [
        { role: 'user', parts: [{ text: 'earlier turn' }] },
        { role: 'model', parts: [{ functionCall: { name: 'write_file', args: { text: 'x' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'write_file', response: { output: `wrote ${WEIRD}` } } }] },
        { role: 'model', parts: [{ text: 'done' }] },
        { role: 'user', parts: [{ text: PROMPT }] },
      ],
      config: { systemInstruction: `The password is ${WEIRD}.`, tools: [{ functionDeclarations: [writeFile] }] },
    });
    const seen = up.requests.at(-1)!;
    expect(seen.url).toBe('/v1/models/gemini-x:generateContent');
    expect(seen.headers['x-goog-api-key']).toBe(GEMINI_KEY);
    expect(seen.json.systemInstruction.parts[0].text).toMatch(/^The password is ~ficta_[a-z2-7]{20}\.$/);
    expect(seen.json.tools[0].functionDeclarations[0].description).toMatch(/^Writes a file\. Never print ~ficta_/);
    expect(seen.json.contents[2].parts[0].functionResponse.response.output).toMatch(/^wrote ~ficta_/);
    expect(res.text).toBe(`ECHO: ${PROMPT}`);
    expect(res.functionCalls?.[0]?.args).toEqual({ text: PROMPT, note: 'echo' });
    expect(res.candidates?.[0]?.content?.parts?.find((p) => p.functionCall)?.thoughtSignature).toBe('c2lnbmF0dXJlLW9wYXF1ZQ==');
  });

  it('generateContentStream (alt=sse): events that hold whole placeholders are restored, thoughtSignature untouched', async () => {
    up.setScript(echoScript({}, 10_000));
    const stream = await ai.models.generateContentStream({ model: 'gemini-x', contents: PROMPT, config: { tools: [{ functionDeclarations: [writeFile] }] } });
    let text = '';
    const calls: unknown[] = [];
    const signatures: string[] = [];
    for await (const chunk of stream) {
      text += chunk.text ?? '';
      for (const c of chunk.functionCalls ?? []) calls.push(c.args);
      for (const p of chunk.candidates?.[0]?.content?.parts ?? []) if (p.thoughtSignature !== undefined) signatures.push(p.thoughtSignature);
    }
    expect(up.requests.at(-1)!.url).toBe('/v1/models/gemini-x:streamGenerateContent?alt=sse');
    expect(text).toBe(`ECHO: ${PROMPT}`);
    expect(calls).toEqual([{ text: PROMPT, note: 'echo' }]);
    expect(signatures).toEqual(['c2lnbmF0dXJlLW9wYXF1ZQ==']);
  });

  it('generateContentStream with placeholders split across streamed parts: text and thought restored exactly once per candidate, functionCall.args exact', async () => {
    up.setScript((req) => {
      const text = lastUserText(req.json);
      return render(req, { text: `ECHO: ${text}`, thinking: `think ${text}`, tool: { name: 'write_file', input: { file_path: '/x', content: text } }, pieceSize: 2 }, { chunking: { seed: 3, max: 11 } });
    });
    const stream = await ai.models.generateContentStream({ model: 'gemini-x', contents: PROMPT, config: { tools: [{ functionDeclarations: [writeFile] }] } });
    let text = '';
    let thought = '';
    const calls: unknown[] = [];
    for await (const chunk of stream) {
      for (const p of chunk.candidates?.[0]?.content?.parts ?? []) {
        if (p.thought === true) thought += p.text ?? '';
        else text += p.text ?? '';
      }
      for (const c of chunk.functionCalls ?? []) calls.push(c.args);
    }
    expect([text, thought]).toEqual([`ECHO: ${PROMPT}`, `think ${PROMPT}`]);
    expect(calls).toEqual([{ file_path: '/x', content: PROMPT }]);
    expect(proxy.requestLogs().at(-1)).toMatchObject({ restoreMisses: 0 });

    // The SDK always streams with alt=sse; without it the response is a streamed JSON array (raw fetch, the exact wire shape).
    const res = await fetch(`${proxy.url}/gemini/v1beta/models/gemini-x:streamGenerateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': GEMINI_KEY },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: PROMPT }] }], tools: [{ functionDeclarations: [{ name: 'write_file' }] }] }),
    });
    const chunks = (await res.json()) as any[];
    const parts = chunks.flatMap((c) => c.candidates[0].content.parts);
    expect(parts.filter((p) => p.thought !== true).map((p) => p.text ?? '').join('')).toBe(`ECHO: ${PROMPT}`);
    expect(parts.filter((p) => p.thought === true).map((p) => p.text).join('')).toBe(`think ${PROMPT}`);
    expect(parts.find((p) => p.functionCall !== undefined).functionCall.args).toEqual({ file_path: '/x', content: PROMPT });
    expect(up.requests.at(-1)!.url).toBe('/v1beta/models/gemini-x:streamGenerateContent');
  });

  it('countTokens, embedContent (batchEmbedContents), cachedContents and the models list go to the Gemini upstream, redacted', async () => {
    up.setScript((req) => ({ json: { path: req.url, method: req.method, totalTokens: 7, embeddings: [{ values: [0.1] }], name: 'cachedContents/c1', models: [{ name: 'models/gemini-x' }] } }));
    await ai.models.countTokens({ model: 'gemini-x', contents: PROMPT });
    expect(up.requests.at(-1)!.url).toBe('/v1/models/gemini-x:countTokens');
    await ai.models.embedContent({ model: 'text-embedding-x', contents: [PROMPT] });
    expect(up.requests.at(-1)!.url).toBe('/v1/models/text-embedding-x:batchEmbedContents');
    expect(JSON.stringify(up.requests.at(-1)!.json)).toMatch(/write ~ficta_/);
    await ai.caches.create({ model: 'gemini-x', config: { contents: PROMPT } });
    expect(up.requests.at(-1)!.url).toBe('/v1/cachedContents');
    const list = await fetch(`${proxy.url}/v1beta/models`, { headers: { 'x-goog-api-key': GEMINI_KEY } });
    expect(list.status).toBe(200);
    expect(up.requests.at(-1)!.url).toBe('/v1beta/models');
    expect(up.requests.at(-1)!.headers['x-goog-api-key']).toBe(GEMINI_KEY);
    // Unprefixed /v1 calls in Gemini's `models/{m}:method` form go to Gemini, not OpenAI.
    const unprefixed = await fetch(`${proxy.url}/v1/models/gemini-x:countTokens`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(((await unprefixed.json()) as any).path).toBe('/v1/models/gemini-x:countTokens');
  });

  it('file uploads: the resumable upload URL leads back through ficta, and the bytes go byte-exact (gated, not rewritten)', async () => {
    up.setScript((req) => {
      if (req.headers['x-goog-upload-command'] === 'start') {
        return { json: {}, headers: { 'x-goog-upload-url': `${up.url}/upload/v1beta/files?upload_id=u1&upload_protocol=resumable`, 'x-goog-upload-status': 'active' } };
      }
      return { json: { file: { name: 'files/f1', sizeBytes: String(req.body.length), mimeType: 'text/plain' } }, headers: { 'x-goog-upload-status': 'final' } };
    });
    const bytes = 'line one\nno secret here, just "quotes" and ~tildes\n';
    const file = await ai.files.upload({ file: new Blob([bytes], { type: 'text/plain' }), config: { mimeType: 'text/plain', displayName: 'notes' } });
    expect(file.name).toBe('files/f1');
    const [start, upload] = up.requests.slice(-2);
    expect(start!.url).toBe('/upload/v1/files');
    expect(upload!.url).toBe('/upload/v1beta/files?upload_id=u1&upload_protocol=resumable');
    expect(upload!.body.toString()).toBe(bytes);

    const before = up.requests.length;
    await expect(ai.files.upload({ file: new Blob([`key=${TOKEN}\n`], { type: 'text/plain' }), config: { mimeType: 'text/plain' } })).rejects.toThrow(/GITHUB_TOKEN in body \(binary\)/);
    expect(up.requests.length).toBe(before + 1);
  });

  it('a blocked request gets a Gemini-shaped 403 that the SDK shows, naming the secret and never its value; nothing is forwarded', async () => {
    const before = up.requests.length;
    const raw = await fetch(`${proxy.url}/gemini/v1beta/models/gemini-x:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': GEMINI_KEY },
      body: `{"contents":[{"parts":[{"text":"hi"}]}],"generationConfig":{"seed":${CARD}}}`,
    });
    expect(raw.status).toBe(403);
    const text = await raw.text();
    expect(JSON.parse(text)).toEqual({
      error: {
        code: 403,
        message: expect.stringMatching(/^ficta: request blocked: registered secret CARD_NUMBER in body/),
        status: 'PERMISSION_DENIED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'ficta_leak_blocked', domain: 'ficta' }],
      },
    });
    expect(text).not.toContain(CARD);
    await expect(ai.models.generateContent({ model: 'gemini-x', contents: 'hi', config: { seed: Number(CARD) } })).rejects.toThrow(/CARD_NUMBER in body/);
    expect(up.requests.length).toBe(before);
  });

  it('passes the key= query parameter unredacted on Gemini paths while every other parameter is redacted and gated', async () => {
    const body = '{"contents":[{"parts":[{"text":"hi"}]}]}';
    const post = (path: string): Promise<Response> => fetch(`${proxy.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const key = encodeURIComponent(GEMINI_KEY);
    expect((await post(`/gemini/v1beta/models/gemini-x:generateContent?key=${key}&note=${encodeURIComponent(TOKEN)}`)).status).toBe(200);
    expect(up.requests.at(-1)!.url).toMatch(new RegExp(`^/v1beta/models/gemini-x:generateContent\\?key=${key}&note=~ficta_[a-z2-7]{20}$`));
    expect((await post(`/v1beta/models/gemini-x:streamGenerateContent?alt=sse&key=${key}`)).status).toBe(200);
    expect(up.requests.at(-1)!.url).toBe(`/v1beta/models/gemini-x:streamGenerateContent?alt=sse&key=${key}`);
    // Spelt another way, or on a route whose provider takes no key parameter, it is an ordinary parameter.
    expect((await post(`/gemini/v1beta/models/gemini-x:generateContent?k%65y=${key}`)).status).toBe(200);
    expect(up.requests.at(-1)!.url).toMatch(/\?k%65y=~ficta_[a-z2-7]{20}$/);
    expect((await post(`/openai/v1/chat/completions?key=${key}`)).status).toBe(200);
    expect(up.requests.at(-1)!.url).toMatch(/\?key=~ficta_[a-z2-7]{20}$/);
  });

  it('an unknown path under /gemini is proxied with generic redaction and restore, and the gate still holds', async () => {
    up.setScript((req) => ({ json: { echoed: req.json, path: req.url } }));
    const res = await fetch(`${proxy.url}/gemini/v1beta/tunedModels/t1:somethingNew`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ note: `use ${WEIRD}` }) });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).echoed.note).toBe(`use ${WEIRD}`);
    expect(up.requests.at(-1)!.json.note).toMatch(/^use ~ficta_/);
    const before = up.requests.length;
    const blocked = await fetch(`${proxy.url}/gemini/v1beta/tunedModels/t1:somethingNew`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"n":${CARD}}` });
    expect(blocked.status).toBe(403);
    expect(((await blocked.json()) as any).error.status).toBe('PERMISSION_DENIED');
    expect(up.requests.length).toBe(before);
  });
});
