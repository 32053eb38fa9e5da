// A form of a value matched across the edge of a JSON escape is not that value (fuzz finding F3): the
// body passes byte-exact and the gate finds nothing, while every occurrence that does start and end on
// escape boundaries is still replaced — at the levels the form itself is escaped to, in every body kind.

import { describe, expect, it } from 'vitest';
import { redactBody } from '../../src/redact/body.ts';
import { gateRequest } from '../../src/redact/gate.ts';
import { jsonEscape } from '../../src/redact/json-escape.ts';
import type { SecretSet } from '../../src/redact/secret-set.ts';
import { ph, testSet } from '../helpers/secret-set.ts';

type Kind = 'json' | 'text';

function run(set: SecretSet, body: string, kind: Kind = 'json'): { out: string; blocked: string[] } {
  const out = redactBody(set, Buffer.from(body), kind, new Map()).bytes;
  const blocked = gateRequest(set, { target: '/', headers: [], body: out, bodyKind: kind }).map((f) => set.names[f.secret] as string);
  return { out: out.toString(), blocked };
}

/** A JSON body whose message content is `text` (JSON.stringify writes the escapes). */
function message(text: string): string {
  return JSON.stringify({ messages: [{ role: 'user', content: text }] });
}

describe('a match across the edge of an escape', () => {
  // The three reproductions of fuzz finding F3 (escape-boundary/1242664039).
  const cases: Array<[string, string, string]> = [
    ['ends inside an escaped quote', 'tok-abcdefgh\\', message('say tok-abcdefgh" now')],
    ['starts inside a \\t escape', 'tabcdefgh1', message('col1\tabcdefgh1')],
    ['starts inside a \\u escape', 'u00e9-secret-1', '{"messages":[{"role":"user","content":"caf\\u00e9-secret-1"}]}'],
  ];
  for (const [what, value, body] of cases) {
    it(`is not the value when it ${what}: forwarded byte-exact, nothing blocked`, () => {
      const set = testSet({ VALUE: value });
      expect((JSON.parse(body) as { messages: Array<{ content: string }> }).messages[0]?.content).not.toContain(value);
      const { out, blocked } = run(set, body);
      expect(out).toBe(body);
      expect(blocked).toEqual([]);
    });
  }

  it('is not the value when it starts between the two \\u escapes of a surrogate pair', () => {
    // The value is text that reads like the second half of an escaped pair.
    const value = '\\udd11-secret-xy';
    const set = testSet({ VALUE: value });
    const body = '{"t":"key \\ud83d\\udd11-secret-xy"}';
    expect((JSON.parse(body) as { t: string }).t).toBe('key 🔑-secret-xy');
    expect(run(set, body)).toEqual({ out: body, blocked: [] });
  });

  it('is not the value for a form escaped once, read from inside an escape (any body kind)', () => {
    // The form once escaped is `nx\"abcdefg`; here it begins at the `n` of a `\n` escape.
    const value = 'nx"abcdefg';
    const set = testSet({ VALUE: value });
    const body = '{"t":"\\nx\\"abcdefg"}';
    expect((JSON.parse(body) as { t: string }).t).toBe('\nx"abcdefg');
    expect(run(set, body)).toEqual({ out: body, blocked: [] });
    // In text the bytes are read literally: `\nx\"abcdefg` does not hold the value either.
    expect(run(set, '\\nx\\"abcdefg', 'text')).toEqual({ out: '\\nx\\"abcdefg', blocked: [] });
  });

  it('is not the value for a form escaped twice that starts inside an escape of the inner level', () => {
    const value = 'nx"abcdefg';
    const set = testSet({ VALUE: value });
    const body = JSON.stringify({ t: JSON.stringify({ k: '\nx"abcdefg' }) });
    expect(body).toContain(jsonEscape(jsonEscape(value)));
    expect(run(set, body)).toEqual({ out: body, blocked: [] });
    // Inside the hex digits of a \u escape of the inner level.
    const quoted = 'u00e9-"secret';
    const uset = testSet({ VALUE: quoted });
    const ubody = JSON.stringify({ t: '{"k":"caf\\u00e9-\\"secret"}' });
    expect(ubody).toContain(jsonEscape(jsonEscape(quoted)));
    expect(run(uset, ubody)).toEqual({ out: ubody, blocked: [] });
  });
});

describe('a match on escape boundaries is still the value', () => {
  it('replaces a value right after a complete escape (\\n, \\\\, \\u00e9) and one ending in an escaped backslash', () => {
    const value = 'tok-abcdefgh1';
    const set = testSet({ VALUE: value, SLASHED: 'pw-abcdefgh\\' });
    for (const text of [`line\n${value}`, `C:\\${value}`, `café${value}`, 'say pw-abcdefgh\\ now', 'end pw-abcdefgh\\']) {
      for (const body of [message(text), message(text).replace('é', '\\u00e9')]) {
        const { out, blocked } = run(set, body);
        expect(blocked).toEqual([]);
        const content = (JSON.parse(out) as { messages: Array<{ content: string }> }).messages[0]?.content;
        expect(content).toBe(text.replace(value, ph(set, value)).replace('pw-abcdefgh\\', ph(set, 'pw-abcdefgh\\')));
      }
    }
  });

  it('replaces a value that crosses an escape only of JSON text nested in the string (that text is read as it is)', () => {
    // Level 1 holds `C:\tabcdefgh1`: prose such as a Windows path shows the value as written.
    const value = 'tabcdefgh1';
    const set = testSet({ VALUE: value });
    const body = message('path C:\\tabcdefgh1 ok');
    const { out, blocked } = run(set, body);
    expect(blocked).toEqual([]);
    expect((JSON.parse(out) as { messages: Array<{ content: string }> }).messages[0]?.content).toBe(`path C:\\${ph(set, value)} ok`);
  });

  it('replaces a raw match across an escape edge in a text body, where escapes are only characters', () => {
    const value = 'tabcdefgh1';
    const set = testSet({ VALUE: value });
    expect(run(set, 'col1\\tabcdefgh1', 'text')).toEqual({ out: `col1\\${ph(set, value)}`, blocked: [] });
  });

  it('finds a value twice escaped after a backslash written as \\u005c (the run of backslashes is longer once decoded)', () => {
    const value = 'nx"abcdefg';
    const set = testSet({ VALUE: value });
    // Level 1 reads {"k":"\\nx\"abcdefg"}: an escaped backslash, then the value escaped once.
    const body = '{"t":"{\\"k\\":\\"\\u005c\\\\nx\\\\\\"abcdefg\\"}"}';
    const inner = JSON.parse((JSON.parse(body) as { t: string }).t) as { k: string };
    expect(inner.k).toBe(`\\${value}`);
    expect(gateRequest(set, { target: '/', headers: [], body: Buffer.from(body), bodyKind: 'json' }).length).toBe(1);
    const { out, blocked } = run(set, body);
    expect(blocked).toEqual([]);
    expect((JSON.parse((JSON.parse(out) as { t: string }).t) as { k: string }).k).toBe(`\\${ph(set, value)}`);
  });

  it('blocks a raw match across an escape edge outside any string (not JSON string content)', () => {
    const value = 'tok-abcdefgh\\';
    const set = testSet({ VALUE: value });
    const body = '{"a":1} tok-abcdefgh\\"';
    expect(run(set, body).blocked).toEqual(['VALUE']);
  });
});
