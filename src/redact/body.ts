// Redaction of a request body: one automaton pass finds every registered value; each one inside a JSON
// string (or anywhere in other text) becomes its placeholder, and every other byte is forwarded as is.
// A value that cannot be replaced without changing the document's structure (a JSON number, a binary
// part) is left for the gate, which blocks the request.

import type { BodyKind } from './body-kind.ts';
import { inspect, selectHits } from './inspect.ts';
import { spansInsideStrings } from './json-text.ts';
import { replaceHits, type CountMap } from './replace.ts';
import type { SecretSet } from './secret-set.ts';
import { redactQueryString } from './url.ts';

export interface RedactedBody {
  bytes: Buffer;
  /** The inspection found nothing: `bytes` is the input, already scanned clean by the same detector the gate uses. */
  clean: boolean;
}

/** Redacts a body of the given kind, adding to `counts` per secret. */
export function redactBody(set: SecretSet, body: Buffer, kind: BodyKind, counts: CountMap): RedactedBody {
  if (set.inert || body.length === 0) return { bytes: body, clean: true };
  const hits = inspect(set, body, kind === 'form' ? 'text' : kind);
  if (kind === 'form') {
    const text = body.toString('latin1');
    const out = redactQueryString(set, text, counts);
    if (hits.length === 0 && out === text) return { bytes: body, clean: true };
    return { bytes: out === text ? body : Buffer.from(out, 'latin1'), clean: false };
  }
  if (hits.length === 0) return { bytes: body, clean: true };
  if (kind === 'binary') return { bytes: body, clean: false };

  let chosen = selectHits(hits);
  if (kind === 'json') {
    const raw = chosen.filter((h) => !h.inString);
    if (raw.length > 0) {
      const inside = spansInsideStrings(body, raw.map((h) => h.start), raw.map((h) => h.end));
      const outside = new Set(raw.filter((_, i) => inside[i] !== true));
      if (outside.size > 0) chosen = chosen.filter((h) => !outside.has(h));
    }
  }
  return { bytes: replaceHits(set, body, chosen, counts), clean: false };
}
