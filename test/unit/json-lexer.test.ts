// The forward JSON lexer: exact string depth at every `~` in nested JSON text, validation that turns
// invalid JSON text into prose, the depth limit, and the same answers however the input is chunked.

import { describe, expect, it } from 'vitest';
import { createJsonLexer, DEPTH_UNKNOWN, MAX_CONTAINER_DEPTH, MAX_STRING_DEPTH, type LexStart } from '../../src/restore/json-lexer.ts';
import { mulberry32 } from '../../src/util/prng.ts';

/** The depth at every `~` in `doc`, feeding it in pieces of at most `piece` bytes (0: whole). */
function depths(doc: string | Buffer, start: LexStart, piece = 0, seed = 1): number[] {
  const buf = Buffer.isBuffer(doc) ? doc : Buffer.from(doc);
  const lexer = createJsonLexer(start);
  const rand = mulberry32(seed);
  const out: number[] = [];
  let pos = 0;
  const feedTo = (to: number): void => {
    while (pos < to) {
      const n = piece === 0 ? to - pos : Math.min(to - pos, 1 + Math.floor(rand() * piece));
      lexer.advance(buf, pos, pos + n);
      pos += n;
    }
  };
  for (let i = buf.indexOf(0x7e); i !== -1; i = buf.indexOf(0x7e, i + 1)) {
    feedTo(i + 1);
    out.push(lexer.isProse ? 0 : lexer.depth());
  }
  return out;
}

/** A JSON document with `~` at known depths: JSON text nested in strings `levels` deep, a marker at each level. */
function nested(levels: number): { doc: string; want: number[] } {
  let inner: unknown = { at: `~${levels}` };
  const want = [levels];
  for (let d = levels - 1; d >= 1; d--) {
    inner = { at: `~${d}`, text: JSON.stringify(inner), list: [1, true, null, -2.5e3] };
    want.unshift(d);
  }
  return { doc: JSON.stringify(inner), want };
}

describe('JSON lexer: string depth', () => {
  it('knows the depth inside JSON text nested in strings, level by level', () => {
    for (let levels = 1; levels <= MAX_STRING_DEPTH; levels++) {
      const { doc, want } = nested(levels);
      expect(depths(doc, 'value')).toEqual(want);
    }
  });

  it('reports an unknown depth inside JSON text nested past the limit', () => {
    const { doc } = nested(MAX_STRING_DEPTH + 2);
    const got = depths(doc, 'value');
    expect(got.slice(0, MAX_STRING_DEPTH)).toEqual(Array.from({ length: MAX_STRING_DEPTH }, (_, i) => i + 1));
    expect(got.slice(MAX_STRING_DEPTH)).toEqual([DEPTH_UNKNOWN, DEPTH_UNKNOWN]);
  });

  it('treats string content as JSON text only while it is valid JSON', () => {
    const cases: Array<[string, number]> = [
      ['[note: "~', 1], // `n` starts null, `o` breaks it
      ['[1, "~', 2],
      ['{"a": "b"} then "~', 1], // text after the value
      ['  \n{"k": ["x", {"y": "~', 2],
      ['{"k": tru "~', 1],
      ['{"k": 01, "~', 1], // leading zero
      ['{"k": -1.5e+3, "~', 2],
      ['{"k" "~', 1], // missing colon
      ['{"\\u007e": "~', 2], // escapes inside nested strings decode before the nested lexer reads them
      ['{~', 1],
      ['x {"a": "~', 1],
      ['"~', 1], // a nested string alone is not JSON text here: only `{` and `[` start it
    ];
    for (const [content, want] of cases) {
      const doc = JSON.stringify({ s: content });
      expect(depths(doc, 'value'), content).toEqual([want]);
    }
  });

  it('holds text that may be JSON to the full grammar: raw control characters in strings and invalid escapes anywhere are violations', () => {
    const cases: Array<[string, number]> = [
      ['["a\tb", "~', 1], // a raw TAB inside a nested string
      ['{"k": "line\nbreak ~', 1], // a raw LF inside the string the placeholder is in
      ['["a \\q", "~', 1], // an invalid escape inside a nested prose string
      ['{"a\\q": "~', 1], // an invalid escape inside a key
      ['["\\u12g4", "~', 1],
      ['[\t"ok",\n"~', 2], // blanks between tokens are fine
      ['["a\\tb \\u00e9", "~', 2], // valid escapes are fine
    ];
    for (const [content, want] of cases) {
      const doc = JSON.stringify({ s: content });
      expect(depths(doc, 'value'), content).toEqual([want]);
      for (const piece of [1, 3]) expect(depths(doc, 'value', piece), content).toEqual([want]);
    }
    // A body that may be JSON (`structured`) likewise; one declared JSON keeps its own strings as sent.
    for (const body of ['["a\nb", "~"]', '["a \\q", "~"]', '{"a\\q": 1, "b": "~"}']) {
      expect(depths(body, 'structured'), body).toEqual([0]);
      expect(depths(body, 'structured', 1), body).toEqual([0]);
      expect(depths(body, 'value'), body).toEqual([1]);
    }
  });

  it('decodes every escape form the nested lexer depends on (\\u escapes build quotes and backslashes)', () => {
    // The string content is `["a", "~` written with \u escapes for its quotes: valid JSON text, depth 2.
    expect(depths('{"s":"[\\u0022a\\u0022, \\u0022~"}', 'value')).toEqual([2]);
    // `\u005c` is a backslash: `\u005c\u0022` is an escaped quote inside the nested string, still depth 2.
    expect(depths('{"s":"[\\"a\\u005c\\u0022 ~"}', 'value')).toEqual([2]);
    // An escaped quote that ends the nested string: `["a" ~` breaks the JSON text (prose), depth 1.
    expect(depths('{"s":"[\\"a\\" ~"}', 'value')).toEqual([1]);
  });

  it('starts a body as JSON only on `{` or `[` when told `structured`', () => {
    expect(depths('plain "text" ~', 'structured')).toEqual([0]);
    expect(depths(' [{"a":"~"}]', 'structured')).toEqual([1]);
    expect(depths('"~"', 'structured')).toEqual([0]);
    expect(depths('"~"', 'value')).toEqual([1]);
    expect(depths('{"a":1} ~', 'value')).toEqual([0]);
    expect(depths('{"a":~}', 'value')).toEqual([0]);
  });

  it('gives the same answers however the input is chunked', () => {
    const rand = mulberry32(99);
    const alphabet = ['{', '}', '[', ']', '"', '\\', ':', ',', ' ', 'a', '1', '~', 'n', 'u', '0', '7', 'e', '\\"', '\\\\', '\\u0022', '\\u005c', 'true', '-', '\t', '\n', '\\q', '\\t'];
    for (let round = 0; round < 300; round++) {
      let s = '';
      const len = 5 + Math.floor(rand() * 120);
      for (let k = 0; k < len; k++) s += alphabet[Math.floor(rand() * alphabet.length)];
      for (const start of ['value', 'structured'] as const) {
        const whole = depths(s, start);
        expect(depths(s, start, 1), s).toEqual(whole);
        expect(depths(s, start, 7, round), s).toEqual(whole);
      }
    }
    for (let levels = 1; levels <= MAX_STRING_DEPTH + 1; levels++) {
      const { doc } = nested(levels);
      const whole = depths(doc, 'value');
      expect(depths(doc, 'value', 1)).toEqual(whole);
      expect(depths(doc, 'value', 13, levels)).toEqual(whole);
    }
  });

  it('reads a long prose string and many placeholders in one JSON-text string in one pass', () => {
    const text = JSON.stringify({ k: Array.from({ length: 5000 }, (_, i) => `v${i} ~`).join(' ') });
    const doc = JSON.stringify({ pad: 'x'.repeat(200_000), args: text });
    const got = depths(doc, 'value');
    expect(got.length).toBe(5000);
    expect(new Set(got)).toEqual(new Set([2]));
  });
});

describe('JSON lexer: bounded state', () => {
  it('reports an unknown depth past MAX_CONTAINER_DEPTH open containers instead of growing without bound', () => {
    const deep = Buffer.from(`${'['.repeat(MAX_CONTAINER_DEPTH + 5)}"~"`);
    expect(depths(deep, 'value')).toEqual([DEPTH_UNKNOWN]);
    const nestedInString = Buffer.from(JSON.stringify({ s: `${'['.repeat(MAX_CONTAINER_DEPTH + 5)}"~` }));
    expect(depths(nestedInString, 'value')).toEqual([DEPTH_UNKNOWN]);
    expect(depths(`${'['.repeat(1000)}"~"`, 'value')).toEqual([1]);
  });
});
