import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proseDocument, rng } from '../../fixtures/watermark/corpus.ts';
import { attributeText, MIN_CONFIRMING_SYMBOLS, type Attribution } from '../../src/watermark/attribute.ts';
import { parseWatermarkConfig } from '../../src/watermark/config.ts';
import { compareSymbols, detectMarks } from '../../src/watermark/detect.ts';
import { formatFrame } from '../../src/watermark/frame.ts';
import { deriveKeys } from '../../src/watermark/key.ts';
import { rsEncode } from '../../src/watermark/reed-solomon.ts';
import { openRegistry, type Registry } from '../../src/watermark/registry.ts';
import { stripFramesFromText } from '../../src/watermark/strip.ts';
import { createWatermarker, type Watermarker } from '../../src/watermark/watermarker.ts';

const KEY = Buffer.alloc(32, 9);
const keys = deriveKeys(KEY);
let home: string;
let w: Watermarker;
let registry: Registry;
const received = new Map<string, string>();

/** Sends `doc` as an Anthropic document block and returns the document as the upstream received it. */
function send(doc: string, sessionId: string, requestId: string): string {
  const body = Buffer.from(JSON.stringify({ model: 'claude-x', messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'text', data: doc } }] }] }));
  const out = w.markRequestBody(body, { provider: 'anthropic', route: '/v1/messages', sessionId, requestId, model: 'claude-x' });
  return JSON.parse(out.body.toString()).messages[0].content[0].source.data as string;
}

function matches(a: Attribution): string[] {
  return a.candidates.filter((c) => c.verdict === 'confirmed' || c.verdict === 'match').map((c) => c.sessionId);
}

const DOC = proseDocument(40_000, 101);
const SHARED_DOC = proseDocument(30_000, 102);
const BIG_DOC = proseDocument(110_000, 103);

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'ficta-wm-attr-'));
  const config = parseWatermarkConfig({});
  if (!config.ok) throw config.error;
  w = createWatermarker({ config: config.value, home, key: KEY });
  received.set('doc', send(DOC, 'session-a', 'req-a1'));
  send(DOC, 'session-a', 'req-a2');
  received.set('shared-a', send(SHARED_DOC, 'session-a', 'req-a3'));
  received.set('shared-b', send(SHARED_DOC, 'session-b', 'req-b1'));
  received.set('big', send(BIG_DOC, 'session-c', 'req-c1'));
  // Decoys: 30 other documents in 10 other sessions.
  for (let i = 0; i < 30; i++) send(proseDocument(8_000 + i * 500, 200 + i), `decoy-${i % 10}`, `req-d${i}`);
  await w.flush();
  const opened = openRegistry(home, { readonly: true });
  if (!opened.ok) throw opened.error;
  registry = opened.value;
});

afterAll(async () => {
  registry.close();
  await w.close();
  rmSync(home, { recursive: true, force: true });
});

describe('attribution of a leaked copy of a 40 KB document', () => {
  const variants: Array<[string, (t: string) => string, 'confirmed' | 'match']> = [
    ['copy-paste (frames intact)', (t) => t, 'confirmed'],
    ['JSON round trip', (t) => JSON.parse(JSON.stringify({ leaked: t })).leaked, 'confirmed'],
    ['JSON-encoded, ASCII-only (\\u escapes)', (t) => JSON.stringify(t).replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`), 'confirmed'],
    ['Unicode NFC', (t) => t.normalize('NFC'), 'confirmed'],
    ['Unicode NFKC', (t) => t.normalize('NFKC'), 'confirmed'],
    ['reformatted whitespace (reflowed to 60 columns, indented)', (t) => (t.replace(/\s+/g, ' ').match(/.{1,60}(\s|$)/g) ?? []).map((l) => `    ${l}`).join('\n'), 'confirmed'],
    ['every invisible character stripped (fingerprints alone)', (t) => t.replace(/[\u2060-\u2064\ufe00-\ufe0f\u200b-\u200f\ufeff]/g, ''), 'match'],
  ];
  for (const [name, transform, verdict] of variants) {
    it(`names session-a and its requests after: ${name}`, () => {
      const a = attributeText(transform(received.get('doc')!), registry, keys);
      expect(a.candidates[0]).toMatchObject({ sessionId: 'session-a', verdict });
      expect(matches(a)).toEqual(['session-a']);
      expect(a.candidates[0]!.requests.total).toBe(2);
      expect(a.candidates[0]!.requests.latest.map((s) => s.requestId).sort()).toEqual(['req-a1', 'req-a2']);
      expect(a.candidates[0]!.requests.latest[0]).toMatchObject({ route: '/v1/messages', provider: 'anthropic', model: 'claude-x' });
    });
  }

  it('names session-a from a 25 % excerpt (10 KB of the 40 KB)', () => {
    const text = received.get('doc')!;
    const a = attributeText(text.slice(15_000, 25_000), registry, keys);
    expect(a.candidates[0]!.sessionId).toBe('session-a');
    expect(['match', 'confirmed']).toContain(a.candidates[0]!.verdict);
    expect(a.candidates[0]!.evidence.containment).toBeGreaterThan(0.9);
    expect(matches(a)).toEqual(['session-a']);
  });
});

describe('false matches', () => {
  it('reports no match for an unrelated document, nor for one that merely quotes a paragraph', () => {
    const unrelated = proseDocument(40_000, 999);
    expect(matches(attributeText(unrelated, registry, keys))).toEqual([]);
    const quoting = `${unrelated.slice(0, 20_000)}\n${stripFramesFromText(received.get('doc')!).slice(5_000, 5_600)}\n${unrelated.slice(20_000)}`;
    const a = attributeText(quoting, registry, keys);
    expect(matches(a)).toEqual([]);
    expect(a.candidates.find((c) => c.sessionId === 'session-a')?.verdict).toBe('weak');
  });

  it('tells apart two sessions that sent the same text by the symbols in the leaked copy', () => {
    const fromB = attributeText(received.get('shared-b')!, registry, keys);
    expect(fromB.candidates.map((c) => [c.sessionId, c.verdict])).toEqual([
      ['session-b', 'confirmed'],
      ['session-a', 'contradicted'],
    ]);
    // Without frames the text alone cannot say which session: both match, neither is confirmed.
    const stripped = attributeText(stripFramesFromText(received.get('shared-a')!), registry, keys);
    expect(stripped.candidates.map((c) => c.verdict)).toEqual(['match', 'match']);
    expect(stripped.candidates[0]!.confidence).toBeLessThanOrEqual(0.45);
  });

  it(`confirms a wrong session by symbols with probability 2^(−8·s): none in 100,000 trials at s = ${MIN_CONFIRMING_SYMBOLS}, ~1/256 at s = 1`, () => {
    const r = rng(77);
    const observed = (cw: Uint8Array, indices: number[]) => new Map(indices.map((i) => [i, new Set([cw[i]!])]));
    const trials = 100_000;
    let falseConfirm = 0;
    let singleAgree = 0;
    const truth = rsEncode(Uint8Array.from({ length: 8 }, () => Math.floor(r() * 256)));
    for (let t = 0; t < trials; t++) {
      const wrong = rsEncode(Uint8Array.from({ length: 8 }, () => Math.floor(r() * 256)));
      const start = Math.floor(r() * 16);
      const idx = Array.from({ length: MIN_CONFIRMING_SYMBOLS }, (_, k) => (start + k) % 16);
      const s = compareSymbols(observed(truth, idx), wrong);
      if (s.agree >= MIN_CONFIRMING_SYMBOLS && s.disagree === 0) falseConfirm++;
      if (compareSymbols(observed(truth, [start]), wrong).agree === 1) singleAgree++;
    }
    expect(falseConfirm).toBe(0);
    expect(singleAgree / trials).toBeGreaterThan(0.7 / 256);
    expect(singleAgree / trials).toBeLessThan(1.3 / 256);
  });

  it('never maps random frames to a registered session by blind decoding', () => {
    const r = rng(5);
    let named = 0;
    for (let t = 0; t < 200; t++) {
      const frames = Array.from({ length: 8 }, (_, i) => formatFrame({ index: (i * 2) % 16, value: Math.floor(r() * 256) })).join('\n');
      const d = detectMarks(frames);
      if (d.decoded !== undefined && registry.sessionsByMark(d.decoded.mark).length > 0) named++;
    }
    expect(named).toBe(0);
  });
});

describe('blind decoding', () => {
  it('recovers the session mark from a 110 KB document alone (≥ 8 distinct symbols)', () => {
    const a = attributeText(received.get('big')!, registry, keys);
    expect(a.frames).toBeGreaterThanOrEqual(8);
    expect(a.blind).toMatchObject({ mark: Buffer.from(keys.sessionMark('session-c')).toString('hex'), sessions: ['session-c'] });
    expect(a.candidates[0]).toMatchObject({ sessionId: 'session-c', verdict: 'confirmed' });
    expect(a.candidates[0]!.evidence.markDecoded).toBe(true);
  });

  it('says "not enough symbols" through an undefined decode when fewer than 8 survive', () => {
    const d = detectMarks(received.get('doc')!);
    expect(d.frames.length).toBeGreaterThan(0);
    expect(d.frames.length).toBeLessThan(8);
    expect(d.decoded).toBeUndefined();
  });
});
