// ficta and the real LiteLLM proxy (PyPI litellm 1.110.2, .ci/deps.d/litellm.sh), both ways round, on
// loopback with the mock provider behind: ficta in front (an SDK's base URL is ficta's named upstream
// `litellm`, LiteLLM routes to the mock: no secret reaches LiteLLM, streamed tool calls restore), and
// LiteLLM in front (its models' api_base are ficta's /openai and /anthropic routes: what LiteLLM sends,
// in both formats, streamed and not, is redacted, and LiteLLM's clients get the real values back).
// LiteLLM runs with --detailed_debug, so its log shows every body it handled: that is what tells which
// placement keeps a secret out of the gateway.

import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFicta, type TestFicta } from '../helpers/ficta-server.ts';
import { freePort, LITELLM_MASTER_KEY, litellmInstalled, startLiteLlm, type LiteLlm } from '../helpers/litellm.ts';
import { createMockUpstream, lastUserText, type MockUpstream } from '../helpers/mock-upstream.ts';

const SECRET = 'litellm-secret-9f3a61d07be4';
const PROMPT = `Deploy with ${SECRET} now.`;
const tools = [{ type: 'function' as const, function: { name: 'write_file', parameters: { type: 'object', properties: { text: { type: 'string' } } } } }];

/** Polls `probe` for up to 5 s. */
async function until<T>(probe: () => T | undefined): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('litellm.test: timed out');
}

let up: MockUpstream;
let proxy: TestFicta;
let litellm: LiteLlm;

// Installed by .ci/deps.d/litellm.sh (which .ci/run runs first); a checkout without it says so here.
describe.runIf(litellmInstalled())('ficta and LiteLLM 1.110.2', () => {
  beforeAll(async () => {
    up = await createMockUpstream({ secrets: [SECRET] });
    const litellmPort = await freePort();
    proxy = await startFicta({
      upstream: up.url,
      secrets: { APP_TOKEN: SECRET },
      config: { upstreams: { anthropic: up.url, openai: up.url, litellm: { url: `http://127.0.0.1:${litellmPort}` } } },
    });
    litellm = await startLiteLlm(
      [
        // ficta in front: LiteLLM routes straight to the provider (the mock).
        { name: 'mock-gpt', model: 'openai/mock-gpt', apiBase: `${up.url}/v1`, apiKey: 'sk-provider-openai' },
        { name: 'mock-claude', model: 'anthropic/mock-claude', apiBase: up.url, apiKey: 'sk-ant-provider' },
        // LiteLLM in front: LiteLLM's provider is ficta's route for that format.
        { name: 'gpt-via-ficta', model: 'openai/gpt-x', apiBase: `${proxy.url}/openai/v1`, apiKey: 'sk-provider-openai' },
        { name: 'claude-via-ficta', model: 'anthropic/claude-x', apiBase: `${proxy.url}/anthropic`, apiKey: 'sk-ant-provider' },
      ],
      litellmPort,
    );
  }, 120_000);

  afterAll(async () => {
    // LiteLLM reached nothing but loopback (its price list is the bundled one; no usage reporting).
    if (litellm !== undefined) expect(litellm.log()).not.toMatch(/ConnectError|Name or service not known|getaddrinfo/);
    await litellm?.close();
    await proxy?.close();
    await up?.close();
  });

  describe('ficta in front: agent → ficta → LiteLLM → provider', () => {
    it('OpenAI SDK, streamed with a tool: LiteLLM never sees the secret, the tool call arguments restore', async () => {
      const before = litellm.log().length;
      const client = new OpenAI({ baseURL: `${proxy.url}/litellm/v1`, apiKey: LITELLM_MASTER_KEY, maxRetries: 0 });
      const stream = client.chat.completions.stream({ model: 'mock-gpt', messages: [{ role: 'user', content: PROMPT }], tools });
      let streamed = '';
      stream.on('content', (d) => (streamed += d));
      const final = await stream.finalChatCompletion();
      expect(streamed).toBe(`ECHO: ${PROMPT}`);
      const call = final.choices[0]?.message.tool_calls?.[0];
      expect(call?.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ text: PROMPT, note: 'echo' });

      const sent = up.requests.at(-1)!;
      expect(sent.url).toBe('/v1/chat/completions');
      expect(sent.headers.authorization).toBe('Bearer sk-provider-openai');
      const placeholderText = lastUserText(sent.json);
      expect(placeholderText).not.toContain(SECRET);
      const seen = litellm.log().slice(before);
      // LiteLLM logged the body it received (with the placeholder), and nowhere the secret.
      expect(seen).toContain(placeholderText);
      expect(seen).not.toContain(SECRET);
      expect(up.leaks).toEqual([]);
      // The request line is written when the response has ended, which the SDK may report a moment before.
      const line = await until(() => proxy.requestLogs().find((l) => l.provider === 'litellm'));
      expect(line).toMatchObject({ adapter: 'openai-chat', status: 200 });
    });

    it('Anthropic SDK on LiteLLM /v1/messages, streamed with a tool: tool_use input restores', async () => {
      const before = litellm.log().length;
      const client = new Anthropic({ baseURL: `${proxy.url}/litellm`, apiKey: LITELLM_MASTER_KEY, maxRetries: 0 });
      const stream = client.messages.stream({
        model: 'mock-claude',
        max_tokens: 256,
        messages: [{ role: 'user', content: PROMPT }],
        tools: [{ name: 'write_file', input_schema: { type: 'object', properties: { text: { type: 'string' } } } }],
      });
      const final = await stream.finalMessage();
      const text = final.content.find((b) => b.type === 'text');
      const tool = final.content.find((b) => b.type === 'tool_use');
      expect(text?.type === 'text' && text.text).toBe(`ECHO: ${PROMPT}`);
      expect(tool?.type === 'tool_use' && tool.input).toEqual({ text: PROMPT, note: 'echo' });
      expect(up.requests.at(-1)!.url).toMatch(/^\/v1\/messages/);
      const seen = litellm.log().slice(before);
      expect(seen).toContain(lastUserText(up.requests.at(-1)!.json));
      expect(seen).not.toContain(SECRET);
      expect(up.leaks).toEqual([]);
    });
  });

  describe('LiteLLM in front: client → LiteLLM → ficta → provider', () => {
    const client = (): OpenAI => new OpenAI({ baseURL: `${litellm.url}/v1`, apiKey: LITELLM_MASTER_KEY, maxRetries: 0 });
    const cases = [
      { model: 'gpt-via-ficta', path: '/v1/chat/completions', adapter: 'openai-chat', provider: 'openai' },
      { model: 'claude-via-ficta', path: '/v1/messages', adapter: 'anthropic-messages', provider: 'anthropic' },
    ] as const;
    for (const c of cases) {
      it(`${c.model} (${c.path}), not streamed: redacted at ficta, restored to LiteLLM's client`, async () => {
        const res = await client().chat.completions.create({ model: c.model, max_tokens: 256, messages: [{ role: 'user', content: PROMPT }] });
        expect(res.choices[0]?.message.content).toBe(`ECHO: ${PROMPT}`);
        expect(up.requests.at(-1)!.url).toBe(c.path);
        expect(lastUserText(up.requests.at(-1)!.json)).not.toContain(SECRET);
        expect(up.leaks).toEqual([]);
        const line = await until(() => proxy.requestLogs().findLast((l) => l.provider === c.provider && l.adapter === c.adapter));
        expect(line).toMatchObject({ status: 200 });
      });

      it(`${c.model} (${c.path}), streamed: redacted at ficta, restored to LiteLLM's client`, async () => {
        const before = litellm.log().length;
        const stream = await client().chat.completions.create({ model: c.model, max_tokens: 256, stream: true, messages: [{ role: 'user', content: PROMPT }] });
        let text = '';
        for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
        expect(text).toBe(`ECHO: ${PROMPT}`);
        expect(up.requests.at(-1)!.url).toBe(c.path);
        expect(up.requests.at(-1)!.json.stream).toBe(true);
        expect(up.leaks).toEqual([]);
        // The price of this placement: the gateway in front handled the secret itself.
        expect(litellm.log().slice(before)).toContain(SECRET);
      });
    }
  });
});
