import { describe, expect, it } from 'vitest';
import { INVISIBLE_SAMPLES, proseDocument, rng } from '../../fixtures/watermark/corpus.ts';
import { formatFrame } from '../../src/watermark/frame.ts';
import { createFrameStripper, findFrames, stripFrames, stripFramesFromText } from '../../src/watermark/strip.ts';

const F1 = formatFrame({ index: 3, value: 0xa7 });
const F2 = formatFrame({ index: 4, value: 0x0f });
const escape1 = (s: string) => s.replace(/[\u2060\ufe00-\ufe0f]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);

/** Whole, seeded random chunking (8 seeds), one byte at a time. */
function chunkings(b: Buffer): Array<[string, Buffer[]]> {
  const out: Array<[string, Buffer[]]> = [['whole', [b]]];
  for (let seed = 1; seed <= 8; seed++) {
    const r = rng(seed);
    const parts: Buffer[] = [];
    for (let at = 0; at < b.length; ) {
      const n = 1 + Math.floor(r() * (seed % 2 === 0 ? 7 : 40));
      parts.push(b.subarray(at, at + n));
      at += n;
    }
    out.push([`random#${seed}`, parts]);
  }
  out.push(['bytes', [...b].map((x) => Buffer.from([x]))]);
  return out;
}

function streamStrip(parts: Buffer[]): { out: Buffer; maxCarry: number } {
  const s = createFrameStripper();
  const outs: Buffer[] = [];
  let maxCarry = 0;
  for (const p of parts) {
    outs.push(s.push(Buffer.from(p)));
    maxCarry = Math.max(maxCarry, s.pending);
  }
  outs.push(s.flush());
  return { out: Buffer.concat(outs), maxCarry };
}

describe('stripFrames', () => {
  it('removes raw frames and leaves the text around them byte-identical', () => {
    const text = `First line.${F1}\nSecond line!${F2}\nThird.`;
    expect(stripFramesFromText(text)).toBe('First line.\nSecond line!\nThird.');
    expect(stripFrames(Buffer.from(text)).toString()).toBe('First line.\nSecond line!\nThird.');
  });

  it('removes \\u-escaped frames in JSON, once and twice escaped (JSON text inside a JSON string)', () => {
    const inner = JSON.stringify({ content: `Edited.${F1}\nDone.` });
    const once = escape1(JSON.stringify({ text: `Edited.${F1}\nDone.` }));
    const twice = JSON.stringify({ partial_json: escape1(inner) });
    expect(JSON.parse(stripFrames(Buffer.from(once)).toString())).toEqual({ text: 'Edited.\nDone.' });
    expect(JSON.parse(JSON.parse(stripFrames(Buffer.from(twice)).toString()).partial_json)).toEqual({ content: 'Edited.\nDone.' });
    expect(stripFrames(Buffer.from(escape1(`a${F1}b`).toUpperCase().replace(/\\U/g, '\\u'))).toString()).toBe('AB');
  });

  it('removes truncated frames (U+2060 followed by 1–3 digits) but never a lone U+2060', () => {
    expect(stripFramesFromText(`cut${F1.slice(0, 3)}\nnext`)).toBe('cut\nnext');
    expect(stripFramesFromText('no\u2060break')).toBe('no\u2060break');
  });

  it('leaves ZWJ emoji, ZWNJ in Persian and Indic text, CJK variation sequences and other invisibles untouched (same object)', () => {
    for (const [name, sample] of Object.entries(INVISIBLE_SAMPLES)) {
      const b = Buffer.from(sample);
      expect(stripFrames(b), name).toBe(b);
      expect(stripFramesFromText(sample), name).toBe(sample);
      const escaped = Buffer.from(JSON.stringify(sample).replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
      expect(stripFrames(escaped), name).toBe(escaped);
      // …and next to a frame, only the frame goes.
      expect(stripFramesFromText(`${sample}${F1}\n${sample}`), name).toBe(`${sample}\n${sample}`);
    }
  });

  it('does not treat an escaped backslash before u2060 as an escape (literal "\\\\u2060" text stays)', () => {
    const literal = Buffer.from(JSON.stringify({ text: 'write \\\\u2060\\\\ufe00 in a string' }).replace('\\\\\\\\u', '\\\\\\\\\\\\u'));
    expect(stripFrames(literal)).toBe(literal);
    const fourBackslashes = Buffer.from('"x\\\\\\\\u2060\\\\\\\\ufe01"');
    expect(stripFrames(fourBackslashes)).toBe(fourBackslashes);
  });
});

describe('createFrameStripper', () => {
  const doc = proseDocument(6000, 9);
  const lines = doc.split('\n');
  const marked = lines.map((l, i) => (i % 7 === 3 ? l + formatFrame({ index: i % 16, value: (i * 37) & 255 }) : l)).join('\n');
  const sse = [marked.slice(0, 2000), marked.slice(2000, 4000), marked.slice(4000)]
    .map((text, i) => `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text }, n: i })}\n\n`)
    .join('');
  const fixtures: Array<[string, Buffer, Buffer]> = [
    ['raw SSE', Buffer.from(sse), Buffer.from(stripFramesFromText(sse))],
    ['escaped SSE', Buffer.from(escape1(sse)), Buffer.from(stripFramesFromText(sse))],
    ['twice-escaped JSON', Buffer.from(JSON.stringify(escape1(JSON.stringify(marked)))), Buffer.from(JSON.stringify(JSON.stringify(stripFramesFromText(marked))))],
  ];

  for (const [name, input, expected] of fixtures) {
    it(`strips ${name} identically whole, in random chunks and one byte at a time, carrying ≤ 35 bytes`, () => {
      expect(expected.includes('\u2060')).toBe(false);
      for (const [how, parts] of chunkings(input)) {
        const { out, maxCarry } = streamStrip(parts);
        expect(out.equals(expected), `${name} ${how}`).toBe(true);
        expect(maxCarry, `${name} ${how}`).toBeLessThanOrEqual(35);
      }
    });
  }

  it('passes a chunk without frame bytes through as the same Buffer (zero copy)', () => {
    const s = createFrameStripper();
    const chunk = Buffer.from(`data: ${JSON.stringify({ text: `${INVISIBLE_SAMPLES.zwjEmoji} — “quoted” 12060` })}\n\n`);
    expect(s.push(chunk)).toBe(chunk);
    expect(s.flush().length).toBe(0);
  });

  it('holds back at most a frame and releases a lone U+2060 at the end of the stream', () => {
    const s = createFrameStripper();
    const out = [s.push(Buffer.from('tail\u2060')), s.flush()];
    expect(out[0]!.toString()).toBe('tail');
    expect(Buffer.concat(out).toString()).toBe('tail\u2060');
  });
});

describe('frames split across SSE events', () => {
  it('are left by the byte stripper at a JSON string end and removed whole by the delta stripper', () => {
    const events = [`Hello there.${F1.slice(0, 2)}`, `${F1.slice(2)}\nNext.`].map((text) => `data: ${JSON.stringify({ delta: { text } })}\n\n`);
    const bytes = stripFrames(Buffer.from(events.join('')));
    expect(bytes.toString()).toBe(events.join(''));
    // The restorer runs a byte stripper over each delta stream's decoded string bytes.
    const s = createFrameStripper();
    const texts = bytes
      .toString()
      .split('\n\n')
      .filter((e) => e !== '')
      .map((e) => s.push(Buffer.from(JSON.parse(e.slice(6)).delta.text)).toString());
    expect(texts.join('') + s.flush().toString()).toBe('Hello there.\nNext.');
  });
});

describe('createFrameStripper over one delta stream', () => {
  it('removes a frame a model split across SSE events, and nothing else', () => {
    const deltas = ['Hello there.', F1.slice(0, 2), F1.slice(2), '\nA ❤', '\ufe0f heart ', 'and', F2.slice(0, 1), F2.slice(1, 4), F2.slice(4), ' more'];
    const s = createFrameStripper();
    const out = Buffer.concat([...deltas.map((d) => s.push(Buffer.from(d))), s.flush()]).toString();
    expect(out).toBe('Hello there.\nA ❤\ufe0f heart and more');
  });

  it('removes escaped frames split across partial_json deltas', () => {
    const json = escape1(JSON.stringify({ path: 'a.md', content: `Line one.${F1}\nLine two.` }));
    const s = createFrameStripper();
    const bytes = Buffer.from(json);
    const parts: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += 3) parts.push(s.push(bytes.subarray(i, i + 3)));
    const out = Buffer.concat([...parts, s.flush()]).toString();
    expect(JSON.parse(out)).toEqual({ path: 'a.md', content: 'Line one.\nLine two.' });
  });
});

describe('findFrames', () => {
  it('reports each frame with its nibbles', () => {
    expect(findFrames(`a${F1}b${escape1(F2)}`).map((f) => f.digits)).toEqual([
      [3, 0xa, 0x7, F1.charCodeAt(4) - 0xfe00],
      [4, 0x0, 0xf, F2.charCodeAt(4) - 0xfe00],
    ]);
  });
});
