// Finding credentials in text without a proxy (`ficta scan`, discovery, benchmarks): the detector's
// anchors found in the text, each hit confirmed by its kind's grammar.

import { createMatcher, type Matcher } from '../redact/matcher.ts';
import type { Detector } from './detector.ts';
import type { Verdict } from './kind.ts';

/** A credential found at bytes [start, end). */
export interface Credential {
  start: number;
  end: number;
  /** Kind name (see Detector.kinds). */
  kind: string;
  value: string;
  /** Whether its checksum holds (`verified`), fails (`unverified`), or its kind has none (`format`). */
  verdict: Verdict;
}

/** A detector with its anchors compiled: finds credentials in any buffer. */
export interface CredentialFinder {
  find(buf: Uint8Array): Credential[];
}

/**
 * Bytes a finder reads through its anchor index before it compiles the automaton instead. Compiling the
 * ~250 anchors (extended by their followers) costs ~4 ms, a third of what discovery added to `ficta
 * serve`'s start, where all it reads is a few dozen environment values; `ficta scan` reads megabytes,
 * which the automaton scans ~20× faster.
 */
const INDEX_MAX_BYTES = 64 * 1024;

/** Anchor hits of a buffer as the automaton reports them: by end ascending, the longer anchor first. */
type HitScan = (buf: Uint8Array, onHit: (anchor: number, end: number) => void) => void;

/** Finds the detector's credentials: anchor hits, the byte after each checked, confirmed by the grammars. */
export function createCredentialFinder(detector: Detector): CredentialFinder {
  const indexed = indexScan(detector.anchors);
  let compiled: HitScan | undefined;
  let indexedBytes = 0;
  return {
    find(buf) {
      const out: Credential[] = [];
      const onHit = (anchor: number, end: number): void => {
        if (end < buf.length && detector.followsOf(anchor)[buf[end]!] !== 1) return;
        detector.confirm(buf, anchor, end - detector.anchors[anchor]!.length, end, (s, e, kind, value, verdict) => {
          out.push({ start: s, end: e, kind: detector.kinds[kind]!.name, value, verdict });
        });
      };
      if (compiled === undefined && indexedBytes + buf.length <= INDEX_MAX_BYTES) {
        indexedBytes += buf.length;
        indexed(buf, onHit);
      } else {
        compiled ??= automatonScan(createMatcher(detector.anchors));
        compiled(buf, onHit);
      }
      return dedupe(out);
    },
  };
}

function automatonScan(matcher: Matcher): HitScan {
  return (buf, onHit) => {
    const hits = matcher.scan(buf);
    for (let i = 0; i < hits.count; i++) onHit(hits.ids[i]!, hits.ends[i]!);
  };
}

/**
 * Anchors chained by their first two bytes (every anchor has at least three); a scan looks up each
 * position's pair and compares the few anchors that start with it. Hits are reported in the automaton's
 * order, so both scans give the same credentials in the same order.
 */
function indexScan(anchors: readonly Uint8Array[]): HitScan {
  const head = new Int32Array(1 << 16).fill(-1);
  const next = new Int32Array(anchors.length);
  for (let id = anchors.length - 1; id >= 0; id--) {
    const a = anchors[id]!;
    if (a.length < 2) throw new RangeError('detect: an anchor is shorter than two bytes');
    const key = (a[0]! << 8) | a[1]!;
    next[id] = head[key]!;
    head[key] = id;
  }
  return (buf, onHit) => {
    const hits: number[] = [];
    for (let i = 0; i + 1 < buf.length; i++) {
      for (let id = head[(buf[i]! << 8) | buf[i + 1]!]!; id !== -1; id = next[id]!) {
        const a = anchors[id]!;
        if (i + a.length > buf.length) continue;
        let j = 2;
        while (j < a.length && buf[i + j] === a[j]) j++;
        if (j === a.length) hits.push(id, i + a.length);
      }
    }
    if (hits.length === 0) return;
    const order = Array.from({ length: hits.length / 2 }, (_, k) => k);
    order.sort((x, y) => hits[2 * x + 1]! - hits[2 * y + 1]! || anchors[hits[2 * y]!]!.length - anchors[hits[2 * x]!]!.length);
    for (const k of order) onHit(hits[2 * k]!, hits[2 * k + 1]!);
  };
}

/** Keeps one credential per span (the first kind that claimed it), longest first where spans overlap at one start. */
function dedupe(found: Credential[]): Credential[] {
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Credential[] = [];
  for (const c of found) {
    const last = out[out.length - 1];
    if (last !== undefined && c.start < last.end) continue;
    out.push(c);
  }
  return out;
}
