// The watermark end to end through the real proxy, with the official Anthropic SDK: a 40 KB document goes
// out through ficta (redact → gate → watermark → gate), the mock upstream records what it received and
// streams the document back in 7-character deltas over 1,021-byte TCP writes (frames split across events
// and chunks), the client gets the document back with no frame and its secret restored, and attribution
// of the upstream's copy names the session and the request.
import Anthropic from '@anthropic-ai/sdk';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proseDocument } from '../../fixtures/watermark/corpus.ts';
import { attributeText } from '../../src/watermark/attribute.ts';
import { deriveKeys, readKeyFile } from '../../src/watermark/key.ts';
import { openRegistry } from '../../src/watermark/registry.ts';
import { startFicta, type TestFicta } from '../helpers/ficta-server.ts';
import { createMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';
import { anthropicSse } from '../helpers/wire.ts';

const SECRET = 'wm-doc-secret-Q1w2E3r4T5y6';
// The document carries a registered value too: it must be redacted before marking and restored after stripping.
const DOC = proseDocument(40_000, 4242).replace('\n\n', `\n\nThe deploy token is ${SECRET}.\n\n`);
let up: MockUpstream;
let proxy: TestFicta;
let home: string;

beforeAll(async () => {
  up = await createMockUpstream({
    secrets: [SECRET],
    // The model quotes the document back, frames and placeholder included.
    script: (req) => ({ sse: anthropicSse({ text: req.json.messages[0].content[0].source.data, pieceSize: 7 }), chunking: { seed: 1021, max: 1021 } }),
  });
  home = mkdtempSync(join(tmpdir(), 'ficta-wm-sdk-'));
  proxy = await startFicta({ upstream: up.url, secrets: { DEPLOY_TOKEN: SECRET }, home });
});
afterAll(async () => {
  await proxy.close();
  await up.close();
  rmSync(home, { recursive: true, force: true });
});

describe('watermark through ficta and the Anthropic SDK', () => {
  it('marks the document the upstream receives, strips every frame from the streamed echo, and attributes the copy', async () => {
    const client = new Anthropic({ baseURL: `${proxy.url}/anthropic`, apiKey: 'sk-ant-test', defaultHeaders: { 'x-claude-code-session-id': 'sess-42' }, maxRetries: 0 });
    const stream = await client.messages.create({
      model: 'claude-x',
      max_tokens: 1024,
      stream: true,
      messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: DOC } }, { type: 'text', text: 'Quote it back.' }] }],
    });
    let text = '';
    for await (const event of stream) if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;

    // The client sees the document exactly: no frame, the secret restored.
    expect(text).toBe(DOC);
    // The upstream received a marked copy with the secret redacted.
    expect(up.requests).toHaveLength(1);
    expect(up.leaks).toEqual([]);
    const upstreamCopy: string = up.requests[0]!.json.messages[0].content[0].source.data;
    expect(upstreamCopy).toMatch(/\u2060[\ufe00-\ufe0f]{4}\n/);
    expect(upstreamCopy).toMatch(/The deploy token is ~ficta_[a-z2-7]{20}\./);

    const requestId = proxy.requestLogs()[0]!.id as string;
    await proxy.close(); // flushes the registry
    const key = readKeyFile(proxy.home);
    const registry = openRegistry(proxy.home, { readonly: true });
    if (!key.ok || !registry.ok) throw new Error('registry or key missing');
    try {
      const a = attributeText(upstreamCopy, registry.value, deriveKeys(key.value));
      expect(a.candidates[0]).toMatchObject({ sessionId: 'claude-code:sess-42', verdict: 'confirmed' });
      expect(a.candidates[0]!.requests.latest[0]).toMatchObject({ requestId, provider: 'anthropic', model: 'claude-x', route: '/v1/messages' });
    } finally {
      registry.value.close();
    }
  });
});
