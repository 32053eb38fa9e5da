// Finding credentials in text without a proxy (`ficta scan`, discovery, benchmarks): the detector's
// anchors in an automaton of their own, each hit confirmed by its kind's grammar.

import { createMatcher, type Matcher } from '../redact/matcher.ts';
import type { Detector } from './detector.ts';
import { KINDS } from './kinds.ts';

/** A credential found at bytes [start, end). */
export interface Credential {
  start: number;
  end: number;
  /** Kind name (see KINDS). */
  kind: string;
  value: string;
}

/** A detector with its anchors compiled: finds credentials in any buffer. */
export interface CredentialFinder {
  find(buf: Uint8Array): Credential[];
}

/** Compiles the detector's anchors into an automaton. */
export function createCredentialFinder(detector: Detector): CredentialFinder {
  const matcher: Matcher = createMatcher(detector.anchors);
  return {
    find(buf) {
      const out: Credential[] = [];
      const hits = matcher.scan(buf);
      for (let i = 0; i < hits.count; i++) {
        const anchor = hits.ids[i]!;
        const end = hits.ends[i]!;
        if (end < buf.length && detector.follows[anchor]![buf[end]!] !== 1) continue;
        detector.confirm(buf, anchor, end - detector.anchors[anchor]!.length, end, (s, e, kind, value) => {
          out.push({ start: s, end: e, kind: KINDS[kind]!.name, value });
        });
      }
      return dedupe(out);
    },
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
