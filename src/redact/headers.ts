// Request headers: which pass untouched (the auth allowlist the upstream needs), which are hop-by-hop
// and dropped, and redaction of every other header value by byte surgery (only a value's span changes).

import { inspect, selectHits } from './inspect.ts';
import { replaceHits, type CountMap } from './replace.ts';
import type { SecretSet } from './secret-set.ts';

/** Credentials the upstream needs: forwarded unredacted (DESIGN §2). */
export const AUTH_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'x-api-key',
  'proxy-authorization',
  'cookie',
  'api-key',
  'x-goog-api-key',
]);

/** Connection-level headers (RFC 9110 §7.6.1) and those undici sets itself: never forwarded. */
export const HOP_BY_HOP: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'host',
  'content-length',
  'expect',
  // The gateway's tenant token (issue 21): a credential for ficta itself, never sent on.
  'x-ficta-token',
  'http2-settings',
]);

/** A header list as [name (lowercase), value] pairs, duplicates kept in order. */
export type HeaderList = Array<[string, string]>;

/** Lowercased header pairs from Node's rawHeaders, minus hop-by-hop ones and those named in `Connection`. */
export function forwardableHeaders(rawHeaders: readonly string[]): HeaderList {
  const out: HeaderList = [];
  const dropped = new Set<string>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if ((rawHeaders[i] as string).toLowerCase() === 'connection') {
      for (const t of (rawHeaders[i + 1] as string).split(',')) dropped.add(t.trim().toLowerCase());
    }
  }
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] as string).toLowerCase();
    if (HOP_BY_HOP.has(name) || dropped.has(name)) continue;
    out.push([name, rawHeaders[i + 1] as string]);
  }
  return out;
}

/** Redacts every non-auth header value (every line of a repeated header) in place; returns the same list. */
export function redactHeaders(set: SecretSet, headers: HeaderList, counts: CountMap): HeaderList {
  if (set.inert) return headers;
  for (const pair of headers) {
    if (AUTH_HEADERS.has(pair[0])) continue;
    // Node hands header values over as latin1: read them back as the bytes that were sent.
    const bytes = Buffer.from(pair[1], 'latin1');
    const hits = selectHits(inspect(set, bytes));
    if (hits.length > 0) pair[1] = replaceHits(set, bytes, hits, counts).toString('latin1');
  }
  return headers;
}

/** Every value of a header across its repeated lines, in order (each line's comma-separated list flattened). */
export function headerList(headers: HeaderList, name: string): string[] {
  const out: string[] = [];
  for (const [n, v] of headers) {
    if (n !== name) continue;
    for (const item of v.split(',')) {
      const t = item.trim();
      if (t !== '') out.push(t);
    }
  }
  return out;
}
