// Redaction of the request target by byte surgery: a value found in it in any form (raw, percent-encoded,
// escaped; views.ts) is replaced by its placeholder, and every other byte — other escapes, their case,
// `+` — is kept as sent. A value across a `/` of the path or an `&` of the query is left for the gate.
// Query parameters carrying the client's own credentials (Gemini's `key`) pass as they are.

import { inspect, notAcross, selectHits, type Hit } from './inspect.ts';
import { replaceHits, type CountMap } from './replace.ts';
import type { SecretSet } from './secret-set.ts';

const SLASH = 0x2f;
const AMPERSAND = 0x26;

/** No query parameter passes unredacted. */
const NO_PARAMS: ReadonlySet<string> = new Set();

/**
 * Redacts a request target `path?query`; returns the input when it holds no registered value. Query
 * parameters whose raw name is in `keep` pass as they are; a name spelt any other way (`k%65y`) is
 * redacted like any parameter.
 */
export function redactTarget(set: SecretSet, target: string, counts: CountMap, keep: ReadonlySet<string> = NO_PARAMS): string {
  if (set.inert || target === '') return target;
  // Node hands the target over as latin1: read it back as the bytes that were sent.
  const buf = Buffer.from(target, 'latin1');
  const hits = selectHits(inspect(set, buf));
  if (hits.length === 0) return target;
  const q = target.indexOf('?');
  const pathEnd = q === -1 ? buf.length : q;
  const inPath = notAcross(buf, SLASH);
  const inQuery = notAcross(buf, AMPERSAND);
  const isKept = q === -1 || keep.size === 0 ? () => false : insideSpans(keptSpans(target, q, keep));
  const chosen = hits.filter((h) => (h.end <= pathEnd ? inPath(h) : h.start > pathEnd && inQuery(h) && !isKept(h)));
  return chosen.length === 0 ? target : replaceHits(set, buf, chosen, counts).toString('latin1');
}

/**
 * `text` with every registered value (in any form) replaced by its placeholder wherever it lies, across
 * separators too: for log lines, which need no structure, only never a value.
 */
export function maskValues(set: SecretSet, text: string): string {
  if (set.inert || text === '') return text;
  const buf = Buffer.from(text, 'latin1');
  const hits = selectHits(inspect(set, buf));
  return hits.length === 0 ? text : replaceHits(set, buf, hits, new Map()).toString('latin1');
}

/** The path of a target, without its query. */
export function pathOfTarget(target: string): string {
  const q = target.indexOf('?');
  return q === -1 ? target : target.slice(0, q);
}

/** The target without the query parameters named in `drop` (what the gate inspects). */
export function withoutParams(target: string, drop: ReadonlySet<string>): string {
  const q = target.indexOf('?');
  if (q === -1 || drop.size === 0) return target;
  const kept = target
    .slice(q + 1)
    .split('&')
    .filter((part) => !drop.has(paramName(part)));
  return `${target.slice(0, q)}?${kept.join('&')}`;
}

/** The raw (undecoded) name of one `name=value` query part. */
function paramName(part: string): string {
  const eq = part.indexOf('=');
  return eq === -1 ? part : part.slice(0, eq);
}

/** [start, end) of each query part whose raw name is in `keep`, in order, as flat pairs. */
function keptSpans(target: string, q: number, keep: ReadonlySet<string>): number[] {
  const out: number[] = [];
  let start = q + 1;
  while (start <= target.length) {
    let end = target.indexOf('&', start);
    if (end === -1) end = target.length;
    if (keep.has(paramName(target.slice(start, end)))) out.push(start, end);
    start = end + 1;
  }
  return out;
}

/** A filter for hits sorted by start: true when the hit lies inside one of `spans` (sorted flat pairs); linear over all hits. */
function insideSpans(spans: readonly number[]): (h: Hit) => boolean {
  let i = 0;
  return (h) => {
    while (i < spans.length && (spans[i + 1] as number) <= h.start) i += 2;
    return i < spans.length && h.start >= (spans[i] as number) && h.end <= (spans[i + 1] as number);
  };
}
