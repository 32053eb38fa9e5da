// Redaction of a request body by byte surgery: every registered value found (in any form, views.ts) is
// replaced by its placeholder where it can be without changing the document's structure — inside a JSON
// string, anywhere in text, inside one form field, inside a text or JSON multipart part — and every other
// byte is forwarded as is. A value left in place (a JSON number, a binary part) is the gate's to block.

import { FictaError } from '../errors.ts';
import type { BodyKind } from './body-kind.ts';
import { classifyBody } from './body-kind.ts';
import { inspect, notAcross, selectHits, type Hit } from './inspect.ts';
import { insideStrings } from './json-strings.ts';
import { multipartBoundary, parseMultipart, type MultipartPart } from './multipart.ts';
import { replaceHits, type CountMap } from './replace.ts';
import type { SecretSet } from './secret-set.ts';

export interface RedactedBody {
  bytes: Buffer;
  /** The inspection found nothing: `bytes` is the input, already scanned clean by the same detector the gate uses. */
  clean: boolean;
}

/** How the gate (and the clean check) inspects a body of this kind. */
export function bodyInspectOptions(kind: BodyKind): { binary: boolean; json: boolean } {
  return { binary: kind === 'binary' || kind === 'multipart', json: kind === 'json' };
}

/** Redacts a body of the given kind, adding to `counts` per secret. `contentType` is needed for multipart. */
export function redactBody(set: SecretSet, body: Buffer, kind: BodyKind, counts: CountMap, contentType?: string): RedactedBody {
  if (set.inert || body.length === 0) return { bytes: body, clean: true };
  const parts = kind === 'multipart' ? readParts(body, contentType) : undefined;
  const hits = inspect(set, body, bodyInspectOptions(kind));
  if (hits.length === 0) return { bytes: body, clean: true };
  const chosen = parts !== undefined ? multipartHits(set, body, parts) : replaceable(body, kind, selectHits(hits));
  return { bytes: chosen.length === 0 ? body : replaceHits(set, body, chosen, counts), clean: false };
}

/** The hits (non-overlapping, by start) that can be replaced in a body of `kind` without changing its structure. */
function replaceable(body: Buffer, kind: BodyKind, hits: Hit[]): Hit[] {
  if (kind === 'binary' || kind === 'multipart') return [];
  if (kind === 'json') {
    const inside = insideStrings(body, hits);
    return hits.filter((_, i) => inside[i] === true);
  }
  if (kind === 'form') return hits.filter(notAcross(body, AMPERSAND));
  return hits;
}

const AMPERSAND = 0x26;

/**
 * The parts of a multipart body (undefined when its framing is not recognised: it is then only gated).
 * Refuses a part the gate cannot read through (base64, quoted-printable), as for an unknown content-encoding.
 */
function readParts(body: Buffer, contentType: string | undefined): MultipartPart[] | undefined {
  const boundary = multipartBoundary(contentType);
  const parts = boundary === undefined ? undefined : parseMultipart(body, boundary);
  for (const p of parts ?? []) {
    const te = p.transferEncoding;
    if (te !== undefined && te !== '7bit' && te !== '8bit' && te !== 'binary') {
      throw new FictaError('FICTA_BODY_UNSUPPORTED_ENCODING', `request: a multipart part uses content-transfer-encoding "${te.slice(0, 40)}" (7bit, 8bit and binary are supported)`);
    }
  }
  return parts;
}

/** Hits to replace inside the parts of a multipart body (header blocks read as text; bodies by their own type). */
function multipartHits(set: SecretSet, body: Buffer, parts: readonly MultipartPart[]): Hit[] {
  const out: Hit[] = [];
  const within = (start: number, end: number, kind: BodyKind): void => {
    if (end <= start || kind === 'binary' || kind === 'multipart') return;
    const bytes = body.subarray(start, end);
    const hits = inspect(set, bytes, bodyInspectOptions(kind));
    if (hits.length === 0) return;
    for (const h of replaceable(bytes, kind, selectHits(hits))) out.push({ start: h.start + start, end: h.end + start, secret: h.secret });
  };
  for (const p of parts) {
    within(p.headerStart, p.headerEnd, 'text');
    within(p.bodyStart, p.bodyEnd, classifyBody(p.contentType, body.subarray(p.bodyStart, p.bodyEnd)));
  }
  return out;
}
