import { describe, expect, it } from 'vitest';
import { createBodyRestorer } from '../../src/restore/body-restorer.ts';
import { createJsonLexer } from '../../src/restore/json-lexer.ts';
import { createRestoreStats } from '../../src/restore/restore-bytes.ts';
import { runThrough, splits } from '../helpers/chunking.ts';
import { ph, testSet } from '../helpers/secret-set.ts';
import { anthropicJson, chatJson, responsesJson } from '../helpers/wire.ts';

const PLAIN = 'sk-ant-api03-AbCdEfGhIjKlMnOp';
const WEIRD = 'pa"ss\\wörd\n-x1 🔑\u2028';
const set = testSet({ PLAIN, WEIRD });
const P = ph(set, PLAIN);
const W = ph(set, WEIRD);

function restoreJson(text: string, split = splits()[0]!): { out: string; misses: number } {
  const stats = createRestoreStats();
  const out = runThrough(() => createBodyRestorer(set, 'json', stats), Buffer.from(text), split);
  return { out: out.toString('utf8'), misses: stats.misses };
}

describe('JSON restore', () => {
  const reply = { text: `use ${P} and ${W}`, tool: { name: 'write_file', input: { content: `A=${W}\nB=${P}`, nested: { deep: [W] } } } };

  for (const split of splits()) {
    it(`restores Anthropic text and tool_use input with values escaped for their context (${split.name})`, () => {
      const { out } = restoreJson(JSON.stringify(anthropicJson(reply)), split);
      const msg = JSON.parse(out);
      expect(msg.content[0].text).toBe(`use ${PLAIN} and ${WEIRD}`);
      expect(msg.content[1].input).toEqual({ content: `A=${WEIRD}\nB=${PLAIN}`, nested: { deep: [WEIRD] } });
    });

    it(`restores Chat tool-call arguments (JSON text in a string) to valid JSON equal to the original (${split.name})`, () => {
      const { out } = restoreJson(JSON.stringify(chatJson(reply)), split);
      const msg = JSON.parse(out);
      expect(msg.choices[0].message.content).toBe(`use ${PLAIN} and ${WEIRD}`);
      expect(JSON.parse(msg.choices[0].message.tool_calls[0].function.arguments)).toEqual({ content: `A=${WEIRD}\nB=${PLAIN}`, nested: { deep: [WEIRD] } });
    });

    it(`restores Responses output text and function_call arguments (${split.name})`, () => {
      const { out } = restoreJson(JSON.stringify(responsesJson(reply)), split);
      const r = JSON.parse(out);
      expect(r.output[0].content[0].text).toBe(`use ${PLAIN} and ${WEIRD}`);
      expect(JSON.parse(r.output[1].arguments)).toEqual({ content: `A=${WEIRD}\nB=${PLAIN}`, nested: { deep: [WEIRD] } });
    });
  }

  it('passes a body without placeholders through as the same bytes', () => {
    const text = '{"n":123456789012345678901234567890,"s":"a\\u00e9 ~/x"}';
    expect(restoreJson(text).out).toBe(text);
  });

  it('keeps bytes around a restored value exactly (big integers, escapes)', () => {
    const text = `{"n":123456789012345678901234567890, "s":"\\u00e9 ${P}\\/"}`;
    expect(restoreJson(text).out).toBe(`{"n":123456789012345678901234567890, "s":"\\u00e9 ${PLAIN}\\/"}`);
  });

  it('finds the string depth of a position', () => {
    const doc = Buffer.from(JSON.stringify({ a: 'x', b: JSON.stringify({ c: 'y', d: JSON.stringify({ e: 'z' }) }), f: 'q{"' }));
    const depthAt = (pos: number): number => {
      const lexer = createJsonLexer('value');
      lexer.advance(doc, 0, pos + 1);
      return lexer.depth();
    };
    expect(depthAt(doc.indexOf('x'))).toBe(1);
    expect(depthAt(doc.indexOf('y'))).toBe(2);
    expect(depthAt(doc.indexOf('z'))).toBe(3);
    expect(depthAt(doc.indexOf('q'))).toBe(1);
    expect(depthAt(0)).toBe(0);
  });

  it('restores in plain text bodies without escaping', () => {
    const stats = createRestoreStats();
    const out = runThrough(() => createBodyRestorer(set, 'text', stats), Buffer.from(`x ${W} y`), splits()[0]!);
    expect(out.toString()).toBe(`x ${WEIRD} y`);
  });

  it('counts mangled placeholders as misses and never restores them', () => {
    const mangled = `${P.slice(0, 10)} ${P.slice(10)}`;
    const { out, misses } = restoreJson(JSON.stringify({ t: mangled }));
    expect(JSON.parse(out).t).toBe(mangled);
    expect(misses).toBe(1);
  });
});
