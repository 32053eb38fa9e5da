// Finds every occurrence of a registered value in a buffer, in every form it can take there: raw and
// JSON-escaped (depths 0–3, compiled into the automaton) in one pass, and — where the bytes hold an escape
// that could hide a value from those forms — in decoded views (views.ts). Both the redactor and the
// fail-closed gate use it; the gate runs it on the exact outgoing bytes.

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
  return hits;
}

/**
 * Picks non-overlapping hits to replace: the longest wins an overlap (then the leftmost), and the
 * result is ordered by start. Hits are first cut into clusters of transitively overlapping spans, so
 * the common case (no overlaps) is one sort.
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

function resolveCluster(cluster: Hit[]): Hit[] {
  const byPriority = cluster.sort((a, b) => b.end - b.start - (a.end - a.start) || a.start - b.start);
  const taken: Hit[] = [];
  if (cluster.length <= 16) {
    for (const h of byPriority) {
      if (!taken.some((t) => h.start < t.end && t.start < h.end)) taken.push(h);
    }
  } else {
    // Large clusters (a value repeated back to back): an occupancy map keeps this linear in the span.
    let lo = Infinity;
    let hi = 0;
    for (const h of cluster) {
      lo = Math.min(lo, h.start);
      hi = Math.max(hi, h.end);
    }
    const used = new Uint8Array(hi - lo);
    for (const h of byPriority) {
      let free = true;
      for (let k = h.start - lo; k < h.end - lo; k++) {
        if (used[k] === 1) {
          free = false;
          break;
        }
      }
      if (!free) continue;
      used.fill(1, h.start - lo, h.end - lo);
      taken.push(h);
    }
  }
  return taken.sort((a, b) => a.start - b.start);
}
