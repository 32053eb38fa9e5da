// Request generator classes for the other surfaces: content-encodings (one, stacked in one line,
// repeated across lines with identity mixed in, unknown), query strings (percent variants, `+`),
// path segments (values, matrix parameters, dot segments) and headers (repeated, percent forms).

import type { RequestCase } from '../harness/request-case.ts';
import type { Rng } from '../rng.ts';
import { codingToken, compress, KNOWN_CODINGS, percentEncode } from './encodings.ts';
import { PLAIN_STYLE, writeJson } from './json-writer.ts';
import { baseCase, headerBytes, headerSafe, withBody, withoutBody } from './request-base.ts';
import type { RequestGen } from './request-bodies.ts';
import { requestDoc } from './request-doc.ts';
import { digitValue } from './values.ts';

const PCT_MODES = ['component', 'lower', 'all', 'form', 'mixed'] as const;

function encoded(rng: Rng, layout: 'single' | 'stacked' | 'repeated' | 'unknown'): RequestCase {
  const c = baseCase(rng);
  const plain = Buffer.from(writeJson(rng, requestDoc(rng, { values: c.values, depth: rng.int(1, 2), keyShare: 0.1 }), { styles: [PLAIN_STYLE], spacing: 'compact' }), 'utf8');
  const count = layout === 'single' ? 1 : rng.int(2, 3);
  const codings: string[] = Array.from({ length: count }, () => rng.pick(KNOWN_CODINGS));
  if (layout === 'unknown') codings.splice(rng.int(0, codings.length), 0, rng.pick(['zstd', 'compress', 'x-fuzz']));
  let body: Buffer = plain;
  for (const coding of codings) body = compress(body, coding);
  const tokens = codings.map((co) => codingToken(rng, co));
  // identity anywhere in the list changes nothing (RFC 9110 §8.4.1).
  if (layout !== 'single' && rng.chance(0.6)) tokens.splice(rng.int(0, tokens.length), 0, 'identity');
  c.headers.push(['content-type', 'application/json']);
  if (layout === 'repeated') for (const t of tokens) c.headers.push(['content-encoding', t]);
  else c.headers.push(['content-encoding', tokens.join(rng.pick([', ', ',', ' , ']))]);
  c.body = body;
  c.decodedBody = plain;
  c.json = 'json';
  // An unknown coding is refused with 415; a body that does not decode is a 400.
  c.alsoRefuse = layout === 'unknown' ? [415, 400] : [];
  return c;
}

/** One coding: gzip, x-gzip, zlib or raw deflate, br, in any letter case. */
export const encodingSingle: RequestGen = (rng) => encoded(rng, 'single');
/** Several codings in one header line, identity mixed in. */
export const encodingStacked: RequestGen = (rng) => encoded(rng, 'stacked');
/** Several content-encoding header lines, identity mixed in. */
export const encodingRepeated: RequestGen = (rng) => encoded(rng, 'repeated');
/** A coding ficta does not decode somewhere in the list. */
export const encodingUnknown: RequestGen = (rng) => encoded(rng, 'unknown');

function maybeBody(rng: Rng, c: RequestCase): RequestCase {
  if (rng.chance(0.5)) return withoutBody(c);
  return withBody(c, Buffer.from('{"model":"gpt-x","messages":[{"role":"user","content":"hi"}]}'), 'application/json', 'json');
}

/** Query parameters (names and values) that are exactly a value, in every percent form. */
export const queryWhole: RequestGen = (rng) => {
  const c = baseCase(rng);
  const params = ['beta=true'];
  for (const v of c.values) {
    const enc = percentEncode(rng, v, rng.pick(PCT_MODES));
    params.push(rng.chance(0.2) ? `${enc}=1` : `${rng.pick(['key', 'q', 'token'])}=${enc}`);
  }
  c.routeTarget = `${c.routeTarget.split('?')[0]}?${rng.shuffle(params).join('&')}`;
  return maybeBody(rng, c);
};

/** Query values that mix a value with other text, `+` spaces and percent-encoded non-ASCII. */
export const queryMixed: RequestGen = (rng) => {
  const c = baseCase(rng);
  const params = c.values.map((v) => `q=${percentEncode(rng, `${rng.pick(['café', 'a b', 'x'])} ${v} ${rng.pick(['fin', 'über'])}`, rng.pick(['form', 'mixed'] as const))}`);
  params.push('lang=caf%C3%A9+cr%C3%A8me');
  c.routeTarget = `${c.routeTarget.split('?')[0]}?${rng.shuffle(params).join('&')}`;
  return maybeBody(rng, c);
};

/**
 * A path segment that is exactly a value (percent-encoded), on a plain GET, on a WebSocket upgrade
 * (refused: a request line with outcome `websocket_refused`) and on a request the gate blocks (outcome `blocked`).
 */
export const pathSegment: RequestGen = (rng) => {
  const c = baseCase(rng);
  c.route = 'openai';
  const value = rng.pick(c.values);
  c.routeTarget = `/v1/files/${percentEncode(rng, value, rng.pick(['component', 'lower', 'all', 'mixed'] as const))}/content`;
  // A value with a `.` or `..` part between slashes is a dot segment once an encoded slash is read as one
  // (DESIGN §2: refused with 400, as some servers decode `%2f` before normalising).
  const dotted = value.split(/[/\\]/).some((part) => ['.', '..'].includes(part.split(';', 1)[0] as string));
  if (dotted) c.alsoRefuse = [400];
  const shape = rng.int(0, 2);
  if (shape === 1) {
    c.headers.push(['connection', 'Upgrade'], ['upgrade', 'websocket'], ['sec-websocket-version', '13'], ['sec-websocket-key', 'dGhlIHNhbXBsZSBub25jZQ==']);
    c.alsoRefuse = [...(c.alsoRefuse ?? []), 426];
    return withoutBody(c);
  }
  if (shape === 2) {
    const digits = digitValue(rng);
    c.values.push(digits);
    c.register = { kind: 'source', entries: c.values.map((value, i) => ({ name: `FUZZ_SECRET_${i + 1}`, value })) };
    return withBody(c, Buffer.from(`{"model":"gpt-x","n":${digits}}`), 'application/json', 'json');
  }
  return withoutBody(c);
};

/** A value inside a segment next to other text: matrix parameters (`/v1/x;m=<value>/y`). */
export const pathMatrix: RequestGen = (rng) => {
  const c = baseCase(rng);
  c.routeTarget = `/v1/x;m=${percentEncode(rng, rng.pick(c.values), rng.pick(['component', 'lower', 'mixed'] as const))}/y`;
  return withoutBody(c);
};

/** Dot segments, raw and percent-encoded, that would climb out of the route or the base path. */
export const pathDot: RequestGen = (rng) => {
  const c = baseCase(rng);
  const dot = (): string => rng.pick(['..', '%2e%2e', '%2E%2E', '.%2e', '%2e.', '.', '%2e']);
  const segs = ['v1', dot(), rng.pick(['models', 'openai', 'v1', dot()]), rng.pick(['models', 'chat', dot()])];
  c.routeTarget = `/${segs.join('/')}`;
  c.alsoRefuse = [400, 404];
  return maybeBody(rng, c);
};

/** Non-auth headers that are exactly a value (raw UTF-8 bytes or percent-encoded), some repeated. */
export const headersWhole: RequestGen = (rng) => {
  const c = baseCase(rng, { alphabet: 'no-control' });
  for (const v of c.values) {
    const name = rng.pick(['x-meta', 'x-session', 'x-note', 'user-agent', 'x-stainless-arch', 'openai-organization']);
    // `+` for space is form encoding, not percent-encoding: that case has its own class.
    const value = rng.chance(0.5) && headerSafe(v) ? headerBytes(v) : percentEncode(rng, v, rng.pick(['component', 'lower', 'all'] as const));
    c.headers.push([name, value]);
    if (rng.chance(0.3)) c.headers.push([name, 'second line']);
  }
  return maybeBody(rng, c);
};

/** Header values carrying a value with spaces in form encoding (`+` for space), alone or as `k=v` pairs. */
export const headersPlus: RequestGen = (rng) => {
  const c = baseCase(rng, { alphabet: 'no-control' });
  c.values = c.values.map(withSpace);
  for (const v of c.values) c.headers.push(['x-meta', rng.chance(0.5) ? percentEncode(rng, v, 'form') : `q=${percentEncode(rng, v, 'form')}`]);
  c.register = { kind: 'source', entries: c.values.map((value, i) => ({ name: `FUZZ_SECRET_${i + 1}`, value })) };
  return maybeBody(rng, c);
};

/** `v` with a space after its fourth character unless it holds one (split between code points, never inside a surrogate pair). */
function withSpace(v: string): string {
  if (v.includes(' ')) return v;
  const chars = Array.from(v);
  return `${chars.slice(0, 4).join('')} ${chars.slice(4).join('')}`;
}

/** Header values that mix other text with a percent-encoded value (`name=John Doe; tok=<value>`). */
export const headersMixed: RequestGen = (rng) => {
  const c = baseCase(rng, { alphabet: 'no-control' });
  for (const v of c.values) c.headers.push(['x-meta', `name=John Doe; tok=${percentEncode(rng, v, rng.pick(['component', 'lower', 'mixed'] as const))}; caf%C3%A9`]);
  return maybeBody(rng, c);
};
