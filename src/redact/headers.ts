// Request headers: which pass untouched (the auth allowlist the upstream needs), which are hop-by-hop
// and dropped, and redaction of every other header value.

import type { CountMap } from './replace.ts';
import type { SecretSet } from './secret-set.ts';
import { redactComponent, replaceInText } from './url.ts';

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

/** Redacts every non-auth header value in place; returns the same list. */
export function redactHeaders(set: SecretSet, headers: HeaderList, counts: CountMap): HeaderList {
  if (set.inert) return headers;
  for (const pair of headers) {
    if (AUTH_HEADERS.has(pair[0])) continue;
    const value = pair[1];
    // Node hands header values over as latin1: read them back as the bytes that were sent.
    const out = replaceInText(set, value, counts, 'latin1') ?? (value.includes('%') ? redactComponent(set, value, false, counts) : undefined);
    if (out !== undefined) pair[1] = out;
  }
  return headers;
}
