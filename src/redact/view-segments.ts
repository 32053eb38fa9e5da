// Which pieces of a view a decoded child is made of: around each trigger, the string holding it (the bytes
// between the nearest unescaped quotes), pieces a few bytes apart merged into one, and where the merged-in
// gaps lie (the quotes and structure between two strings), so that a match made across a gap — in no
// string at all — is not taken for a value.

import type { Relevance } from './relevance.ts';
import { closingQuote, openingQuote } from './json-strings.ts';
import { createTriggerFinder, type TriggerKind } from './triggers.ts';

/** Pieces of a view closer than this are decoded as one range. */
const PIECE_MERGE_GAP = 64;

/** Bytes that may be part of a value's encoded form in binary data: anything but control bytes (tab, LF, CR kept). */
const TEXT_BYTE = (() => {
  const t = new Uint8Array(256).fill(1);
  for (let b = 0; b < 0x20; b++) t[b] = 0;
  t[0x09] = 1;
  t[0x0a] = 1;
  t[0x0d] = 1;
  return t;
})();

/** The pieces to decode, as flat [start, end) pairs, and the gaps merged into them (flat pairs, inside pieces). */
export interface Segments {
  segs: number[];
  gaps: number[];
}

/** What finding the segments of one view needs. */
export interface SegmentInput {
  buf: Buffer;
  /** The view's decoded ranges, flat [start, end) pairs: no piece spans two of them. */
  ranges: readonly number[];
  rel: Relevance;
  kind: TriggerKind;
  /** Split binary input into its text runs first (a decoded form is always text). */
  runs: boolean;
  /** A text run shorter than this holds no form of any value. */
  minLength: number;
  /** Runs of 8 backslashes are triggers (createTriggerFinder). */
  deepRuns: boolean;
}

/**
 * The pieces of a view to decode into a child: around each trigger, the bytes between the nearest unescaped
 * quotes (within the text run, for binary input). In JSON text that is the string holding the trigger, at
 * whatever depth the view is; a value written consistently at one level lies inside one such string, so it
 * is never cut, and a view's children stay as small as the strings that need decoding. Pieces a few bytes
 * apart (many short strings) are decoded as one range — far fewer ranges to scan — and the bytes merged in
 * between them are reported as a gap: a match that touches a gap is across a string's quote, an artefact of
 * the merge. Pieces are never merged across two of the view's ranges (they are apart in the source).
 * Linear: each byte is looked at a bounded number of times.
 */
export function triggerSegments(input: SegmentInput): Segments {
  const { buf, ranges, runs, minLength } = input;
  const segs: number[] = [];
  const gaps: number[] = [];
  const next = createTriggerFinder(input.rel, buf, input.kind, input.deepRuns);
  for (let r = 0; r < ranges.length; r += 2) {
    const s = ranges[r] as number;
    const e = ranges[r + 1] as number;
    const firstInRange = segs.length;
    let lo = s;
    let p = next(s, e);
    while (p !== -1) {
      let a = lo;
      let b = e;
      if (runs) {
        a = p;
        while (a > lo && TEXT_BYTE[buf[a - 1] as number] === 1) a--;
        b = p;
        while (b < e && TEXT_BYTE[buf[b] as number] === 1) b++;
        // Every form of a value is text, so it lies inside one run: a run shorter than the shortest form
        // holds none (random binary data is made of such runs).
        if (b - a < minLength) {
          lo = b;
          p = lo < e ? next(lo, e) : -1;
          continue;
        }
      }
      const open = openingQuote(buf, p, a);
      if (open !== -1) a = open + 1;
      const close = closingQuote(buf, a, b);
      const end = close === -1 || close < p ? b : close;
      const last = segs.length - 1;
      if (segs.length > firstInRange && a - (segs[last] as number) <= PIECE_MERGE_GAP) {
        if (a > (segs[last] as number)) gaps.push(segs[last] as number, a);
        segs[last] = end;
      } else segs.push(a, end);
      lo = end < e && end === close ? end + 1 : end;
      p = lo < e ? next(lo, e) : -1;
    }
  }
  return { segs, gaps };
}
