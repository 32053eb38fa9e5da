// What every request case starts from: a few adversarial registered values, a provider route, auth
// headers (which may carry a value and must pass untouched), and helpers to attach a body.

import { dotenvQuote } from '../../helpers/ficta-server.ts';
import { named, type RequestCase } from '../harness/request-case.ts';
import type { Rng } from '../rng.ts';
import { drawValues, type ValueOptions } from './values.ts';

/** A header value carrying `s` as UTF-8 bytes (Node takes header strings as latin1). */
export function headerBytes(s: string): string {
  return Buffer.from(s, 'utf8').toString('latin1');
}

/** True when `s` can travel in a header line as it is: no control characters but tab, and no blank at either end (HTTP trims it). */
export function headerSafe(s: string): boolean {
  return !/[\u0000-\u0008\u000a-\u001f\u007f]/.test(s) && !/^[ \t]|[ \t]$/.test(s);
}

/** A case with values registered, a route and default headers, no body yet. */
export function baseCase(rng: Rng, valueOptions: ValueOptions = {}, count = rng.int(1, 4)): RequestCase {
  const values = drawValues(rng, count, valueOptions);
  const route = rng.pick(['anthropic', 'openai'] as const);
  const path = route === 'anthropic' ? rng.pick(['/v1/messages', '/v1/messages?beta=true', '/v1/messages/count_tokens']) : rng.pick(['/v1/chat/completions', '/v1/responses', '/v1/embeddings']);
  const headers: Array<[string, string]> = [];
  const auth = rng.pick(['x-api-key', 'authorization', 'none'] as const);
  const authValue = values.find(headerSafe);
  if (auth !== 'none') {
    const v = authValue !== undefined && rng.chance(0.5) ? headerBytes(authValue) : 'fuzz-provider-key-0000';
    headers.push([auth, auth === 'authorization' ? `Bearer ${v}` : v]);
  }
  if (rng.chance(0.4)) headers.push(['accept-encoding', rng.pick(['gzip, br', 'identity', 'gzip, deflate, br, zstd', '*'])]);
  if (route === 'anthropic' && rng.chance(0.6)) headers.push(['anthropic-version', '2023-06-01']);
  return {
    values,
    register: { kind: 'source', entries: named(values) },
    route,
    method: 'POST',
    routeTarget: path,
    headers,
    body: Buffer.alloc(0),
    decodedBody: Buffer.alloc(0),
    json: 'none',
  };
}

/** Attaches an uncompressed body with an optional content-type. */
export function withBody(c: RequestCase, body: Buffer, contentType: string | undefined, json: RequestCase['json']): RequestCase {
  if (contentType !== undefined) c.headers.push(['content-type', contentType]);
  c.body = body;
  c.decodedBody = body;
  c.json = json;
  return c;
}

/** A GET without a body. */
export function withoutBody(c: RequestCase): RequestCase {
  c.method = 'GET';
  c.body = undefined;
  c.decodedBody = Buffer.alloc(0);
  return c;
}

/** Registers the case's values through a dotenv file in which names repeat (every value distinct). */
export function registerByEnvFile(rng: Rng, c: RequestCase): RequestCase {
  const names = ['API_KEY', 'TOKEN', 'DB_PASSWORD'];
  const lines = c.values.map((v, i) => `${rng.chance(0.2) ? 'export ' : ''}${i < 2 ? 'API_KEY' : rng.pick(names)}=${dotenvQuote(v)}`);
  c.register = { kind: 'env', text: `${rng.shuffle(lines).join('\n')}\n` };
  return c;
}
