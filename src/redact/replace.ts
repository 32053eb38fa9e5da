// Rewrites a buffer with the chosen hits replaced by their placeholders, counting redactions per secret.

import { kindOfSecret } from '../detect/store.ts';
import type { Hit } from './inspect.ts';
import type { SecretSet } from './secret-set.ts';

/** Counts per secret index. */
export type CountMap = Map<number, number>;

/** Adds `n` to the count of `secret`. */
export function bump(counts: CountMap, secret: number, n = 1): void {
  counts.set(secret, (counts.get(secret) ?? 0) + n);
}

/**
 * Returns `buf` with every hit (non-overlapping, ordered by start) replaced by its placeholder; other bytes
 * copied as they are. In detection's `block` mode detected credentials stay in place, for the gate to
 * refuse the request, except those that failed their kind's checksum (`unverified`): a test fixture is
 * redacted, not blocked; and terms, which are redacted like registered secrets.
 */
export function replaceHits(set: SecretSet, buf: Buffer, hits: readonly Hit[], counts: CountMap): Buffer {
  const detection = set.detection;
  const keepDetected = detection?.mode === 'block';
  const keep = (secret: number): boolean => secret < 0 && keepDetected && !set.unverified(secret) && detection.detector.kinds[kindOfSecret(secret)]?.alwaysRedact !== true;
  let size = buf.length;
  let replaced = 0;
  for (const h of hits) {
    if (keep(h.secret)) continue;
    size += set.placeholderFor(h.secret).length - (h.end - h.start);
    replaced++;
  }
  if (replaced === 0) return buf;
  const out = Buffer.allocUnsafe(size);
  let pos = 0;
  let o = 0;
  for (const h of hits) {
    if (keep(h.secret)) continue;
    o += buf.copy(out, o, pos, h.start);
    o += set.placeholderFor(h.secret).copy(out, o);
    bump(counts, h.secret);
    pos = h.end;
  }
  buf.copy(out, o, pos);
  return out;
}
