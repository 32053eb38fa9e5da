// Redaction of the request target by byte surgery: a value found in it in any form (raw, percent-encoded,
// escaped; views.ts) is replaced by its placeholder, and every other byte — other escapes, their case,
// `+` — is kept as sent. A value across a `/` of the path or an `&` of the query is left for the gate.

import { inspect, notAcross, selectHits } from './inspect.ts';
import { replaceHits, type CountMap } from './replace.ts';
import type { SecretSet } from './secret-set.ts';

const SLASH = 0x2f;
const AMPERSAND = 0x26;

/** Redacts a request target `path?query`; returns the input when it holds no registered value. */
export function redactTarget(set: SecretSet, target: string, counts: CountMap): string {
  if (set.size === 0 || target === '') return target;
  // Node hands the target over as latin1: read it back as the bytes that were sent.
  const buf = Buffer.from(target, 'latin1');
  const hits = selectHits(inspect(set, buf));
  if (hits.length === 0) return target;
  const q = target.indexOf('?');
  const pathEnd = q === -1 ? buf.length : q;
  const inPath = notAcross(buf, SLASH);
  const inQuery = notAcross(buf, AMPERSAND);
  const chosen = hits.filter((h) => (h.end <= pathEnd ? inPath(h) : h.start > pathEnd && inQuery(h)));
  return chosen.length === 0 ? target : replaceHits(set, buf, chosen, counts).toString('latin1');
}

/** The path of a target, without its query. */
export function pathOfTarget(target: string): string {
  const q = target.indexOf('?');
  return q === -1 ? target : target.slice(0, q);
}
