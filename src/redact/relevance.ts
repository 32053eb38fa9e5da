// Which decoded characters can matter to a set of registered values (and, with detection on, to the
// credential formats it reads: SecretSet.usesCodePoint covers both); views.ts decodes an escape into a
// child view only when what it stands for is relevant. The relevant set is
//   R = the characters some value holds (with detection: those its grammars read)
//     ∪ B, the escape-builders: `\`, the letters `u n r t b f`, hex digits, `%`, and `+` when a value
//       holds a space (`+` is then a space in form encoding)
//     ∪ every surrogate (a lone one is kept as written, to meet the other half of its pair at another
//       level: escape-decode.ts).
// `"` and `/` follow a backslash in an escape too, but are in R only when a value holds them.
//
// Why an escape standing for a character c outside R can be left undecoded, at any depth. Assume each
// level is valid JSON string content written by any writer (controls, `"` and `\` escaped, canonically or
// as `\uXXXX`; `\/` allowed), or percent-encoding. Take an occurrence of a value v in some decoded level
// and an escape E anywhere among the bytes that decode to it, standing for c at E's own level.
//  1. c is not part of the occurrence: v does not hold c, and a match starts and ends on whole UTF-8
//     characters (c is one).
//  2. c takes part in no escape at a deeper level. An escape is a backslash, then `" \ / b f n r t` or `u`
//     and four hex digits; or `%` and two hex digits; or `+` read as a space. All of those are in B except
//     `"` and `/`, whose escapes `\"` and `\/` decode to themselves: however many levels a `"` or `/` goes
//     through, it ends up in the text as that same character, inside the occurrence (so v holds it and it
//     is in R) or outside it.
//  3. So c reaches every deeper level as itself, outside the occurrence, and changes how none of the
//     occurrence's bytes decode: E is not among them after all. Every escape among them stands for a
//     character in R.
// An escape standing for a character in R is a trigger wherever it sits: at any level a `\u` escape shows
// in the view as a `\u` byte pair (escaping only doubles backslashes; its parity is ignored), a `\/` as
// a `\/` pair, and a percent-escape as `%XX` (triggers.ts). Where the occurrence's bytes hold no trigger,
// each level uses only the canonical escapes of JSON.stringify (`\" \\ \b \f \n \r \t`, and `\u00XX` for
// other controls, which is a trigger since v holds that control). Then at depths 0–3 they are exactly one
// of the compiled forms (FORM_DEPTHS) and the automaton matches them; deeper, either v holds a character
// JSON escapes — its escape at depth ≥ 4 is a run of at least 8 backslashes, which the deep-run trigger
// (Relevance.deep) finds — or it holds none, its forms are all the raw value, and the raw form matches.
// Every trigger opens a child view of the string holding it, with every escape there decoded (relevant or
// not), so induction over the levels reaches the level where the occurrence matches a compiled form.
// test/unit/relevance.test.ts checks this by enumeration: every single \u substitution of a value's
// characters, at every level of nesting 1–5.

import type { SecretSet } from './secret-set.ts';

/** What a set's values make relevant, computed once per set. */
export interface Relevance {
  /** Some value holds a character JSON escapes (`"`, `\`, a control character): deep nesting can hide it. */
  readonly deep: boolean;
  /**
   * `deep` because of a registered or recalled value, so in every view. When only detection's formats make
   * it true, a view's runs of backslashes matter only where the view also holds an anchor of a kind whose
   * values hold such a character (a key block: its BEGIN line has no character JSON escapes, so it shows
   * as it is at any depth), or is decoded from escapes that could hide one — every child view.
   */
  readonly deepAlways: boolean;
  /** Some value holds `/` (so `\/` matters). */
  readonly slash: boolean;
  /** Some value holds a space (so `+` as space matters). */
  readonly plus: boolean;
  /** Whether decoding to code point `cp` can reveal or build a value. */
  codePoint(cp: number): boolean;
  /** 1 for bytes whose percent-decoding can reveal or build a value. */
  readonly bytes: Uint8Array;
}

/** Keyed by the set's values array, which a gateway tenant's view of a set shares with the set. */
const cache = new WeakMap<readonly string[], Relevance>();

/** Bytes that build another escape once decoded (a `\`, the letters of `\u \n \r \t \b \f`, hex digits, `%`, `+`). */
function building(b: number, plus: boolean): boolean {
  const l = b | 0x20;
  return (
    b === 0x5c || b === 0x75 || b === 0x6e || b === 0x72 || b === 0x74 || b === 0x25 || (b >= 0x30 && b <= 0x39) || (l >= 0x61 && l <= 0x66) || (plus && b === 0x2b)
  );
}

/** The relevance of a set (cached). */
export function relevanceOf(set: SecretSet): Relevance {
  let r = cache.get(set.values);
  if (r !== undefined) return r;
  let deep = set.usesCodePoint(0x22) || set.usesCodePoint(0x5c);
  for (let c = 0; c < 0x20 && !deep; c++) deep = set.usesCodePoint(c);
  const escaped = (v: string): boolean => /["\\\u0000-\u001f]/.test(v);
  let deepAlways = set.values.some(escaped) || (set.detection?.store.recallUsesCodePoint(0x22) ?? false) || (set.detection?.store.recallUsesCodePoint(0x5c) ?? false);
  for (let c = 0; c < 0x20 && !deepAlways; c++) deepAlways = set.detection?.store.recallUsesCodePoint(c) ?? false;
  // `+` as a space only for registered values: of the detected formats only private key block headers hold
  // a space, and reading every `+` of every body as one (detection reads spaces) tripled the cost of a
  // clean 500 KiB chat body (0.53 -> 1.6 ms; the bench body has ~1,500 `+`).
  let plus = false;
  for (let i = 0; i < set.values.length && !plus; i++) plus = (set.values[i] as string).includes(' ');
  const bytes = new Uint8Array(256);
  for (const v of set.values) for (const b of Buffer.from(v, 'utf8')) bytes[b] = 1;
  // Detection: the characters its grammars read (set.usesCodePoint covers them, and recalled values).
  for (let b = 0; b < 0x80; b++) if (bytes[b] === 0 && set.usesCodePoint(b)) bytes[b] = 1;
  for (let b = 0; b < 256; b++) if (building(b, plus)) bytes[b] = 1;
  r = {
    deep,
    deepAlways: deep && (deepAlways || set.detection === undefined),
    slash: set.usesCodePoint(0x2f),
    plus,
    // A surrogate stands for an astral character in a pair, and alone is kept as written to meet the other
    // half at another level (escape-decode.ts): both are relevant.
    codePoint: (cp) => (cp < 0x80 ? bytes[cp] === 1 : (cp >= 0xd800 && cp <= 0xdfff) || set.usesCodePoint(cp)),
    bytes,
  };
  cache.set(set.values, r);
  return r;
}
