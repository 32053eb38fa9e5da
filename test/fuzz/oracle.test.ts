// Checks the fuzz oracle itself, so a passing fuzz run means something: its placeholder derivation
// agrees with the proxy's, its decoders with JSON.parse and decodeURIComponent, its leak views find a
// value in every form the generators write, and its byte-identity check refuses a single changed byte.

import { describe, expect, it } from 'vitest';
import { derivePlaceholder } from '../../src/redact/placeholder.ts';
import { createJsonLexer } from '../../src/restore/json-lexer.ts';
import { percentEncode } from './gen/encodings.ts';
import { encodeContent, writeJson, PLAIN_STYLE, type JNode, type StringStyle } from './gen/json-writer.ts';
import { drawValues } from './gen/values.ts';
import { alignRegions } from './oracle/align.ts';
import { percentDecode, unescapeStrict } from './oracle/decode.ts';
import { lexJson } from './oracle/json-lexer.ts';
import { findLeaks } from './oracle/leak-views.ts';
import { depthAfter, occurrenceDepths } from './oracle/placeholder-depth.ts';
import { createPlaceholderMap, placeholderFor } from './oracle/placeholder-map.ts';
import { spanEncodes } from './oracle/region-decoders.ts';
import { checkRequest, type SentRequest } from './oracle/request-check.ts';
import { createRng } from './rng.ts';

const STYLES: StringStyle[] = [
  PLAIN_STYLE,
  { unicodeShare: 1, hex: 'upper', slashShare: 1, asciiOnly: true, longFormShare: 1 },
  { unicodeShare: 0.5, hex: 'mixed', slashShare: 0.5, asciiOnly: false, longFormShare: 0.5 },
];

/** `value` as a string nested `depth` levels deep in JSON text, with a style per level. */
function nestedDoc(seed: number, value: string, depth: number, styles = STYLES): string {
  let node: JNode = { t: 'str', s: `before ${value} after` };
  for (let d = 1; d < depth; d++) node = { t: 'json', doc: { t: 'obj', entries: [['k', node]] } };
  const rng = createRng(seed);
  return writeJson(rng, { t: 'obj', entries: [['m', node]] }, { styles: [0, 1, 2, 3, 4, 5, 6, 7].map(() => rng.pick(styles)), spacing: 'random' });
}

describe('fuzz oracle', () => {
  it('derives the same placeholders as the proxy', () => {
    const rng = createRng(1);
    for (let i = 0; i < 200; i++) {
      const key = Buffer.from(Array.from({ length: 32 }, () => rng.int(0, 255)));
      for (const v of drawValues(rng, 3)) expect(placeholderFor(key, v)).toBe(derivePlaceholder(key, v));
    }
  });

  it('decodes string content exactly as JSON.parse does, and refuses invalid content', () => {
    const rng = createRng(2);
    for (let i = 0; i < 500; i++) {
      const s = drawValues(rng, 1)[0] as string;
      const content = encodeContent(rng, s, rng.pick(STYLES));
      expect(unescapeStrict(content)).toBe(JSON.parse(`"${content}"`));
    }
    for (const bad of ['a"b', 'a\\x', '\\u12', 'tab\there', '\\']) expect(unescapeStrict(bad)).toBeUndefined();
  });

  it('percent-decodes every encoding variant back to the value', () => {
    const rng = createRng(3);
    for (let i = 0; i < 300; i++) {
      const v = drawValues(rng, 1)[0] as string;
      const mode = rng.pick(['component', 'lower', 'all', 'form', 'mixed'] as const);
      expect(percentDecode(percentEncode(rng, v, mode), true)).toBe(v);
    }
  });

  it('agrees with JSON.parse on what is valid JSON, for documents and for damaged copies', () => {
    const rng = createRng(4);
    for (let i = 0; i < 300; i++) {
      const doc = nestedDoc(i, drawValues(rng, 1)[0] as string, rng.int(1, 4));
      expect(lexJson(doc).ok).toBe(true);
      const at = rng.int(0, doc.length - 1);
      const damaged = doc.slice(0, at) + rng.pick(['"', '\\', '}', ',', 'x', '']) + doc.slice(at + 1);
      let valid = true;
      try {
        JSON.parse(damaged);
      } catch {
        valid = false;
      }
      expect(lexJson(damaged).ok, damaged).toBe(valid);
    }
  });

  it('finds a value written at any string depth up to 8, in any escape style, and percent-encoded', () => {
    const rng = createRng(5);
    for (let i = 0; i < 60; i++) {
      const v = drawValues(rng, 1)[0] as string;
      const depth = rng.int(1, i < 50 ? 5 : 8);
      expect(findLeaks(['unrelated-value-x', v], [{ where: 'body', bytes: Buffer.from(nestedDoc(i, v, depth)) }]).map((l) => l.valueIndex)).toEqual([1]);
      const pct = percentEncode(rng, v, rng.pick(['component', 'lower', 'all', 'form', 'mixed'] as const));
      expect(findLeaks([v], [{ where: 'q', bytes: Buffer.from(`a=1&k=${pct}`) }]).length).toBe(1);
    }
  });

  it('reads a JSON body\'s raw text across an escape edge as not the value, and everything else as it is', () => {
    const find = (values: string[], body: string, json?: 'json' | 'jsonl'): number[] =>
      findLeaks(values, [{ where: 'body', bytes: Buffer.from(body), ...(json === undefined ? {} : { json }) }]).map((l) => l.valueIndex);
    const across = [
      ['tok-abcdefgh\\', '{"t":"say tok-abcdefgh\\" now"}'],
      ['tabcdefgh1', '{"t":"col1\\tabcdefgh1"}'],
      ['u00e9-secret-1', '{"t":"caf\\u00e9-secret-1"}'],
    ] as const;
    for (const [v, body] of across) {
      expect(find([v], body, 'json')).toEqual([]);
      expect(find([v], `${body}\n${body}\n`, 'jsonl')).toEqual([]);
      // Not declared JSON, or not JSON at all: the raw bytes count.
      expect(find([v], body)).toEqual([0]);
      expect(find([v], `${body}}`, 'json')).toEqual([0]);
    }
    // On escape boundaries, outside strings, or once more elsewhere in the body: a leak.
    expect(find(['tabcdefgh1'], '{"t":"C:\\\\tabcdefgh1"}', 'json')).toEqual([0]);
    expect(find(['tabcdefgh1'], '{"t":"col1\\tabcdefgh1","u":"tabcdefgh1"}', 'json')).toEqual([0]);
    expect(find(['tabcdefgh1'], '{"t":"col1\\tabcdefgh1","tabcdefgh1":1}', 'json')).toEqual([0]);
    expect(find(['1234567890'], '{"t":"\\t","n":1234567890}', 'json')).toEqual([0]);
  });

  it('finds nothing where every value was replaced by its placeholder', () => {
    const rng = createRng(6);
    const key = Buffer.alloc(32, 9);
    for (let i = 0; i < 100; i++) {
      const v = drawValues(rng, 1)[0] as string;
      const doc = nestedDoc(i, placeholderFor(key, v), rng.int(1, 6));
      expect(findLeaks([v], [{ where: 'body', bytes: Buffer.from(doc) }])).toEqual([]);
    }
  });

  it('accepts a correct redaction and refuses one changed byte outside the secret', () => {
    const rng = createRng(7);
    const key = Buffer.alloc(32, 3);
    for (let i = 0; i < 200; i++) {
      const [v] = drawValues(rng, 1) as [string];
      const map = createPlaceholderMap(key, [v]);
      const p = map.placeholders[0] as string;
      const depth = rng.int(1, 5);
      // The value's span: escaped once per level, each level in its own style (escape-building included).
      let span = v;
      for (let d = 0; d < depth; d++) span = encodeContent(rng, span, rng.pick(STYLES));
      const [before, after] = nestedDoc(i, 'MARKERXYZ', depth, [PLAIN_STYLE]).split('MARKERXYZ') as [string, string];
      const original = Buffer.from(before + span + after).toString('latin1');
      const forwarded = Buffer.from(before + p + after).toString('latin1');
      const tokensOf = (text: string) => map.find(text).map((o) => ({ start: o.start, end: o.end, accept: (s: string) => spanEncodes(s, o.value) }));
      expect(alignRegions(forwarded, original, tokensOf(forwarded), 20_000).ok).toBe(true);
      let at = rng.int(0, forwarded.length - 1);
      const start = forwarded.indexOf(p);
      if (at >= start && at < start + p.length) at = start + p.length < forwarded.length ? start + p.length : 0;
      const flipped = forwarded.slice(0, at) + String.fromCharCode(forwarded.charCodeAt(at) ^ 1) + forwarded.slice(at + 1);
      expect(alignRegions(flipped, original, tokensOf(flipped), 20_000).ok).toBe(false);
      // A span that decodes to another value is refused too.
      const wrong = Buffer.from(before + encodeContent(rng, `${v}x`, PLAIN_STYLE) + after).toString('latin1');
      expect(alignRegions(forwarded, wrong, tokensOf(forwarded), 20_000).ok).toBe(false);
    }
  });

  it('says at which string depth each placeholder sits, whatever the escape style', () => {
    const key = Buffer.alloc(32, 4);
    const map = createPlaceholderMap(key, ['a-registered-value']);
    const p = map.placeholders[0] as string;
    for (let depth = 1; depth <= 8; depth++) {
      // Placeholders are never escaped by a provider (their characters need none): plain style only.
      expect(occurrenceDepths(nestedDoc(depth, p, depth, [PLAIN_STYLE]), map, 'json')).toEqual([depth]);
      expect(occurrenceDepths(`[prose "${p}" not json`, map, 'prefix')).toEqual([0]);
    }
  });

  it('reads depth by the forward prefix rule: JSON text while valid so far, prose from the first violation', () => {
    const key = Buffer.alloc(32, 4);
    const map = createPlaceholderMap(key, ['a-registered-value']);
    const p = map.placeholders[0] as string;
    const at = (text: string, reading: 'prefix' | 'json' = 'prefix'): number[] => occurrenceDepths(text, map, reading);
    // Valid so far at the placeholder: JSON text, whatever follows it.
    expect(at(`["${p}" and then prose`)).toEqual([1]);
    expect(at(`{"k": "unterminated ${p}`)).toEqual([1]);
    expect(at(` \n\t{"k":"${p}"}`)).toEqual([1]);
    expect(at(`[1, -2.5e3, true, null, "${p}"]`)).toEqual([1]);
    // A violation before it: prose from there on, also for later placeholders.
    expect(at(`["${p}", oops "${p}"]`)).toEqual([1, 0]);
    expect(at(`[note: "${p}"]`)).toEqual([0]);
    expect(at(`[01, "${p}"]`)).toEqual([0]);
    expect(at(`[-, "${p}"]`)).toEqual([0]);
    expect(at(`{"a":1} {"b":"${p}"}`)).toEqual([0]);
    expect(at(`["bad \\q escape", "${p}"]`)).toEqual([0]);
    expect(at(`["raw\ttab", "${p}"]`)).toEqual([0]);
    // Only `{` or `[` opens JSON text in prose; a document declared JSON may be any value.
    expect(at(`"${p}"`)).toEqual([0]);
    expect(at(`"${p}"`, 'json')).toEqual([1]);
    // Keys are strings at their level, never JSON text; a placeholder after a lone backslash breaks the escape.
    expect(at(`{"${p}": 1}`)).toEqual([1]);
    expect(at(`{"{\\"a\\":\\"${p}\\"}": 1}`)).toEqual([1]);
    expect(at(`["a\\${p}"]`)).toEqual([0]);
    // Nested JSON text, by the same rule at each level.
    expect(at(JSON.stringify({ a: JSON.stringify({ b: p }) }))).toEqual([2]);
    expect(at(JSON.stringify({ a: `["${p}" then prose` }))).toEqual([2]);
    expect(at(JSON.stringify({ a: `[x "${p}"` }))).toEqual([1]);
    expect(at(JSON.stringify({ a: JSON.stringify({ b: JSON.stringify([p]) }) }))).toEqual([3]);
  });

  it('agrees with the proxy\'s lexer on hostile text, as text and nested in a JSON string', () => {
    // The one place the oracle meets src/restore: a differential check of the two independent readings.
    const rng = createRng(12);
    const bits = ['"', '\\', '[', ']', '{', '}', ':', ',', ' ', '\t', '\n', 'x', '1', '-', '0', 'true', 'nul', '\\"', '\\u00', '\\u0022', '\\q', '\\n', '~'];
    const lexed = (text: string, start: 'value' | 'structured'): number[] => {
      const buf = Buffer.from(text);
      const lexer = createJsonLexer(start);
      const out: number[] = [];
      let pos = 0;
      for (let i = buf.indexOf(0x7e); i !== -1; i = buf.indexOf(0x7e, i + 1)) {
        lexer.advance(buf, pos, i + 1);
        pos = i + 1;
        out.push(lexer.isProse ? 0 : lexer.depth());
      }
      return out;
    };
    const oracle = (text: string, start: 'value' | 'structured'): number[] => [...text.matchAll(/~/g)].map((m) => depthAfter(text.slice(0, m.index), start));
    for (let i = 0; i < 2000; i++) {
      let text = rng.pick(['[', '{', '["', '{"k":"', ' [', '']);
      for (let k = rng.int(1, 24); k > 0; k--) text += rng.pick(bits);
      expect(lexed(text, 'structured'), JSON.stringify(text)).toEqual(oracle(text, 'structured'));
      const doc = JSON.stringify({ s: text });
      expect(lexed(doc, 'value'), JSON.stringify(text)).toEqual(oracle(doc, 'value'));
    }
  });

  it('never lets what follows a placeholder change its depth', () => {
    const key = Buffer.alloc(32, 4);
    const map = createPlaceholderMap(key, ['a-registered-value']);
    const p = map.placeholders[0] as string;
    const rng = createRng(11);
    const bits = ['"', '\\', '[', ']', '{', '}', ':', ',', ' ', 'x', '1', 'true', '\\"', '\\u00', '\n'];
    for (let i = 0; i < 300; i++) {
      let before = '';
      for (let k = rng.int(0, 12); k > 0; k--) before += rng.pick(bits);
      const depth = occurrenceDepths(`${before}${p}`, map, 'prefix');
      let after = '';
      for (let k = rng.int(1, 12); k > 0; k--) after += rng.pick(bits);
      expect(occurrenceDepths(`${before}${p}${after}`, map, 'prefix').slice(0, 1)).toEqual(depth);
    }
  });
});

describe('oracle: credentials the proxy detected around registered values', () => {
  const key = Buffer.alloc(32, 5);
  const v = 'sk-proj-DKl03S0WbrflGNHw6f';
  const map = createPlaceholderMap(key, [v]);
  const sent: SentRequest = { method: 'POST', routeTarget: '/v1/x', headers: [['content-type', 'application/json']], decodedBody: Buffer.from(`{"a":"x ${v}${v} y"}`), json: 'json' };
  const check = (body: string, original = sent): boolean =>
    checkRequest(map, original, { status: 200, responseBody: Buffer.alloc(0), forwarded: [{ method: 'POST', target: '/v1/x', rawHeaders: ['content-type', 'application/json'], body: Buffer.from(body) }], logs: [] }, '', new Set()).ok;

  it('accepts a run of registered values replaced by the keyed placeholder of the whole run', () => {
    expect(check(`{"a":"x ${placeholderFor(key, v + v)} y"}`)).toBe(true);
    expect(check(`{"a":"x ${placeholderFor(key, v)}${placeholderFor(key, v)} y"}`)).toBe(true);
  });

  it('refuses a placeholder that swallowed other text, stands for another text, or holds no registered value', () => {
    expect(check(`{"a":"${placeholderFor(key, `x ${v}${v}`)} y"}`)).toBe(false);
    expect(check(`{"a":"x ${placeholderFor(key, `${v}${v}z`)} y"}`)).toBe(false);
    // A credential-shaped word that holds no registered value is not the oracle's to excuse.
    const other = 'sk-proj-0therW0rdNotRegistered';
    const withOther: SentRequest = { ...sent, decodedBody: Buffer.from(`{"a":"${other} y"}`) };
    expect(check(`{"a":"${other} y"}`, withOther)).toBe(true);
    expect(check(`{"a":"${placeholderFor(key, other)} y"}`, withOther)).toBe(false);
  });
});
