// An immutable, compiled snapshot of the registered secrets: one automaton over every form a value can
// take in outgoing bytes, plus the placeholder maps used by redaction and restore. Rebuilt off the hot
// path and swapped atomically, so a request never sees a half-built matcher.

import { createMatcher, type Matcher } from './matcher.ts';
import { jsonEscapeDepth } from './json-escape.ts';
import { derivePlaceholder, placeholderId } from './placeholder.ts';

/** JSON nesting levels whose escaped forms are compiled into the automaton (raw, in a string, in JSON text in a string, one more). */
export const FORM_DEPTHS = 4;

export interface SecretInput {
  name: string;
  value: string;
  /** Hosts (normalised allow-list patterns) this secret may be restored towards in tool calls. */
  hosts?: readonly string[] | undefined;
}

export interface SecretSet {
  /** Number of distinct values. */
  readonly size: number;
  /** Display name per secret index (names sharing one value are joined with "|"). */
  readonly names: readonly string[];
  readonly values: readonly string[];
  readonly placeholders: readonly string[];
  readonly placeholderBytes: readonly Buffer[];
  /** Hosts each secret may be restored towards in tool calls (the union over the names sharing its value). */
  readonly hosts: readonly (readonly string[])[];
  /** One automaton over every form of every value. */
  readonly matcher: Matcher;
  /** Pattern index → secret index. */
  readonly patternSecret: Int32Array;
  /** Pattern index → length in bytes. */
  readonly patternLength: Int32Array;
  /** Pattern index → JSON escaping depth of the form. */
  readonly patternDepth: Uint8Array;
  /** Secret index for a placeholder id (lowercase), or -1. */
  secretForId(id: string): number;
  /** True when some registered value contains the code point (decides whether a `\u` escape matters). */
  usesCodePoint(cp: number): boolean;
  /** The value escaped for `depth` JSON string levels, as bytes (cached). */
  valueBytes(index: number, depth: number): Buffer;
}

const NO_HOSTS: readonly string[] = [];

/** Compiles the secrets under a placeholder key. Entries with equal values share one placeholder. */
export function buildSecretSet(entries: readonly SecretInput[], placeholderKey: Uint8Array): SecretSet {
  const byValue = new Map<string, number>();
  const names: string[][] = [];
  const values: string[] = [];
  const hosts: Array<Set<string> | undefined> = [];
  for (const e of entries) {
    const known = byValue.get(e.value);
    const index = known ?? values.length;
    if (known !== undefined) {
      const list = names[known] as string[];
      if (!list.includes(e.name)) list.push(e.name);
    } else {
      byValue.set(e.value, values.length);
      values.push(e.value);
      names.push([e.name]);
      hosts.push(undefined);
    }
    if (e.hosts !== undefined && e.hosts.length > 0) {
      const own = hosts[index] ?? new Set<string>();
      for (const h of e.hosts) own.add(h);
      hosts[index] = own;
    }
  }

  const placeholders = values.map((v) => derivePlaceholder(placeholderKey, v));
  const placeholderBytes = placeholders.map((p) => Buffer.from(p, 'latin1'));
  const idMap = new Map<string, number>();
  placeholders.forEach((p, i) => idMap.set(placeholderId(p), i));

  const patterns: Buffer[] = [];
  const patternSecret: number[] = [];
  const patternDepth: number[] = [];
  values.forEach((v, i) => {
    const seen = new Set<string>();
    for (let depth = 0; depth < FORM_DEPTHS; depth++) {
      const form = jsonEscapeDepth(v, depth);
      if (seen.has(form)) continue;
      seen.add(form);
      patterns.push(Buffer.from(form, 'utf8'));
      patternSecret.push(i);
      patternDepth.push(depth);
    }
  });

  const matcher = createMatcher(patterns);
  const bmp = new Uint8Array(0x10000);
  const astral = new Set<number>();
  for (const v of values) {
    for (const ch of v) {
      const cp = ch.codePointAt(0) as number;
      if (cp < 0x10000) bmp[cp] = 1;
      else astral.add(cp);
    }
  }
  const cache = new Map<number, Buffer>();
  return {
    size: values.length,
    names: names.map((n) => n.join('|')),
    values,
    placeholders,
    placeholderBytes,
    hosts: hosts.map((h) => (h === undefined ? NO_HOSTS : [...h])),
    matcher,
    patternSecret: Int32Array.from(patternSecret),
    patternLength: Int32Array.from(patterns.map((p) => p.length)),
    patternDepth: Uint8Array.from(patternDepth),
    secretForId: (id) => idMap.get(id) ?? -1,
    usesCodePoint: (cp) => (cp < 0x10000 ? bmp[cp] === 1 : astral.has(cp)),
    valueBytes(index, depth) {
      const k = index * 8 + depth;
      let b = cache.get(k);
      if (b === undefined) {
        b = Buffer.from(jsonEscapeDepth(values[index] as string, depth), 'utf8');
        cache.set(k, b);
      }
      return b;
    },
  };
}
