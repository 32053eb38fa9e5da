// Where a buffer holds an escape worth decoding (relevance.ts): `next(from, end)` gives the first one in
// [from, end), found with Buffer#indexOf and a cached position per needle, so walking every trigger of a
// buffer stays linear whatever the number of calls.
//
// Escapes are matched as byte pairs whatever their parity: in `\\u00f6` the pair is an escaped backslash
// here and a `\u` escape one level down, and either way it stands for `ö` once decoded far enough.

import { codePointAt, DEEP_RUN_BYTES, hexValue } from './escape-decode.ts';
import { findPair } from './byte-search.ts';
import type { Relevance } from './relevance.ts';

export type TriggerKind = 'escape' | 'percent' | 'plus';
export type TriggerFinder = (from: number, end: number) => number;

const TRIGGER_U = Buffer.from('\\u', 'latin1');
const TRIGGER_SLASH = Buffer.from('\\/', 'latin1');
const PERCENT_SIGN = Buffer.from('%', 'latin1');
const PLUS_SIGN = Buffer.from('+', 'latin1');

/**
 * A finder for the triggers of `kind` in `buf`. `deepRuns` says whether runs of DEEP_RUN_BYTES backslashes
 * are triggers here (default: whenever some value holds a character JSON escapes, Relevance.deep).
 */
export function createTriggerFinder(rel: Relevance, buf: Buffer, kind: TriggerKind, deepRuns = rel.deep): TriggerFinder {
  if (kind === 'escape') {
    const u = createPairCursor(buf, TRIGGER_U, (p) => {
      const cp = codePointAt(buf, p);
      return cp >= 0 && rel.codePoint(cp);
    });
    // A value without a character JSON escapes reads the same at every depth: the raw form finds it.
    const deep = deepRuns ? createDeepRunCursor(buf) : undefined;
    const slash = rel.slash ? createCursor(buf, TRIGGER_SLASH) : undefined;
    return (from, end) => {
      let best = -1;
      const a = u(from);
      if (a !== -1 && a + 2 <= end) best = a;
      if (deep !== undefined) {
        const b = deep(from);
        if (b !== -1 && b + DEEP_RUN_BYTES <= end && (best === -1 || b < best)) best = b;
      }
      if (slash !== undefined) {
        const c = slash(from);
        if (c !== -1 && c + 2 <= end && (best === -1 || c < best)) best = c;
      }
      return best;
    };
  }
  if (kind === 'plus') {
    const plus = createCursor(buf, PLUS_SIGN);
    return (from, end) => {
      const p = plus(from);
      return p !== -1 && p < end ? p : -1;
    };
  }
  const pct = createCursor(buf, PERCENT_SIGN, (p) => {
    const hi = hexValue(buf[p + 1] as number);
    const lo = hexValue(buf[p + 2] as number);
    return (hi | lo) >= 0 && rel.bytes[(hi << 4) | lo] === 1;
  });
  return (from, end) => {
    const p = pct(from);
    return p !== -1 && p + 3 <= end ? p : -1;
  };
}

/**
 * `next(from)`: the first position at or after `from` where `needle` occurs and `accept` holds, or -1.
 * The answer is cached, so calls with rising `from` walk the buffer once.
 */
function createCursor(buf: Buffer, needle: Buffer, accept?: (p: number) => boolean): (from: number) => number {
  let at = -2;
  return (from) => {
    if (at === -1 || at >= from) return at;
    let p = buf.indexOf(needle, from);
    if (accept !== undefined) while (p !== -1 && !accept(p)) p = buf.indexOf(needle, p + 1);
    at = p;
    return at;
  };
}

/** Like createCursor, for a two-byte needle that may occur every few bytes (a short loop before indexOf). */
function createPairCursor(buf: Buffer, needle: Buffer, accept: (p: number) => boolean): (from: number) => number {
  const a = needle[0] as number;
  const b = needle[1] as number;
  let at = -2;
  return (from) => {
    if (at === -1 || at >= from) return at;
    let p = findPair(buf, a, b, needle, from);
    while (p !== -1 && !accept(p)) p = findPair(buf, a, b, needle, p + 1);
    at = p;
    return at;
  };
}

/** Four backslashes: every run of DEEP_RUN_BYTES or more holds them. */
const FOUR_BACKSLASHES = Buffer.from('\\\\\\\\', 'latin1');

/**
 * Runs of four backslashes found too short before the search switches to the strided loop: ordinary JSON
 * rarely holds one, text made of them would make every indexOf call a short one.
 */
const DEEP_RUN_MISSES = 32;

/**
 * Like createCursor, for runs of at least DEEP_RUN_BYTES backslashes. First by Buffer#indexOf of four
 * backslashes, a run measured at each hit; after DEEP_RUN_MISSES runs too short, every DEEP_RUN_BYTES-th
 * byte is looked at (a long enough run covers one of them) and a backslash there is measured. Measured per
 * 500 KiB: the strided loop alone 0.17–0.21 ms on chat JSON and 0.6 ms on a string of `\"\\` pairs;
 * Buffer#indexOf with a four-backslash needle 0.05 ms and 2 ms, with an eight-backslash needle 0.25 ms on
 * both. Detection makes this search run on every body (key blocks hold newlines), so the cheap first
 * phase matters: chat JSON rarely holds four backslashes in a row.
 */
function createDeepRunCursor(buf: Buffer): (from: number) => number {
  let at = -2;
  let misses = 0;
  const n = buf.length;
  /** The run of backslashes around `i` (a backslash), as [start, end), not reaching below `floor`. */
  const runAt = (i: number, floor: number): [number, number] => {
    let s = i;
    while (s > floor && buf[s - 1] === 0x5c) s--;
    let e = i + 1;
    while (e < n && buf[e] === 0x5c) e++;
    return [s, e];
  };
  return (from) => {
    if (at === -1 || at >= from) return at;
    at = -1;
    let i = from;
    while (misses < DEEP_RUN_MISSES) {
      const p = buf.indexOf(FOUR_BACKSLASHES, i);
      if (p === -1) return at;
      const [s, e] = runAt(p, from);
      if (e - s >= DEEP_RUN_BYTES) {
        at = s;
        return at;
      }
      misses++;
      i = e;
    }
    for (; i < n; i += DEEP_RUN_BYTES) {
      if (buf[i] !== 0x5c) continue;
      const [s, e] = runAt(i, from);
      if (e - s >= DEEP_RUN_BYTES) {
        at = s;
        break;
      }
      // Runs are disjoint: continue after this one (visited bytes stay at most DEEP_RUN_BYTES apart).
      i = e - DEEP_RUN_BYTES;
    }
    return at;
  };
}
