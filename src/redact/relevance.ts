// Which decoded characters can matter to a set of registered values (and, with detection on, to the
// credential formats it reads: SecretSet.usesCodePoint covers both). An escape is decoded when what it
// stands for is a character some value holds — or one that builds another escape, whatever the values hold:
// `\` and the letters a backslash escapes (`u`, `n`, `r`, `t`, `b`, `f`), hex digits (of `\uXXXX` and `%XX`),
// `%`, and `+` when `+` means a space some value holds. (`"` and `/` also follow a backslash, but only ever
// decode to themselves, so they matter when a value holds them.) Anything else can neither be part of a
// value (UTF-8 matches start and end on character boundaries) nor make one: decoding it changes nothing a
// scan could find.

import type { SecretSet } from './secret-set.ts';

/** What a set's values make relevant, computed once per set. */
export interface Relevance {
  /** Some value holds a character JSON escapes (`"`, `\`, a control character): deep nesting can hide it. */
  readonly deep: boolean;
  /** Some value holds `/` (so `\/` matters). */
  readonly slash: boolean;
  /** Some value holds a space (so `+` as space matters). */
  readonly plus: boolean;
  /** Whether decoding to code point `cp` can reveal or build a value. */
  codePoint(cp: number): boolean;
  /** 1 for bytes whose percent-decoding can reveal or build a value. */
  readonly bytes: Uint8Array;
}

const cache = new WeakMap<SecretSet, Relevance>();

/** Bytes that build another escape once decoded (a `\`, the letters of `\u \n \r \t \b \f`, hex digits, `%`, `+`). */
function building(b: number, plus: boolean): boolean {
  const l = b | 0x20;
  return (
    b === 0x5c || b === 0x75 || b === 0x6e || b === 0x72 || b === 0x74 || b === 0x25 || (b >= 0x30 && b <= 0x39) || (l >= 0x61 && l <= 0x66) || (plus && b === 0x2b)
  );
}

/** The relevance of a set (cached). */
export function relevanceOf(set: SecretSet): Relevance {
  let r = cache.get(set);
  if (r !== undefined) return r;
  let deep = set.usesCodePoint(0x22) || set.usesCodePoint(0x5c);
  for (let c = 0; c < 0x20 && !deep; c++) deep = set.usesCodePoint(c);
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
    slash: set.usesCodePoint(0x2f),
    plus,
    // Surrogates stand for U+FFFD alone and for an astral character in a pair: both are kept as relevant.
    codePoint: (cp) => (cp < 0x80 ? bytes[cp] === 1 : (cp >= 0xd800 && cp <= 0xdfff) || set.usesCodePoint(cp)),
    bytes,
  };
  cache.set(set, r);
  return r;
}
