// Which upstream response headers reach the client: hop-by-hop ones never do; length and encoding are
// dropped when ficta rewrites the body (restore), since the body it sends differs from the one received.

import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

const HOP_BY_HOP_RESPONSE = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authenticate']);

/** Headers to send to the client; `rewritten` drops content-length and content-encoding. */
export function clientHeaders(upstream: IncomingHttpHeaders, rewritten: boolean, requestId: string): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(upstream)) {
    if (value === undefined || HOP_BY_HOP_RESPONSE.has(name)) continue;
    if (rewritten && (name === 'content-length' || name === 'content-encoding')) continue;
    out[name] = value;
  }
  out['x-ficta-request-id'] = requestId;
  return out;
}
