// The finder's two scans — the anchor index it starts with and the automaton it compiles once it has read
// 64 KiB — report the same credentials, in the same order, on the whole labelled corpus and on glued,
// overlapping anchors.

import { describe, expect, it } from 'vitest';
import { negatives, positives } from '../../fixtures/detect/corpus.ts';
import { createDetector } from '../../src/detect/detector.ts';
import { createCredentialFinder, type Credential } from '../../src/detect/find.ts';
import { mulberry32 } from '../../src/util/prng.ts';

const detector = createDetector();

/** A finder that has already read 64 KiB, so it scans with its compiled automaton from now on. */
function compiledFinder(): { find(text: string): Credential[] } {
  const f = createCredentialFinder(detector);
  f.find(Buffer.alloc(64 * 1024 + 1, 0x20));
  return { find: (text) => f.find(Buffer.from(text, 'utf8')) };
}

describe('credential finder', () => {
  it('finds the same credentials in the same order with its anchor index as with its automaton', () => {
    const compiled = compiledFinder();
    const texts = [...positives(), ...negatives()].map((t) => t.text);
    let credentials = 0;
    for (const text of texts) {
      // A fresh finder per text reads it through the index (each text is well under 64 KiB).
      const indexed = createCredentialFinder(detector).find(Buffer.from(text, 'utf8'));
      expect(indexed).toEqual(compiled.find(text));
      credentials += indexed.length;
    }
    expect(credentials).toBeGreaterThan(400);
  });

  it('agrees on anchors glued together, overlapping and cut off at the end of the text', () => {
    const compiled = compiledFinder();
    const anchors = detector.anchors.map((a) => Buffer.from(a).toString('latin1'));
    const rand = mulberry32(11);
    const alphabet = 'abcdefABCDEF0123456789_-=:/"\' \n';
    for (let n = 0; n < 300; n++) {
      let text = '';
      while (text.length < 200) {
        text += rand() < 0.5 ? anchors[Math.floor(rand() * anchors.length)]! : alphabet[Math.floor(rand() * alphabet.length)]!.repeat(1 + Math.floor(rand() * 30));
      }
      const cut = text.slice(0, Math.floor(rand() * text.length));
      for (const t of [text, cut]) expect(createCredentialFinder(detector).find(Buffer.from(t, 'latin1'))).toEqual(compiled.find(t));
    }
  });

  it('switches to the automaton once it has read 64 KiB and still finds credentials after that', () => {
    const f = createCredentialFinder(detector);
    const token = positives().find((p) => p.credentials.length === 1)!.text;
    const before = f.find(Buffer.from(token));
    expect(before).toHaveLength(1);
    f.find(Buffer.alloc(70 * 1024, 0x61));
    const after = f.find(Buffer.from(token));
    expect(after).toEqual(before);
  });
});
