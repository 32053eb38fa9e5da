// Unread look-alike delta events are recognised by the bytes around their delta string, and only when
// what lies between is plain JSON string content (anything else is parsed).

import { describe, expect, it } from 'vitest';
import { EventShapes } from '../../src/restore/event-shape.ts';

const ev = (text: string): string => `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${text}"}}\n\n`;

describe('event shapes', () => {
  const shapes = new EventShapes();
  const learned = Buffer.from(ev('hello'));
  const start = learned.indexOf('hello');
  const field = { key: '0', path: ['delta', 'text'], json: false };
  shapes.learn(learned, start, start + 5, field);

  it('recognises an event that differs only in its delta string, and says where it ends', () => {
    for (const text of ['', 'x', 'a \\"quoted\\" \\\\ \\u00e9\\n tab\\t', '日本語 😀']) {
      const region = Buffer.from(`${ev('first')}${ev(text)}`);
      const at = ev('first').length;
      const m = shapes.matchAt(region, at);
      expect(m, text).toEqual({ field, start: at + start, end: at + start + Buffer.byteLength(text), eventEnd: region.length });
    }
  });

  it('parses anything else: other bytes around, a raw control byte, an invalid escape, a string that closes early', () => {
    const others = [
      ev('x').replace('"index":0', '"index":1'),
      ev('x').replace('text_delta', 'thinking_delta'),
      ev('a\tb'),
      ev('a\\qb'),
      ev('a\\u12G4'),
      ev('a","type":"input_json_delta","partial_json":"b'),
      ev('x').slice(0, -3),
    ];
    for (const o of others) expect(shapes.matchAt(Buffer.from(o), 0), o).toBeUndefined();
  });
});
