// The rule of relevance.ts (a `\u` escape is decoded only when it stands for a character some value holds
// or one that builds an escape) checked by enumeration: a value nested 1–5 string levels deep, with one
// character of its representation at one level written as a `\uXXXX` escape instead — every character
// at every level, escape-builders included (`\` as `\u005c`, `u` as `\u0075`, hex digits), `"` as
// `\u0022`, and an astral character's surrogates escaped together or one at a time (so the two halves of
// the pair end up at different levels). The gate must find the value in every one of those bodies.

import { describe, expect, it } from 'vitest';
import { gateRequest } from '../../src/redact/gate.ts';
import { testSet } from '../helpers/secret-set.ts';

/** Values covering an astral character, `"`, `\`, `/`, non-ASCII, controls, `%`, `+`, a space and the escape letters. */
const VALUES = ['sk-ab🔑cdef123', 'pa"ss\\wö/rd', 'tok\nline\tEND%2B+x y', 'unrtbf-0x9AF'];
const set = testSet(Object.fromEntries(VALUES.map((v, i) => [`VALUE_${i}`, v])));
const MAX_DEPTH = 5;

function hex4(unit: number): string {
  return `\\u${unit.toString(16).padStart(4, '0')}`;
}

/** JSON.stringify's escape of one UTF-16 code unit (a lone surrogate is escaped, as well-formed stringify does). */
function canonical(s: string, i: number): string {
  const c = s.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdfff) {
    const pairHigh = c <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff;
    const pairLow = c >= 0xdc00 && i > 0 && s.charCodeAt(i - 1) >= 0xd800 && s.charCodeAt(i - 1) <= 0xdbff;
    return pairHigh || pairLow ? (s[i] as string) : hex4(c);
  }
  return JSON.stringify(s[i]).slice(1, -1);
}

/**
 * Writes `text` as JSON string content, code unit by code unit, with the units in `sub` written as `\uXXXX`;
 * returns the content and where [from, to) of `text` went.
 */
function encode(text: string, from: number, to: number, sub: ReadonlySet<number>): { out: string; from: number; to: number } {
  let out = '';
  let a = 0;
  let b = 0;
  for (let i = 0; i <= text.length; i++) {
    if (i === from) a = out.length;
    if (i === to) b = out.length;
    if (i < text.length) out += sub.has(i) ? hex4(text.charCodeAt(i)) : canonical(text, i);
  }
  return { out, from: a, to: b };
}

/**
 * The request body holding `value` `depth` string levels deep, with the code units `units` (offsets in the
 * value's representation at that level) written as `\u` escapes at level `level` (1 = the body's own string).
 */
function body(value: string, depth: number, level: number, units: readonly number[]): string {
  let text = `use ${value} now`;
  let from = 4;
  let to = 4 + value.length;
  for (let l = depth; l >= 1; l--) {
    const enc = encode(text, from, to, new Set(l === level ? units.map((u) => from + u) : []));
    if (l === 1) return `{"model":"m","messages":[{"role":"user","content":"${enc.out}"}]}`;
    text = `{"k":"${enc.out}"}`;
    from = enc.from + 6;
    to = enc.to + 6;
  }
  throw new Error('unreachable');
}

/**
 * Every single substitution at one level: each code unit alone, and each surrogate pair as a whole. One
 * half of a pair escaped alone leaves the other as a lone surrogate, which the next level out writes as a
 * `\u` escape of its own (the halves then sit at two levels); at the body's own level there is no next
 * level, and a lone surrogate has no UTF-8 form, so there only whole pairs are escaped.
 */
function substitutions(value: string, depth: number, level: number): number[][] {
  let text = value;
  for (let l = depth; l > level; l--) text = encode(text, 0, text.length, new Set()).out;
  const out: number[][] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const surrogate = c >= 0xd800 && c <= 0xdfff;
    if (!surrogate || level > 1) out.push([i]);
    if (c >= 0xd800 && c <= 0xdbff) out.push([i, i + 1]);
  }
  return out;
}

/** Parses JSON text nested in the `content`, then `k`, strings: the innermost text. */
function innermost(json: string, depth: number): string {
  let s = (JSON.parse(json) as { messages: Array<{ content: string }> }).messages[0]?.content as string;
  for (let l = 2; l <= depth; l++) s = (JSON.parse(s) as { k: string }).k;
  return s;
}

describe('every single \\u substitution of a value, at every level of nesting 1-5', () => {
  for (const [index, value] of VALUES.entries()) {
    it(`the gate finds ${JSON.stringify(value)} in each`, () => {
      let cases = 0;
      const missed: string[] = [];
      for (let depth = 1; depth <= MAX_DEPTH; depth++) {
        for (let level = 1; level <= depth; level++) {
          for (const units of substitutions(value, depth, level)) {
            const json = body(value, depth, level, units);
            // The body is what a JSON writer could send: every level parses, and the value is there.
            expect(innermost(json, depth)).toBe(`use ${value} now`);
            const found = gateRequest(set, { target: '/', headers: [], body: Buffer.from(json), bodyKind: 'json' });
            if (!found.some((f) => f.secret === index)) missed.push(`depth ${depth}, level ${level}, units ${units.join('+')}: ${json}`);
            cases++;
          }
        }
      }
      expect(cases).toBeGreaterThan(100);
      expect(missed).toEqual([]);
    });
  }
});
