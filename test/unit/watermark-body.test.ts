import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { codeDocument, proseDocument } from '../../fixtures/watermark/corpus.ts';
import { parseWatermarkConfig, type WatermarkConfigInput } from '../../src/watermark/config.ts';
import { detectMarks } from '../../src/watermark/detect.ts';
import { fingerprintText } from '../../src/watermark/fingerprint.ts';
import { deriveKeys } from '../../src/watermark/key.ts';
import { openRegistry } from '../../src/watermark/registry.ts';
import { stripFrames, stripFramesFromText } from '../../src/watermark/strip.ts';
import { createWatermarker, type MarkContext, type Watermarker } from '../../src/watermark/watermarker.ts';

const KEY = Buffer.alloc(32, 3);
const CTX: MarkContext = { provider: 'anthropic', route: '/v1/messages', sessionId: 'session-a', requestId: 'req-1', model: 'claude-x' };
const homes: string[] = [];
const open: Watermarker[] = [];

function home(): string {
  const h = mkdtempSync(join(tmpdir(), 'ficta-wm-'));
  homes.push(h);
  return h;
}

function watermarker(config: WatermarkConfigInput = {}, extra: Partial<Parameters<typeof createWatermarker>[0]> = {}): Watermarker {
  const parsed = parseWatermarkConfig(config);
  if (!parsed.ok) throw parsed.error;
  const w = createWatermarker({ config: parsed.value, home: extra.home ?? home(), key: KEY, ...extra });
  open.push(w);
  return w;
}

afterEach(async () => {
  for (const w of open.splice(0)) await w.close();
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});

function anthropicBody(doc: string, extra: unknown[] = []): Buffer {
  return Buffer.from(
    JSON.stringify({
      model: 'claude-x',
      max_tokens: 1024,
      system: 'You are terse.',
      messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: doc }, title: 'Report' }, { type: 'text', text: 'Summarise it.' }, ...extra] }],
      stream: true,
    }),
  );
}

/** The bytes before and after the one string that changed. */
function unchangedAround(before: Buffer, after: Buffer): { prefix: number; suffix: number } {
  let prefix = 0;
  while (prefix < before.length && before[prefix] === after[prefix]) prefix++;
  let suffix = 0;
  while (suffix < before.length - prefix && before[before.length - 1 - suffix] === after[after.length - 1 - suffix]) suffix++;
  return { prefix, suffix };
}

describe('markRequestBody', () => {
  const doc = proseDocument(40_000, 31);

  it('marks an Anthropic document block in place and forwards every other byte unchanged', () => {
    const w = watermarker();
    const body = anthropicBody(doc);
    const out = w.markRequestBody(body, CTX);
    expect(out).toMatchObject({ marked: 1, fingerprinted: 1 });
    const parsedIn = JSON.parse(body.toString());
    const parsedOut = JSON.parse(out.body.toString());
    const marked: string = parsedOut.messages[0].content[0].source.data;
    expect(stripFramesFromText(marked)).toBe(doc);
    expect(detectMarks(marked).frames.length).toBeGreaterThanOrEqual(4);
    parsedOut.messages[0].content[0].source.data = doc;
    expect(parsedOut).toEqual(parsedIn);
    // Only bytes inside the document string differ.
    const dataStart = body.indexOf('"data":"') + 8;
    const dataEnd = body.indexOf('"},"title"');
    const { prefix, suffix } = unchangedAround(body, out.body);
    expect(prefix).toBeGreaterThanOrEqual(dataStart);
    expect(body.length - suffix).toBeLessThanOrEqual(dataEnd);
    expect(stripFrames(out.body).equals(body)).toBe(true);
  });

  it('is deterministic per session and document, so prompt caches stay byte-stable', () => {
    const body = anthropicBody(doc);
    const a = watermarker().markRequestBody(body, CTX).body;
    const b = watermarker().markRequestBody(Buffer.from(body), { ...CTX, requestId: 'req-2' }).body;
    const c = watermarker().markRequestBody(body, { ...CTX, sessionId: 'session-b' }).body;
    expect(a.equals(b)).toBe(true);
    expect(a.equals(c)).toBe(false);
  });

  it('leaves documents under the threshold, tool results and prompt text alone by default (same Buffer)', () => {
    const w = watermarker();
    const small = anthropicBody(proseDocument(1_500, 2));
    expect(w.markRequestBody(small, CTX)).toEqual({ body: small, marked: 0, fingerprinted: 0 });
    const tools = Buffer.from(
      JSON.stringify({ messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: doc }, { type: 'text', text: doc }] }] }),
    );
    expect(w.markRequestBody(tools, CTX).body).toBe(tools);
  });

  it('marks tool results and user prompt text when opted in, but not assistant text', () => {
    const body = Buffer.from(
      JSON.stringify({
        messages: [
          { role: 'user', content: doc },
          { role: 'assistant', content: [{ type: 'text', text: doc }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: codeDocument(20_000) }] }] },
        ],
      }),
    );
    const w = watermarker({ surfaces: { toolResults: true, promptText: true } });
    const out = JSON.parse(w.markRequestBody(body, CTX).body.toString());
    expect(out.messages[0].content).not.toBe(doc);
    expect(out.messages[1].content[0].text).toBe(doc);
    expect(detectMarks(out.messages[2].content[0].content[0].text).frames.length).toBeGreaterThan(0);
    const onlyTools = JSON.parse(watermarker({ surfaces: { toolResults: true } }).markRequestBody(body, CTX).body.toString());
    expect(onlyTools.messages[0].content).toBe(doc);
  });

  it('marks OpenAI file inputs with a text data URL and text parts wrapped in <document>', () => {
    const wrapped = `<document title="report">\n${doc}</document>`;
    const body = Buffer.from(
      JSON.stringify({
        model: 'gpt-x',
        input: [
          {
            type: 'message',
            role: 'user',
            content: [
              { type: 'input_file', filename: 'notes.md', file_data: `data:text/markdown;base64,${Buffer.from(doc).toString('base64')}` },
              { type: 'input_text', text: wrapped },
              { type: 'input_file', filename: 'a.pdf', file_data: `data:application/pdf;base64,${Buffer.from(doc).toString('base64')}` },
            ],
          },
        ],
      }),
    );
    const out = watermarker().markRequestBody(body, { ...CTX, provider: 'openai', route: '/v1/responses' });
    expect(out.marked).toBe(2);
    const content = JSON.parse(out.body.toString()).input[0].content;
    const file = Buffer.from(content[0].file_data.split(',')[1], 'base64').toString();
    expect(stripFramesFromText(file)).toBe(doc);
    expect(file).not.toBe(doc);
    expect(stripFramesFromText(content[1].text)).toBe(wrapped);
    expect(content[2].file_data).toBe(`data:application/pdf;base64,${Buffer.from(doc).toString('base64')}`);
  });

  it('marks a <document> wrapper whose < is escaped (Go clients write \\u003c) and a file input alone', () => {
    const wrapped = `<document title="report">\n${doc}</document>`;
    const text = JSON.stringify({ model: 'gpt-x', input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: wrapped }] }] });
    for (const lt of ['\\u003c', '\\u003C']) {
      const body = Buffer.from(text.replaceAll('<', lt));
      const out = watermarker().markRequestBody(body, { ...CTX, provider: 'openai', route: '/v1/responses' });
      expect(out.marked).toBe(1);
      expect(stripFramesFromText(JSON.parse(out.body.toString()).input[0].content[0].text)).toBe(wrapped);
    }
    const file = Buffer.from(JSON.stringify({ model: 'gpt-x', input: [{ role: 'user', content: [{ type: 'input_file', file_data: `data:text/plain;base64,${Buffer.from(doc).toString('base64')}` }] }] }));
    expect(watermarker().markRequestBody(file, { ...CTX, provider: 'openai', route: '/v1/responses' }).marked).toBe(1);
    // Prose that only mentions documentation or a file is not scanned (the same Buffer comes back).
    const prose = Buffer.from(JSON.stringify({ messages: [{ role: 'user', content: `the documentation says file_data: ${doc.slice(0, 3000)}` }] }));
    expect(watermarker().markRequestBody(prose, CTX).body).toBe(prose);
  });

  it('writes frames as \\u escapes into an ASCII-only body (Python json.dumps) and before CRLF line ends', () => {
    const crlf = `${doc.replace(/\n/g, '\r\n')}Fin — ünïcode.\r\n`;
    const body = Buffer.from(JSON.stringify({ messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'text', data: crlf } }] }] }).replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
    const out = watermarker().markRequestBody(body, CTX);
    expect(out.marked).toBe(1);
    expect(/[^\x00-\x7f]/.test(out.body.toString('latin1'))).toBe(false);
    const data: string = JSON.parse(out.body.toString()).messages[0].content[0].source.data;
    expect(stripFramesFromText(data)).toBe(crlf);
    expect(data).toMatch(/[.!?:;,)]\u2060[\ufe00-\ufe0f]{4}\r\n/);
  });

  it('marks OpenAI Chat file parts, Anthropic content-source documents, and (opted in) tool messages and *_call_output items', () => {
    const chat = Buffer.from(
      JSON.stringify({
        model: 'gpt-x',
        messages: [
          { role: 'user', content: [{ type: 'file', file: { filename: 'a.txt', file_data: `data:text/plain;base64,${Buffer.from(doc).toString('base64')}` } }] },
          { role: 'tool', tool_call_id: 'c1', content: doc },
        ],
      }),
    );
    expect(watermarker().markRequestBody(chat, { ...CTX, provider: 'openai' }).marked).toBe(1);
    expect(watermarker({ surfaces: { toolResults: true } }).markRequestBody(chat, { ...CTX, provider: 'openai' }).marked).toBe(2);
    const responses = Buffer.from(JSON.stringify({ input: [{ type: 'function_call_output', call_id: 'c1', output: doc }, { type: 'custom_tool_call_output', call_id: 'c2', output: codeDocument(20_000) }] }));
    expect(watermarker({ surfaces: { documents: false, toolResults: true } }).markRequestBody(responses, { ...CTX, provider: 'openai' }).marked).toBe(2);
    const contentSource = anthropicBody('x').toString().replace('{"type":"text","media_type":"text/plain","data":"x"}', JSON.stringify({ type: 'content', content: [{ type: 'text', text: doc }] }));
    expect(watermarker().markRequestBody(Buffer.from(contentSource), CTX).marked).toBe(1);
  });

  it('takes the session from agent headers, else one id per proxy process', () => {
    const w = watermarker();
    const headers: Record<string, string> = { 'x-claude-code-session-id': 'fb37', 'session-id': '01a1' };
    expect(w.sessionFor((n) => headers[n])).toBe('claude-code:fb37');
    expect(w.sessionFor((n) => (n === 'session-id' ? '01a1' : undefined))).toBe('codex:01a1');
    const fallback = w.sessionFor(() => undefined);
    expect(fallback).toMatch(/^proxy-/);
    expect(w.sessionFor(() => undefined)).toBe(fallback);
  });

  it('forwards a body it cannot scan unchanged', () => {
    const w = watermarker();
    const broken = Buffer.from(`{"messages":[{"type":"document","source":{"type":"text","data":"${'x'.repeat(3000)}"}`);
    expect(w.markRequestBody(broken, CTX).body).toBe(broken);
  });
});

describe('registry', () => {
  const doc = proseDocument(12_000, 41);

  it('records the session, the document once, and every request that sent it; never the text', async () => {
    const h = home();
    const w = watermarker({}, { home: h });
    w.markRequestBody(anthropicBody(doc), CTX);
    w.markRequestBody(anthropicBody(doc), { ...CTX, requestId: 'req-2' });
    await w.flush();
    expect(w.stats()).toMatchObject({ registered: 2, registryErrors: 0 });
    await w.close();
    const reg = openRegistry(h, { readonly: true });
    if (!reg.ok) throw reg.error;
    const keys = deriveKeys(KEY);
    const [cand] = reg.value.candidates(fingerprintText(doc, keys), 5);
    const info = reg.value.document(cand!.docId)!;
    expect(info.sessionId).toBe('session-a');
    expect(reg.value.sightings(info.id, 10).total).toBe(2);
    expect(reg.value.sessionsByMark(keys.sessionMark('session-a'))).toEqual(['session-a']);
    reg.value.close();
    const file = readFileSync(join(h, 'watermark.sqlite'));
    expect(file.includes(doc.slice(100, 140))).toBe(false);
  });

  it('keeps marking and forwarding when the registry disk is full (SQLITE_FULL), counting the failures', async () => {
    const w = watermarker({}, { registry: { maxPageCount: 12 } });
    const out = w.markRequestBody(anthropicBody(proseDocument(60_000, 5)), CTX);
    expect(out.marked).toBe(1);
    await w.flush();
    expect(w.stats()).toMatchObject({ registered: 0, registryErrors: 1 });
  });

  it('keeps marking and forwarding when the registry is read-only, and logs the failure without text', async () => {
    const h = home();
    const first = openRegistry(h);
    if (!first.ok) throw first.error;
    first.value.close();
    const ro = openRegistry(h, { readonly: true });
    if (!ro.ok) throw ro.error;
    const warnings: Array<Record<string, unknown>> = [];
    const w = watermarker({}, { home: h, registry: ro.value, logger: { warn: (f) => warnings.push(f) } });
    const out = w.markRequestBody(anthropicBody(doc), CTX);
    expect(out.marked).toBe(1);
    await w.flush();
    expect(w.stats().registryErrors).toBe(1);
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings)).not.toContain(doc.slice(0, 30));
  });

  it('passes bodies through when the key cannot be created', () => {
    const h = home();
    const notADir = join(h, 'file');
    writeFileSync(notADir, 'x');
    const parsed = parseWatermarkConfig({});
    if (!parsed.ok) throw parsed.error;
    const w = createWatermarker({ config: parsed.value, home: notADir });
    open.push(w);
    const body = anthropicBody(doc);
    expect(w.markRequestBody(body, CTX).body).toBe(body);
  });
});
