import { describe, expect, it } from 'vitest';
import { sniffBody, SNIFF_MAX_BYTES } from '../../src/server/body-sniff.ts';

const b = (s: string): Buffer => Buffer.from(s, 'latin1');

describe('sniffing a body without content-type', () => {
  it('waits for enough bytes instead of deciding on the first chunk', () => {
    for (const head of ['', ' ', '\n\r\n', 'e', 'ev', 'even', 'event', 'd', 'dat', 'data', 'i', 'id', 'r', 'retr', '\ufeff', ':', ': ping', ': ping\n', ': ping\r\nda']) {
      expect(sniffBody(Buffer.from(head), false), JSON.stringify(head)).toBeUndefined();
    }
  });

  it('recognises SSE by its first line: a comment or a field name followed by a colon or the line end', () => {
    for (const head of [': ping\n\n', ': ping\r\n\r\n', ': OPENROUTER PROCESSING\n\ndata: {}', ':\n: again\ndata: x', 'data:', 'data: {"a":1}', 'data\n', 'event: x', 'id:1', 'retry: 10', '\n\ndata: x', '\ufeffdata: x', 'data\r\n']) {
      expect(sniffBody(Buffer.from(head), false), JSON.stringify(head)).toBe('sse');
    }
  });

  it('calls anything else a body (the JSON lexer then decides JSON or text)', () => {
    for (const head of ['{', '[', ' {"a"', '"x"', '12', 'date: today', 'datas', 'hello', 'eventually', 'identity', '<html>', ": it's\nplain text", ':)\nsmile']) {
      expect(sniffBody(Buffer.from(head), false), JSON.stringify(head)).toBe('body');
    }
  });

  it('decides at the end of the body or past the bound, whatever it has', () => {
    expect(sniffBody(b('da'), true)).toBe('body');
    expect(sniffBody(b('data'), true)).toBe('body');
    expect(sniffBody(b('data: x'), true)).toBe('sse');
    expect(sniffBody(b(": it's a+b, plain"), true)).toBe('body');
    expect(sniffBody(b(''), true)).toBe('body');
    expect(sniffBody(Buffer.alloc(SNIFF_MAX_BYTES, 0x20), false)).toBe('body');
  });
});
