// Registered values drawn adversarially: provider-like tokens, values full of characters that need
// escaping (quote, backslash, slash, control characters, non-ASCII, astral, `%`, `+`), and families of
// values that overlap, prefix or contain one another, so the longest-match and overlap rules are
// exercised. Every value has at least 8 code points (ficta refuses shorter ones).

import type { Rng } from '../rng.ts';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const PREFIXES = ['sk-', 'sk-proj-', 'sk-ant-api03-', 'ghp_', 'xoxb-', 'AKIA', 'glpat-', 'hf_', ''];
const SPECIAL = ['"', '\\', '/', "'", '<', '>', '&', '=', '+', '%', ';', ':', ',', '.', '?', '#', '@', '!', '$', '*', '(', ')', '[', ']', '{', '}', '|', '`', ' ', '-', '_', '^'];
const CONTROL = ['\n', '\t', '\r', '\b', '\f', '\u0001', '\u001f', '\u007f'];
const NON_ASCII = ['é', 'ö', 'ß', 'ñ', 'ü', 'Ω', 'ж', '中', '文', 'ℝ', '\u00a0', '\u2028', '\u2029', '\u0301'];
const ASTRAL = ['🔑', '😀', '𝄞', '🚀', '🂡', '𐍈'];

/** What characters a value may use (headers and dotenv files cannot carry every character). */
export type Alphabet = 'any' | 'no-control' | 'ascii-printable';

export interface ValueOptions {
  alphabet?: Alphabet;
  /** Weight of plain provider-like tokens versus hostile mixes. */
  plainShare?: number;
}

function token(rng: Rng, min = 8, max = 28): string {
  let s = rng.pick(PREFIXES);
  const n = rng.int(min, max);
  for (let i = 0; i < n; i++) s += ALNUM[rng.int(0, ALNUM.length - 1)];
  return s;
}

function hostileChar(rng: Rng, alphabet: Alphabet): string {
  const pools: Array<readonly [number, readonly string[]]> = [[6, ALNUM.split('')], [4, SPECIAL]];
  if (alphabet === 'any') pools.push([1, CONTROL]);
  if (alphabet !== 'ascii-printable') pools.push([2, NON_ASCII], [1, ASTRAL]);
  return rng.pick(rng.weighted(pools));
}

function hostile(rng: Rng, alphabet: Alphabet): string {
  const n = rng.int(8, 24);
  let s = '';
  for (let i = 0; i < n; i++) s += hostileChar(rng, alphabet);
  return s;
}

function codePoints(s: string): string[] {
  return [...s];
}

/** A value derived from `base` so the two overlap: a prefix, an extension, a shared middle, a repeat. */
function related(rng: Rng, base: string, alphabet: Alphabet): string {
  const cps = codePoints(base);
  const extra = (): string => {
    let s = '';
    const n = rng.int(1, 6);
    for (let i = 0; i < n; i++) s += hostileChar(rng, alphabet);
    return s;
  };
  switch (rng.int(0, 4)) {
    case 0:
      return cps.slice(0, rng.int(8, Math.max(8, cps.length - 1))).join('');
    case 1:
      return base + extra();
    case 2:
      return extra() + cps.slice(rng.int(0, Math.max(0, cps.length - 8))).join('');
    case 3:
      return extra() + base + extra();
    default: {
      const unit = cps.slice(0, rng.int(1, 4)).join('');
      let s = unit;
      while (codePoints(s).length < 8) s += unit;
      return s + unit.repeat(rng.int(0, 3));
    }
  }
}

/** `count` distinct values (at least 8 code points each, none holding the placeholder prefix). */
export function drawValues(rng: Rng, count: number, options: ValueOptions = {}): string[] {
  const alphabet = options.alphabet ?? 'any';
  const plainShare = options.plainShare ?? 0.35;
  const out: string[] = [];
  let guard = 0;
  while (out.length < count && guard++ < count * 50) {
    let v: string;
    if (out.length > 0 && rng.chance(0.35)) v = related(rng, rng.pick(out), alphabet);
    else v = rng.chance(plainShare) ? token(rng) : hostile(rng, alphabet);
    if (codePoints(v).length < 8 || out.includes(v) || v.toLowerCase().includes('~ficta')) continue;
    if (alphabet !== 'any' && /[\u0000-\u001f\u007f]/.test(v)) continue;
    // One value being another plus trailing backslashes is fuzz finding F3's trigger: class escape-boundary.
    const bare = v.replace(/\\+$/, '');
    if (out.some((w) => w !== v && w.replace(/\\+$/, '') === bare)) continue;
    out.push(v);
  }
  return out;
}

/** A value made of digits only (sent as a JSON number, it cannot be redacted: the gate must block). */
export function digitValue(rng: Rng): string {
  let s = String(rng.int(1, 9));
  const n = rng.int(11, 18);
  for (let i = 0; i < n; i++) s += String(rng.int(0, 9));
  return s;
}
