// Finds every occurrence of a registered value in a buffer, in every form it can take there: raw and
// JSON-escaped (depths 0–3, compiled into the automaton) in one pass, and — where the bytes hold an escape
// that could hide a value from those forms — in decoded views (views.ts). Both the redactor and the
// fail-closed gate use it; the gate runs it on the exact outgoing bytes.

import { kindOfSecret } from '../detect/store.ts';
import { createJsonLexer, DEPTH_UNKNOWN, type JsonLexer } from '../restore/json-lexer.ts';
import type { SecretSet } from './secret-set.ts';
import { collectHits, type Hit, type ViewOptions } from './views.ts';

export type { Hit } from './views.ts';

/**
 * Every hit of a registered value in `buf` (overlapping hits included; see selectHits). Throws
 * FICTA_BODY_TOO_DEEP when its escapes nest past what can be checked.
 */
export function inspect(set: SecretSet, buf: Buffer, options: ViewOptions = {}): Hit[] {
  const hits: Hit[] = [];
  if (set.inert || buf.length === 0) return hits;
  collectHits(set, buf, options, hits);
  if (set.detection !== undefined) {
    dropDetectedCopiesOfRegistered(hits);
    keepFoundForm(set, buf, hits, options.json === true);
  }
  const exempt = set.exempt;
  return exempt === undefined || hits.length === 0 ? hits : hits.filter((h) => !exempt(h.secret));
}

/**
 * A registered value that also has a detectable format (a `glpat-…` in the vault) is hit twice at the same
 * bytes: as itself and as a detected credential. The registered hit wins, so the value keeps its own
 * placeholder, name and allowed hosts in every form (a detected copy found in a decoded view would
 * otherwise be kept in its encoded form, under another placeholder).
 */
function dropDetectedCopiesOfRegistered(hits: Hit[]): void {
  // start → ends of registered hits (exact integers: a body may be 32 MiB, past what one packed number keeps).
  let registered: Map<number, number[]> | undefined;
  let detected = false;
  for (const h of hits) {
    if (h.secret >= 0) {
      registered ??= new Map();
      const ends = registered.get(h.start);
      if (ends === undefined) registered.set(h.start, [h.end]);
      else ends.push(h.end);
    } else if (h.secret <= -2) detected = true;
  }
  if (registered === undefined || !detected) return;
  let w = 0;
  for (const h of hits) if (h.secret >= 0 || registered.get(h.start)?.includes(h.end) !== true) hits[w++] = h;
  hits.length = w;
}

/**
 * A detected value is restored in the form it had where it was found. Restore escapes a value for the
 * string depth its placeholder lands at (the forward lexer's depth: 1 in a JSON string, 2 in JSON text
 * inside one, 1 again in prose that merely quotes JSON), so the value kept is the hit's source bytes read
 * at the depth the same lexer gives the hit's first byte: a key block a Python repr prints with `\n`
 * escapes inside a message stays escaped, one inside JSON text in a message is the JSON string's value.
 * A detector may read deeper to confirm a value (a key block whose lines are `\\n`-separated, a token
 * in a decoded view) and then reports it decoded; such a hit gets the value its source bytes say instead.
 * Only detected hits are looked at. A value read from source bytes that hold no escape (no `\\`, `%` or
 * `+`) is those bytes, at any depth: one read of its bytes, nothing else. Otherwise the value is compared
 * with its source bytes escaped to their depth, and the body is lexed (once, forward) for that depth.
 */
function keepFoundForm(set: SecretSet, buf: Buffer, hits: Hit[], json: boolean): void {
  let lexer: JsonLexer | undefined;
  let lexedTo = 0;
  let detected: Hit[] | undefined;
  for (const h of hits) if (h.secret <= -2 && holdsEscape(buf, h.start, h.end)) (detected ??= []).push(h);
  if (detected === undefined) return;
  detected.sort((a, b) => a.start - b.start);
  for (const h of detected) {
    lexer ??= createJsonLexer(json ? 'value' : 'structured');
    lexer.advance(buf, lexedTo, h.start + 1);
    lexedTo = h.start + 1;
    const depth = lexer.depth();
    if (depth === DEPTH_UNKNOWN) continue; // nested past what restore follows: it will not restore there either
    const source = buf.subarray(h.start, h.end);
    if (set.valueBytes(h.secret, depth).equals(source)) continue;
    const value = decodeLevels(source.toString('utf8'), depth);
    if (value === undefined) continue; // not the content of a string at that depth: keep what the detector read
    h.secret = set.detected(value, kindOfSecret(h.secret), set.unverified(h.secret));
  }
}

/** Whether buf[start, end) holds a byte a decoded view reads as an escape: `\\`, `%` or `+`. */
function holdsEscape(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const b = buf[i];
    if (b === 0x5c || b === 0x25 || b === 0x2b) return true;
  }
  return false;
}

/** `text` with `depth` levels of JSON string escaping undone; undefined when a level does not parse. */
function decodeLevels(text: string, depth: number): string | undefined {
  let s = text;
  try {
    for (let d = 0; d < depth; d++) s = JSON.parse(`"${s}"`) as string;
  } catch {
    return undefined;
  }
  return s;
}

/**
 * Picks non-overlapping hits to replace, covering as many of the hits' bytes as possible: in a cluster of
 * transitively overlapping hits, the set with the largest total length wins (a longer value over the
 * shorter one inside it; two values that meet over one shared byte over a third found across them), and
 * among equals the one ending first. The result is ordered by start. The common case (no overlaps) is one sort.
 */
export function selectHits(hits: readonly Hit[]): Hit[] {
  const sorted = hits.slice().sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Hit[] = [];
  let i = 0;
  while (i < sorted.length) {
    let j = i + 1;
    let clusterEnd = (sorted[i] as Hit).end;
    while (j < sorted.length && (sorted[j] as Hit).start < clusterEnd) {
      clusterEnd = Math.max(clusterEnd, (sorted[j] as Hit).end);
      j++;
    }
    if (j === i + 1) out.push(sorted[i] as Hit);
    else for (const h of resolveCluster(sorted.slice(i, j))) out.push(h);
    i = j;
  }
  return out;
}

/** A filter for hits sorted by start: true when the hit's source bytes hold no `sep` byte (linear over all hits). */
export function notAcross(buf: Buffer, sep: number): (h: Hit) => boolean {
  let next = -2;
  return (h) => {
    if (next !== -1 && next < h.start) next = buf.indexOf(sep, h.start);
    return next === -1 || next >= h.end;
  };
}

/**
 * Weighted interval scheduling over one cluster (weight = length): best[i] is the most bytes the first i
 * hits by end can cover without overlap. O(k log k) for k hits, whatever their shape.
 */
function resolveCluster(cluster: Hit[]): Hit[] {
  const byEnd = cluster.sort((a, b) => a.end - b.end || a.start - b.start);
  const n = byEnd.length;
  const best = new Float64Array(n + 1);
  const before = new Int32Array(n);
  const take = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const h = byEnd[i] as Hit;
    // How many hits end at or before this one starts (they come first by end).
    let lo = 0;
    let hi = i;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((byEnd[mid] as Hit).end <= h.start) lo = mid + 1;
      else hi = mid;
    }
    const withIt = h.end - h.start + (best[lo] as number);
    if (withIt > (best[i] as number)) {
      best[i + 1] = withIt;
      before[i] = lo;
      take[i] = 1;
    } else best[i + 1] = best[i] as number;
  }
  const taken: Hit[] = [];
  for (let i = n; i > 0; ) {
    if (take[i - 1] === 1) {
      taken.push(byEnd[i - 1] as Hit);
      i = before[i - 1] as number;
    } else i--;
  }
  return taken.reverse();
}
