// Frozen vectors (fixtures/watermark/vectors.json): marks, frames, placement and fingerprints already in
// leaked copies and registries must not change by accident. A deliberate change regenerates the file.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { proseDocument } from '../../fixtures/watermark/corpus.ts';
import { planEmbedding } from '../../src/watermark/embed.ts';
import { fingerprintText } from '../../src/watermark/fingerprint.ts';
import { formatFrame } from '../../src/watermark/frame.ts';
import { deriveKeys } from '../../src/watermark/key.ts';
import { rsEncode } from '../../src/watermark/reed-solomon.ts';

const v = JSON.parse(readFileSync(join(import.meta.dirname, '../../fixtures/watermark/vectors.json'), 'utf8'));
const keys = deriveKeys(Buffer.from(v.key, 'hex'));
const doc = proseDocument(12_000, 77);

describe('frozen watermark vectors', () => {
  it('derive the same session mark and codeword from the key', () => {
    const mark = keys.sessionMark(v.sessionMark.sessionId);
    expect(Buffer.from(mark).toString('hex')).toBe(v.sessionMark.mark);
    expect(Buffer.from(rsEncode(mark)).toString('hex')).toBe(v.codeword);
  });

  it('format frames with the same code points', () => {
    for (const f of v.frames) expect([...formatFrame(f)].map((c) => c.codePointAt(0)!.toString(16))).toEqual(f.codePoints);
  });

  it('place frames and fingerprint documents as before', () => {
    expect(keys.documentId(v.documentId.text).toString('hex')).toBe(v.documentId.id);
    const seed = keys.placementSeed(v.placement.sessionId, doc);
    expect(seed.toString('hex')).toBe(v.placement.seed);
    const plan = planEmbedding(doc, rsEncode(keys.sessionMark(v.placement.sessionId)), seed);
    expect(plan.frames.map((f) => ({ offset: f.offset, index: f.index }))).toEqual(v.placement.frames);
    const fps = fingerprintText(doc, keys);
    expect(fps.length).toBe(v.fingerprints.count);
    expect(fps.slice(0, 8)).toEqual(v.fingerprints.first);
  });
});
