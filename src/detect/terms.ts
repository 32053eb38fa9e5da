// Terms: words that must not leave (project code names, customer names, internal host names), matched
// ASCII-case-insensitively on word boundaries. They join the one automaton as the first three bytes of
// each term in every ASCII casing; a hit is confirmed by a case-insensitive compare of the whole term and
// a boundary check on both sides. Each casing seen is its own value, so it restores exactly as written.

import { FictaError } from '../errors.ts';
import { specOf } from './charset-spec.ts';
import { escapeEndsAt } from './escape-edge.ts';
import type { Kind } from './kind.ts';

/** A term and the name it is counted under. */
export interface TermInput {
  name: string;
  value: string;
}

/** Shortest term: two-letter words are in every text. */
export const MIN_TERM_BYTES = 3;
/** Longest term (a customer's full name, a host name). */
export const MAX_TERM_BYTES = 256;
/** Bytes of a term's start that join the automaton, in every casing (2³ anchors a term at most). */
const ANCHOR_BYTES = 3;
/** The kind name terms are found under (each is counted under its own name). */
export const TERM_KIND = 'term';

/** A name given with the term (`NAME=value`): what `--term`, `secrets.terms` and the vault take. */
const NAMED = /^([A-Za-z][A-Za-z0-9_.-]{0,63})=(.+)$/s;

/** Parses `NAME=value` or a bare value (named `term-N`, N counting from 1 in the list). */
export function parseTerms(list: readonly string[]): TermInput[] {
  return list.map((t, i) => {
    const m = NAMED.exec(t);
    return m === null ? { name: `term-${i + 1}`, value: t } : { name: m[1]!, value: m[2]! };
  });
}

/** Why a term cannot be used, or undefined. Never quotes the term. */
export function termProblem(t: TermInput): string | undefined {
  const bytes = Buffer.byteLength(t.value, 'utf8');
  if (t.value.trim() !== t.value) return 'it starts or ends with white space';
  if (bytes < MIN_TERM_BYTES) return `it is shorter than ${MIN_TERM_BYTES} bytes and would match ordinary text`;
  if (bytes > MAX_TERM_BYTES) return `it is longer than ${MAX_TERM_BYTES} bytes`;
  // Escaped in JSON strings: a term is a word or a name, not text with quotes or line breaks.
  if (/["\\\u0000-\u001f\u007f]/.test(t.value)) return 'it holds a quote, a backslash or a control character';
  return undefined;
}

/** Refuses unusable terms, naming each by its name. */
export function checkTerms(terms: readonly TermInput[]): void {
  for (const t of terms) {
    const problem = termProblem(t);
    if (problem !== undefined) throw new FictaError('FICTA_CONFIG_INVALID', `detect: term ${t.name} refused: ${problem}`);
  }
}

const lower = (b: number): number => (b >= 0x41 && b <= 0x5a ? b | 0x20 : b);
/** Letters, digits and every byte of a multi-byte character: `_`, `-`, `.` and `/` separate words. */
const isWordByte = (b: number): boolean => (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b >= 0x80;

/** True when a word may start at `start`: the byte before is no word byte, or ends an escape (escape-edge.ts). */
export function wordStartsAt(buf: Uint8Array, start: number): boolean {
  return start === 0 || !isWordByte(buf[start - 1]!) || escapeEndsAt(buf, start);
}

/** True when a word may end at `end`. */
export function wordEndsAt(buf: Uint8Array, end: number): boolean {
  return end >= buf.length || !isWordByte(buf[end]!);
}

/** Every ASCII casing of `bytes` (letters doubled, other bytes kept), as latin1 strings. */
function casings(bytes: Uint8Array): string[] {
  let out = [''];
  for (const b of bytes) {
    const l = lower(b);
    const u = l >= 0x61 && l <= 0x7a ? l - 0x20 : l;
    out = l === u ? out.map((s) => s + String.fromCharCode(l)) : out.flatMap((s) => [s + String.fromCharCode(l), s + String.fromCharCode(u)]);
  }
  return out;
}

interface Compiled {
  /** Lower-cased bytes. */
  bytes: Uint8Array;
  name: string;
}

/** The kind that finds the terms; undefined when there are none. Throws on a term it cannot use. */
export function termKind(terms: readonly TermInput[]): Kind | undefined {
  if (terms.length === 0) return undefined;
  checkTerms(terms);
  // Terms by the lower-cased bytes of their start, longest first (`Acme Corp` before `Acme`).
  const byHead = new Map<string, Compiled[]>();
  const names = new Map<string, string>();
  const anchors = new Set<string>();
  const follows = new Set<number>();
  let short = false;
  const codePoints = new Set<number>();
  for (const t of terms) {
    const bytes = Uint8Array.from(Buffer.from(t.value, 'utf8'), lower);
    const key = Buffer.from(bytes).toString('latin1');
    if (names.has(key)) continue;
    names.set(key, t.name);
    const head = key.slice(0, ANCHOR_BYTES);
    const list = byHead.get(head) ?? [];
    list.push({ bytes, name: t.name });
    list.sort((a, b) => b.bytes.length - a.bytes.length);
    byHead.set(head, list);
    for (const c of casings(bytes.subarray(0, ANCHOR_BYTES))) anchors.add(c);
    if (bytes.length === ANCHOR_BYTES) short = true;
    else {
      const next = bytes[ANCHOR_BYTES]!;
      follows.add(next);
      if (next >= 0x61 && next <= 0x7a) follows.add(next - 0x20);
    }
    for (const ch of t.value) if (ch.codePointAt(0)! >= 0x80) codePoints.add(ch.codePointAt(0)!);
  }
  const headOf = (buf: Uint8Array, at: number): string => String.fromCharCode(lower(buf[at]!), lower(buf[at + 1]!), lower(buf[at + 2]!));
  const readBytes = [...new Set(terms.flatMap((t) => [...Buffer.from(t.value, 'utf8')].filter((b) => b < 0x80).flatMap((b) => [lower(b), lower(b) >= 0x61 && lower(b) <= 0x7a ? lower(b) - 0x20 : lower(b)])))];
  return {
    name: TERM_KIND,
    title: 'A term from secrets.terms, --term or the vault (a code name, a customer, a host)',
    anchors: [...anchors],
    // A three-byte term ends at its anchor: any byte may follow; otherwise the term's fourth byte, either case.
    ...(short ? {} : { follows: specOf(follows) }),
    reads: specOf(readBytes),
    codePoints: [...codePoints],
    escapable: false,
    checksum: false,
    alwaysRedact: true,
    source: 'https://github.com/ficta/ficta (secrets.terms)',
    label: (value) => names.get(Buffer.from(Uint8Array.from(Buffer.from(value, 'utf8'), lower)).toString('latin1')) ?? TERM_KIND,
    confirm(buf, anchorStart, _anchorEnd, emit) {
      if (!wordStartsAt(buf, anchorStart)) return;
      const list = byHead.get(headOf(buf, anchorStart));
      if (list === undefined) return;
      for (const t of list) {
        const end = anchorStart + t.bytes.length;
        if (end > buf.length) continue;
        let k = ANCHOR_BYTES;
        while (k < t.bytes.length && lower(buf[anchorStart + k]!) === t.bytes[k]) k++;
        if (k === t.bytes.length && wordEndsAt(buf, end)) {
          emit(anchorStart, end);
          return;
        }
      }
    },
  };
}
