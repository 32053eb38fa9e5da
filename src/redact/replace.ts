// Rewrites a buffer with the chosen hits replaced by their placeholders, counting redactions per secret.

import type { Hit } from './inspect.ts';
import type { SecretSet } from './secret-set.ts';

/** Counts per secret index. */
export type CountMap = Map<number, number>;

/** Adds `n` to the count of `secret`. */
export function bump(counts: CountMap, secret: number, n = 1): void {
  counts.set(secret, (counts.get(secret) ?? 0) + n);
}

/**
 * Returns `buf` with every hit (non-overlapping, ordered by start) replaced by its placeholder. In
 * detection's `block` mode detected credentials stay in place, for the gate to refuse the request.
 */
export function replaceHits(set: SecretSet, buf: Buffer, hits: readonly Hit[], counts: CountMap): Buffer {
  if (hits.length === 0) return buf;
  const parts: Buffer[] = [];
  const keepDetected = set.detection?.mode === 'block';
  let pos = 0;
  for (const h of hits) {
    if (h.secret < 0 && keepDetected) continue;
    if (h.start > pos) parts.push(buf.subarray(pos, h.start));
    parts.push(set.placeholderFor(h.secret));
    bump(counts, h.secret);
    pos = h.end;
  }
  if (pos < buf.length) parts.push(buf.subarray(pos));
  return Buffer.concat(parts);
}
