// The organisation's own credential formats (`[[detect.custom]]`): each rule becomes a kind whose
// anchors (its prefixes, or its keywords when it has no prefix) join the one automaton like the built-in
// kinds'; a hit is confirmed by the rule's charset, whole-token length, suffix, checksum and keywords.

import { bytesOf, specOf } from './charset-spec.ts';
import { hasBase62Crc32 } from './checksum.ts';
import { boundaryAfter, boundaryBefore, charset, hasLiteral, looksLikePlaceholder, runChars, runEnd, type CharSet } from './charset.ts';
import type { Emit, Kind } from './kind.ts';
import { isLuhn } from './pii/luhn.ts';

/** A rule as the config gives it (validated by the schema in config.ts). */
export interface CustomRule {
  name: string;
  prefix?: string | readonly string[] | undefined;
  charset: string;
  /** Whole token, prefix and suffix included. */
  length: readonly [number, number];
  suffix?: string | undefined;
  checksum?: 'none' | 'crc32-base62' | 'luhn' | undefined;
  keywords?: readonly string[] | undefined;
  keywordDistance?: number | undefined;
}

export const DEFAULT_KEYWORD_DISTANCE = 32;
/** Shortest prefix: two bytes are in every text. */
export const MIN_PREFIX_BYTES = 3;
/** Shortest keyword, for the same reason. */
export const MIN_KEYWORD_BYTES = 3;

/** A rule compiled for matching. */
export interface CompiledRule {
  readonly rule: CustomRule;
  readonly set: CharSet;
  readonly prefixes: readonly Uint8Array[];
  readonly suffix: Uint8Array;
  readonly keywords: readonly Uint8Array[];
  readonly distance: number;
}

export function compileRule(rule: CustomRule): CompiledRule {
  const prefixes = rule.prefix === undefined ? [] : typeof rule.prefix === 'string' ? [rule.prefix] : [...rule.prefix];
  return {
    rule,
    set: charset(rule.charset),
    prefixes: prefixes.map((p) => Buffer.from(p, 'utf8')),
    suffix: Buffer.from(rule.suffix ?? '', 'utf8'),
    keywords: (rule.keywords ?? []).map((k) => Buffer.from(k.toLowerCase(), 'utf8')),
    distance: rule.keywordDistance ?? DEFAULT_KEYWORD_DISTANCE,
  };
}

const lower = (b: number): number => (b >= 0x41 && b <= 0x5a ? b | 0x20 : b);

/** Whether a keyword (compared case-insensitively) ends within `distance` bytes before `start`. */
function keywordBefore(buf: Uint8Array, start: number, c: CompiledRule): boolean {
  for (const k of c.keywords) {
    const from = Math.max(0, start - c.distance - k.length);
    for (let i = start - k.length; i >= from; i--) {
      let j = 0;
      while (j < k.length && lower(buf[i + j]!) === k[j]) j++;
      if (j === k.length) return true;
    }
  }
  return false;
}

/**
 * Matches the rule's token starting at `start`, its body (after the prefix) at `bodyStart`: returns its
 * end, or -1. The token is bounded on both sides, its whole length within the rule's, its suffix and
 * checksum right, and a keyword before it when the rule has keywords and a prefix. `why`, when given, is
 * told the first reason it is not (`ficta detect test`); the proxy's path builds no message.
 */
export function matchAt(buf: Uint8Array, start: number, bodyStart: number, c: CompiledRule, needKeyword: boolean, why?: (reason: string) => void): number {
  const [min, max] = c.rule.length;
  const prefixLen = bodyStart - start;
  const sl = c.suffix.length;
  if (!boundaryBefore(buf, start, bodyStart === start ? c.set : NO_BYTES)) return fail(why, () => 'it continues a longer word before it');
  const e = runEnd(buf, bodyStart, c.set, Math.max(0, max - prefixLen));
  const n = runChars();
  let end = e;
  let bodyEnd = e;
  let chars = prefixLen + n;
  if (sl > 0) {
    if (hasLiteral(buf, e, c.suffix)) {
      end = e + sl;
      chars += sl;
    } else if (e - bodyStart >= sl && hasLiteral(buf, e - sl, c.suffix)) bodyEnd = e - sl;
    else return fail(why, () => `it does not end with the suffix (${describeStop(buf, e, c.set)})`);
  }
  if (chars < min) return fail(why, () => `it is ${chars} characters long, shorter than ${min}${e < buf.length ? ` (${describeStop(buf, e, c.set)})` : ''}`);
  if (chars > max) return fail(why, () => `it is longer than ${max} characters`);
  if (!boundaryAfter(buf, end, c.set)) return fail(why, () => `a character outside the token follows it (${describeStop(buf, end, c.set)})`);
  if (bodyEnd > bodyStart && looksLikePlaceholder(buf, bodyStart, bodyEnd)) return fail(why, () => 'it looks like a placeholder (a long run of one character, few distinct characters, or a word such as "example")');
  const sum = c.rule.checksum ?? 'none';
  if (sum === 'crc32-base62' && !hasBase62Crc32(buf, bodyStart, bodyEnd)) return fail(why, () => 'its CRC32 (the last 6 base62 characters before the suffix) does not match');
  if (sum === 'luhn' && !isLuhn(buf, bodyStart, bodyEnd)) return fail(why, () => 'its Luhn check digit does not match (or its body is not all digits)');
  if (needKeyword && c.keywords.length > 0 && !keywordBefore(buf, start, c)) return fail(why, () => `none of its keywords stands within ${c.distance} bytes before it`);
  return end;
}

const NO_BYTES = new Uint8Array(256);

function fail(why: ((reason: string) => void) | undefined, reason: () => string): -1 {
  if (why !== undefined) why(reason());
  return -1;
}

/** Where a run stopped, without quoting the value: the offset and the kind of byte. */
function describeStop(buf: Uint8Array, at: number, set: CharSet): string {
  if (at >= buf.length) return 'the string ends';
  const b = buf[at]!;
  const what = b < 0x21 || b > 0x7e ? `byte 0x${b.toString(16).padStart(2, '0')}` : `'${String.fromCharCode(b)}'`;
  return `${what} at offset ${at} is ${set[b] === 1 ? 'in' : 'not in'} the charset`;
}

/**
 * Keyword-only rules: the token starts within `distance` bytes after the keyword, at a word boundary;
 * each candidate start is tried once and the scan moves past the run it read (linear in the distance).
 */
function afterKeyword(buf: Uint8Array, keywordEnd: number, c: CompiledRule, emit: Emit): void {
  const limit = Math.min(buf.length, keywordEnd + c.distance + 1);
  for (let p = keywordEnd; p < limit; p++) {
    if (c.set[buf[p]!] !== 1 || !boundaryBefore(buf, p, c.set)) continue;
    const end = matchAt(buf, p, p, c, false);
    if (end !== -1) {
      emit(p, end);
      return;
    }
    p = runEnd(buf, p, c.set, c.rule.length[1]);
  }
}

/** Every ASCII casing worth an anchor for a keyword: as written, lower and upper case. */
function keywordAnchors(k: string): string[] {
  return [...new Set([k, k.toLowerCase(), k.toUpperCase()])].map((s) => Buffer.from(s, 'utf8').toString('latin1'));
}

/** The kind a rule becomes. */
export function customKind(rule: CustomRule): Kind {
  const c = compileRule(rule);
  const byPrefix = c.prefixes.length > 0;
  return {
    name: rule.name,
    title: `custom detector ${rule.name} (detect.custom)`,
    anchors: byPrefix ? c.prefixes.map((p) => Buffer.from(p).toString('latin1')) : (rule.keywords ?? []).flatMap(keywordAnchors),
    // The byte after a prefix starts the body (or the suffix); a rule whose body may be empty lets anything follow.
    ...(byPrefix && rule.length[0] - Math.max(...c.prefixes.map((p) => p.length)) - c.suffix.length > 0 ? { follows: specOf(bytesOf(c.set)) } : {}),
    reads: specOf([...bytesOf(c.set), ...c.suffix]),
    escapable: false,
    checksum: (rule.checksum ?? 'none') !== 'none',
    source: 'config: detect.custom',
    confirm(buf, anchorStart, anchorEnd, emit) {
      if (!byPrefix) {
        afterKeyword(buf, anchorEnd, c, emit);
        return;
      }
      const end = matchAt(buf, anchorStart, anchorEnd, c, true);
      if (end !== -1) emit(anchorStart, end);
    },
  };
}
