// Detection inside redaction, the gate and restore: detected credentials get keyed placeholders and are
// restored for the life of the store; every form the gate covers is covered for them too; `block` leaves
// them for the gate; context-found values are recalled bare; the store stays bounded.

import { describe, expect, it } from 'vitest';
import { sampleOf } from '../../fixtures/detect/tokens.ts';
import { createDetector } from '../../src/detect/detector.ts';
import { kindByName } from '../../src/detect/kinds.ts';
import { createDetectedStore, kindOfSecret, type DetectedStore } from '../../src/detect/store.ts';
import { generic } from '../../src/providers/generic.ts';
import { openaiChat } from '../../src/providers/openai-chat.ts';
import { openaiResponses } from '../../src/providers/openai-responses.ts';
import type { StreamAdapter } from '../../src/providers/types.ts';
import { redactBody } from '../../src/redact/body.ts';
import { gateRequest } from '../../src/redact/gate.ts';
import { redactHeaders } from '../../src/redact/headers.ts';
import { derivePlaceholder } from '../../src/redact/placeholder.ts';
import { buildSecretSet, type DetectMode, type SecretSet } from '../../src/redact/secret-set.ts';
import { redactTarget } from '../../src/redact/url.ts';
import { createBodyRestorer } from '../../src/restore/body-restorer.ts';
import { createNdjsonFraming } from '../../src/restore/ndjson-frame.ts';
import { createRestoreStats } from '../../src/restore/restore-bytes.ts';
import { createSseRestorer } from '../../src/restore/sse-restorer.ts';
import { createStreamRestorer } from '../../src/restore/stream-restorer.ts';
import { mulberry32 } from '../../src/util/prng.ts';
import { runThrough, splits } from '../helpers/chunking.ts';
import { fullUnicodeEscape } from '../helpers/leak-oracle.ts';
import { TEST_KEY } from '../helpers/secret-set.ts';
import { collect, parseSse } from '../helpers/sse-client.ts';

const detector = createDetector();

function detectingSet(store: DetectedStore = createDetectedStore(), mode: DetectMode = 'redact', secrets: Record<string, string> = {}): SecretSet {
  return buildSecretSet(Object.entries(secrets).map(([name, value]) => ({ name, value })), TEST_KEY, { detector, store, mode });
}

const token = (name: string, seed = 5): string => sampleOf(kindByName(name)!, mulberry32(seed)).secret;

function restoreJson(set: SecretSet, body: string): string {
  const r = createBodyRestorer(set, 'json', createRestoreStats());
  return Buffer.concat([...r.push(Buffer.from(body)), ...r.end()]).toString('utf8');
}

describe('detection in redaction, the gate and restore', () => {
  it('a registered value that is also a detectable credential keeps its own placeholder and name in every form (percent-encoded too)', () => {
    // glpat- + 20 characters: a registered value and a GitLab legacy PAT at once (fuzz percent-in-body,
    // form-whole, headers-whole and query-whole found the detected copy winning in decoded views).
    const value = 'glpat-ydkbHz1p7r5YnqnI5vo8';
    const set = detectingSet(createDetectedStore(), 'redact', { GITLAB: value });
    const placeholder = derivePlaceholder(TEST_KEY, value);
    const encoded = [...Buffer.from(value)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
    for (const form of [value, encoded]) {
      const counts = new Map<number, number>();
      const headers = redactHeaders(set, [['x-note', form]], counts);
      expect(headers[0]![1]).toBe(placeholder);
      expect([...counts.keys()]).toEqual([0]);
      const body = redactBody(set, Buffer.from(`note=${form}&x=1`), 'text', new Map()).bytes.toString('utf8');
      expect(body).toBe(`note=${placeholder}&x=1`);
    }
  });

  it('a detected credential longer than a registered prefix of it stays whole 8 MiB into a body (no packed-offset collision)', () => {
    const token = 'glpat-ydkbHz1p7r5YnqnI5vo8XY'; // a 22-character GitLab legacy PAT
    const set = detectingSet(createDetectedStore(), 'redact', { PREFIX: token.slice(0, 26) });
    const pad = ' '.repeat(8 * 1024 * 1024 + 3);
    const out = redactBody(set, Buffer.from(`${pad}${token} end`), 'text', new Map()).bytes.toString('utf8');
    const tail = out.slice(pad.length);
    expect(tail).not.toContain('glpat-');
    expect(tail).toMatch(/^~ficta_[a-z2-7]{20} end$/);
  });

  it('replaces a detected token with its keyed placeholder and restores it from the store', () => {
    const set = detectingSet();
    const t = token('github-classic-pat');
    const body = Buffer.from(JSON.stringify({ messages: [{ role: 'user', content: `my token is ${t}` }] }));
    const counts = new Map<number, number>();
    const out = redactBody(set, body, 'json', counts).bytes.toString('utf8');
    const placeholder = derivePlaceholder(TEST_KEY, t);
    expect(out).not.toContain(t);
    expect(out).toContain(placeholder);
    expect([...counts.keys()].map((k) => set.nameFor(k))).toEqual(['detected:github-classic-pat']);
    expect(gateRequest(set, { target: '/v1/messages', headers: [], body: Buffer.from(out), bodyKind: 'json' })).toEqual([]);
    expect(JSON.parse(restoreJson(set, JSON.stringify({ text: `echo ${placeholder}` }))).text).toBe(`echo ${t}`);
  });

  it('restores a detected token in every restore path: SSE deltas, whole events and done copies, NDJSON, and deep JSON text', () => {
    const set = detectingSet();
    const t = token('github-classic-pat');
    redactBody(set, Buffer.from(JSON.stringify({ a: t })), 'json', new Map());
    const p = derivePlaceholder(TEST_KEY, t);
    const sse = (adapter: StreamAdapter, body: string): { out: string; misses: number } => {
      const stats = createRestoreStats();
      const out = runThrough(() => createSseRestorer(set, adapter, stats, { maxEventBytes: 1 << 20 }), Buffer.from(body), splits()[0]!).toString('utf8');
      return { out, misses: stats.misses };
    };
    const chat = sse(openaiChat, `data: {"choices":[{"index":0,"delta":{"content":"a ${p.slice(0, 9)}"}}]}\n\ndata: {"choices":[{"index":0,"delta":{"content":"${p.slice(9)} b"}}]}\n\ndata: [DONE]\n\n`);
    expect(collect(chat.out).streams.get('c0:text')).toBe(`a ${t} b`);
    const done = sse(openaiResponses, `event: response.output_text.done\ndata: {"type":"response.output_text.done","item_id":"m","output_index":0,"content_index":0,"text":"x ${p}"}\n\n`);
    expect(collect(done.out).copies).toEqual([`x ${t}`]);
    const text = sse(generic, `data: plain ${p}\n\ndata: {"k":"${p}"}\n\n`);
    expect(parseSse(text.out).map((e) => e.data)).toEqual([`plain ${t}`, JSON.stringify({ k: t })]);
    const lines = runThrough(() => createStreamRestorer(set, generic, createRestoreStats(), createNdjsonFraming(1 << 20)), Buffer.from(`{"k":"${p}"}\n`), splits()[0]!);
    expect(JSON.parse(lines.toString()).k).toBe(t);
    // Nine strings deep: past the set's cached escape depths.
    let doc: unknown = { k: p };
    for (let d = 0; d < 8; d++) doc = { j: JSON.stringify(doc) };
    let back: any = JSON.parse(restoreJson(set, JSON.stringify(doc)));
    for (let d = 0; d < 8; d++) back = JSON.parse(back.j);
    expect(back.k).toBe(t);
    expect(chat.misses + done.misses + text.misses).toBe(0);
  });

  it('finds a token in tool-argument JSON text, \\u-escaped, in the query and in a header', () => {
    const set = detectingSet();
    const t = token('slack-bot-token');
    const args = JSON.stringify({ messages: [{ role: 'assistant', tool_calls: [{ function: { name: 'sh', arguments: JSON.stringify({ cmd: `export T=${t}` }) } }] }] });
    const escaped = `{"content":"${fullUnicodeEscape(t)}"}`;
    for (const text of [args, escaped]) {
      const out = redactBody(set, Buffer.from(text), 'json', new Map()).bytes.toString('utf8');
      expect(JSON.stringify(JSON.parse(out))).not.toContain(t);
      expect(gateRequest(set, { target: '/', headers: [], body: Buffer.from(out), bodyKind: 'json' })).toEqual([]);
      // The gate sees the token in the unredacted body, in any form.
      expect(gateRequest(set, { target: '/', headers: [], body: Buffer.from(text), bodyKind: 'json' }).map((f) => set.nameFor(f.secret))).toEqual(['detected:slack-bot-token']);
    }
    const target = redactTarget(set, `/v1/x?note=${encodeURIComponent(t)}`, new Map());
    expect(decodeURIComponent(target)).not.toContain(t);
    const headers = redactHeaders(set, [['x-note', `Bearer ${t}`], ['authorization', `Bearer ${t}`]], new Map());
    expect(headers[0]![1]).not.toContain(t);
    expect(headers[1]![1]).toContain(t); // the auth allowlist passes untouched
    const surfaces = gateRequest(set, { target: `/v1/x?note=${encodeURIComponent(t)}`, headers: [['x-note', t]], body: Buffer.alloc(0), bodyKind: 'json' }).map((f) => f.surface).sort();
    expect(surfaces).toEqual(['header x-note', 'query']);
  });

  it('in block mode leaves detected tokens in place for the gate, which names the kind', () => {
    const set = detectingSet(createDetectedStore(), 'block', { REGISTERED: 'registered-value-1234' });
    const t = token('stripe-secret-key');
    const body = Buffer.from(JSON.stringify({ a: `${t} and registered-value-1234` }));
    const out = redactBody(set, body, 'json', new Map()).bytes;
    expect(out.toString()).toContain(t);
    expect(out.toString()).not.toContain('registered-value-1234');
    const findings = gateRequest(set, { target: '/', headers: [], body: out, bodyKind: 'json' });
    expect(findings.map((f) => set.nameFor(f.secret))).toEqual(['detected:stripe-secret-key']);
  });

  it('finds nothing and changes nothing without detection', () => {
    const set = buildSecretSet([], TEST_KEY);
    const t = token('github-classic-pat');
    const body = Buffer.from(JSON.stringify({ a: t }));
    expect(set.inert).toBe(true);
    expect(redactBody(set, body, 'json', new Map()).bytes).toBe(body);
  });

  it('recalls a URL password bare in later requests, since its restored value comes back in the history', () => {
    const store = createDetectedStore();
    const first = detectingSet(store);
    const pw = 'Hq7vLx29Zp';
    const out1 = redactBody(first, Buffer.from(JSON.stringify({ a: `postgres://app:${pw}@db/app` })), 'json', new Map()).bytes.toString();
    expect(out1).not.toContain(pw);
    // A later snapshot (registry reload) shares the store.
    const later = detectingSet(store);
    const out2 = redactBody(later, Buffer.from(JSON.stringify({ a: `the password was ${pw}, ok` })), 'json', new Map()).bytes.toString();
    expect(out2).not.toContain(pw);
    expect(out2).toContain(derivePlaceholder(TEST_KEY, pw));
    expect(store.stats().recalled).toBe(1);
  });

  it('refuses a request that brings more than 1,024 new credentials instead of hashing them all', () => {
    const set = detectingSet();
    const rnd = mulberry32(77);
    const kind = kindByName('github-classic-pat')!;
    const tokens = Array.from({ length: 1025 }, () => sampleOf(kind, rnd).secret);
    const body = Buffer.from(JSON.stringify({ a: tokens.join(' ') }));
    let code: string | undefined;
    try {
      redactBody(set, body, 'json', new Map());
    } catch (e) {
      code = (e as { code?: string }).code;
    }
    expect(code).toBe('FICTA_LEAK_BLOCKED');
    // The same 1,024 again are known, not new: no refusal.
    const again = detectingSet();
    expect(() => redactBody(again, Buffer.from(JSON.stringify({ a: tokens.slice(0, 1024).join(' ') })), 'json', new Map())).not.toThrow();
  });

  it('keeps the store bounded by count and bytes, dropping the least recently used, and counts', async () => {
    const store = createDetectedStore({ maxEntries: 3, maxBytes: 1 << 20 });
    const kind = 0;
    const idx = ['value-aaaaaaaa-1', 'value-bbbbbbbb-2', 'value-cccccccc-3'].map((v) => store.intern(v, kind, TEST_KEY));
    await Promise.resolve();
    store.intern('value-aaaaaaaa-1', kind, TEST_KEY); // touched: now the most recent
    await Promise.resolve();
    store.intern('value-dddddddd-4', kind, TEST_KEY);
    await Promise.resolve();
    expect(store.stats()).toMatchObject({ entries: 3, added: 4, evicted: 1 });
    expect(store.placeholderBytes(idx[1]!)).toBeUndefined();
    expect(store.placeholderBytes(idx[0]!)).toBeDefined();
    expect(kindOfSecret(idx[0]!)).toBe(kind);

    const small = createDetectedStore({ maxEntries: 100, maxBytes: 40 });
    for (let i = 0; i < 5; i++) small.intern(`value-${i}-xxxxxxxxxxxxxx`, kind, TEST_KEY);
    // Values made in the same synchronous stretch stay until it ends (a request's redact, replace, gate).
    expect(small.stats().entries).toBe(5);
    await Promise.resolve();
    expect(small.stats().bytes).toBeLessThanOrEqual(40);
  });
});

describe('runs of backslashes in a body, with detection on', () => {
  /** `text` as JSON text in a string `depth` levels deep. */
  const nest = (text: string, depth: number): string => {
    let s = JSON.stringify({ v: text });
    for (let i = 1; i < depth; i++) s = JSON.stringify({ v: s });
    return s;
  };
  const pem = token('private-key');

  it('finds a key block nested five levels deep whose BEGIN line is \\u-escaped (no anchor in the body as sent)', () => {
    const set = detectingSet();
    const hidden = pem.replace('-----BEGIN', '\u0000').replace('\u0000', '\\u002d----BEGIN');
    // The innermost text holds `\u002d----BEGIN …` as JSON escapes it (a \u escape one level down).
    const body = nest(`{"k":"${hidden.replace(/\n/g, '\\n')}"}`, 4);
    expect(body).not.toContain('-----BEGIN');
    expect(gateRequest(set, { target: '/', headers: [], body: Buffer.from(body), bodyKind: 'json' }).map((f) => set.nameFor(f.secret))).toEqual(['detected:private-key']);
  });

  it('finds a registered value holding a line break nested five levels deep, though no key block is in the body', () => {
    const set = detectingSet(createDetectedStore(), 'redact', { NOTE: 'line one\nline two!' });
    const body = nest('see line one\nline two! here', 5);
    expect(gateRequest(set, { target: '/', headers: [], body: Buffer.from(body), bodyKind: 'json' }).map((f) => set.nameFor(f.secret))).toEqual(['NOTE']);
  });
});
