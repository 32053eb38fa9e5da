// The request-side oracle: given what a client sent and what reached the mock provider, either the
// request was refused with nothing forwarded, or it was forwarded with no registered value in any form
// the gate claims to cover, and every byte that is not a secret arrived as sent (target, headers, body:
// the forwarded bytes are the sent bytes with exactly the secret spans replaced by their placeholders).

import { alignRegions, type AlignToken } from './align.ts';
import { declaredCodings, decompressedViews } from './decompress.ts';
import { percentDecode, utf8Text } from './decode.ts';
import { isJsonText } from './json-lexer.ts';
import { findLeaks, type Surface } from './leak-views.ts';
import type { PlaceholderMap } from './placeholder-map.ts';
import { maxSpanBytes, someReading, spanEncodes } from './region-decoders.ts';

/** Headers the upstream needs and ficta forwards unredacted (DESIGN §2). */
export const AUTH_HEADERS: ReadonlySet<string> = new Set(['authorization', 'x-api-key', 'proxy-authorization', 'cookie', 'api-key', 'x-goog-api-key']);
/** Hop-by-hop and framing headers that never pass through as sent. */
const NOT_FORWARDED: ReadonlySet<string> = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host', 'content-length', 'expect', 'http2-settings']);

export interface SentRequest {
  method: string;
  /** Target after the route prefix (what the upstream should see after its base path). */
  routeTarget: string;
  /** Header lines as sent (latin1 strings of the raw bytes), repeats kept. */
  headers: Array<[string, string]>;
  /** The body with every content-encoding undone (what the gate must see). */
  decodedBody: Buffer;
  /** The body is JSON (or JSONL: one JSON text per line) that must stay valid. */
  json: 'json' | 'jsonl' | 'none';
}

export interface ForwardedRequest {
  method: string;
  target: string;
  /** Node's rawHeaders (latin1). */
  rawHeaders: string[];
  body: Buffer;
}

export interface RequestOutcome {
  status: number;
  /** What the client got back (a refusal must not quote a value either). */
  responseBody: Buffer;
  forwarded: ForwardedRequest[];
  /** Log lines ficta wrote while handling the case. */
  logs: string[];
}

export interface Verdict {
  ok: boolean;
  /** One line per problem, naming surfaces, offsets and value indexes — never a value. */
  problems: string[];
  outcome: 'forwarded' | 'refused';
}

/** Checks one request case. `allowRefusal` lists the statuses that count as refusing safely. */
export function checkRequest(map: PlaceholderMap, sent: SentRequest, got: RequestOutcome, upstreamBasePath: string, allowRefusal: ReadonlySet<number>, verbose = false): Verdict {
  const problems: string[] = [];
  const values = map.values;
  for (const l of findLeaks(values, got.logs.map((line, i) => ({ where: `log line ${i + 1}`, bytes: Buffer.from(line, 'utf8') })))) {
    problems.push(`LOG LEAK: value #${l.valueIndex} in ${l.where} (${l.view})`);
  }
  if (got.status !== 200) {
    if (got.forwarded.length > 0) problems.push(`status ${got.status} but ${got.forwarded.length} request(s) reached the upstream`);
    if (!allowRefusal.has(got.status)) problems.push(`unexpected status ${got.status}`);
    for (const l of findLeaks(values, [{ where: 'error response', bytes: got.responseBody }])) problems.push(`LEAK: value #${l.valueIndex} quoted in the ${l.where} (${l.view})`);
    return { ok: problems.length === 0, problems, outcome: 'refused' };
  }
  if (got.forwarded.length !== 1) {
    problems.push(`status 200 but ${got.forwarded.length} request(s) reached the upstream`);
    return { ok: false, problems, outcome: 'forwarded' };
  }
  const fwd = got.forwarded[0] as ForwardedRequest;
  const headers: Array<[string, string]> = [];
  for (let i = 0; i + 1 < fwd.rawHeaders.length; i += 2) headers.push([(fwd.rawHeaders[i] as string).toLowerCase(), fwd.rawHeaders[i + 1] as string]);

  // 1. Leaks: every surface, every view.
  const surfaces: Surface[] = [{ where: 'target', bytes: Buffer.from(fwd.target, 'latin1') }];
  for (const [n, v] of headers) if (!AUTH_HEADERS.has(n)) surfaces.push({ where: `header ${n}`, bytes: Buffer.from(`${n}: ${v}`, 'latin1') });
  const json = sent.json === 'none' ? {} : { json: sent.json };
  surfaces.push({ where: 'body', bytes: fwd.body, ...json });
  const encodingLines = headers.filter(([n]) => n === 'content-encoding').map(([, v]) => v);
  for (const d of decompressedViews(fwd.body, encodingLines)) surfaces.push({ where: `body (${d.how})`, bytes: d.bytes, ...json });
  for (const l of findLeaks(values, surfaces, verbose)) problems.push(`LEAK: value #${l.valueIndex} in ${l.where} (${l.view})${l.excerpt === undefined ? '' : `: …${l.excerpt}…`}`);

  // 2. The request never leaves its upstream's base path.
  if (fwd.method !== sent.method) problems.push(`method changed: ${sent.method} → ${fwd.method}`);
  if (hasDotSegment(pathOnly(fwd.target))) problems.push('a dot segment (`..`, `.`, `%2e`) was forwarded (DESIGN §2: refused with 400)');
  const resolved = resolveDotSegments(pathOnly(fwd.target));
  if (!(resolved === upstreamBasePath || resolved.startsWith(`${upstreamBasePath}/`))) problems.push(`target resolves outside the upstream base path ${JSON.stringify(upstreamBasePath)}`);

  // 3. Byte identity: target, headers, body.
  if (!fwd.target.startsWith(upstreamBasePath)) problems.push('target lost the upstream base path');
  else identity(map, sent.routeTarget, fwd.target.slice(upstreamBasePath.length), 'target', problems);
  compareHeaders(map, sent, headers, encodingLines.length > 0, problems);
  const codings = declaredCodings(encodingLines);
  const forwardedBody = codings.length === 0 ? fwd.body : decompressedViews(fwd.body, encodingLines).find((d) => d.how === `declared ${[...codings].reverse().join('>')}`)?.bytes;
  if (forwardedBody === undefined) problems.push('forwarded body does not decode by its own content-encoding');
  else {
    identity(map, sent.decodedBody.toString('latin1'), forwardedBody.toString('latin1'), 'body', problems);
    jsonStillValid(sent, forwardedBody, problems);
  }
  return { ok: problems.length === 0, problems, outcome: 'forwarded' };
}

/** What a credential detected around registered values may read as: one run of token characters. */
const TOKEN_TEXT = /^[^\s"'\\,;<>(){}[\]]+$/u;

/**
 * `original` (latin1 bytes) must equal `forwarded` with each placeholder standing for a span that encodes
 * its value. A placeholder of no registered value stands for itself — or, where the proxy's detection took
 * a credential-shaped run holding registered values (two glued together, one run on into more letters),
 * for a span whose reading is one token (TOKEN_TEXT) holding a registered value and is exactly what that
 * placeholder is the keyed HMAC of: the proxy replaced that credential honestly, and no other byte changed.
 */
function identity(map: PlaceholderMap, original: string, forwarded: string, where: string, problems: string[]): void {
  const tokens: AlignToken[] = map.find(forwarded).map((o) => ({
    start: o.start,
    end: o.end,
    canonical: Buffer.from(o.value, 'utf8').toString('latin1'),
    accept: (span: string) => spanEncodes(span, o.value),
  }));
  for (const o of map.findUnknown(forwarded)) {
    // One token: no blank, quote, backslash or separator inside (the generators' filler is words), and
    // holding a registered value.
    const holdsValue = (text: string): boolean => TOKEN_TEXT.test(text) && map.values.some((v) => text.includes(v));
    tokens.push({
      start: o.start,
      end: o.end,
      canonical: o.placeholder,
      accept: (span: string) => span === o.placeholder || someReading(span, (text) => holdsValue(text) && map.placeholderOf(text) === o.placeholder),
    });
  }
  tokens.sort((a, b) => a.start - b.start);
  const maxRegion = Math.max(64, ...map.values.map(maxSpanBytes));
  const r = alignRegions(forwarded, original, tokens, maxRegion);
  if (!r.ok) problems.push(`${where}: not byte-identical outside the secrets: ${r.reason} (forwarded offset ${r.tokenOffset}, sent offset ${r.regionOffset})`);
}

function compareHeaders(map: PlaceholderMap, sent: SentRequest, got: Array<[string, string]>, stillEncoded: boolean, problems: string[]): void {
  const skip = (n: string): boolean => NOT_FORWARDED.has(n) || n === 'accept-encoding' || (n === 'content-encoding' && !stillEncoded);
  const connectionNamed = new Set<string>();
  for (const [n, v] of sent.headers) if (n === 'connection') for (const t of v.split(',')) connectionNamed.add(t.trim().toLowerCase());
  const want = sent.headers.filter(([n]) => !skip(n) && !connectionNamed.has(n));
  const have = got.filter(([n]) => !skip(n));
  const names = new Set([...want.map(([n]) => n), ...have.map(([n]) => n)]);
  for (const name of names) {
    const a = want.filter(([n]) => n === name).map(([, v]) => v);
    const b = have.filter(([n]) => n === name).map(([, v]) => v);
    if (a.length !== b.length) {
      problems.push(`header ${name}: sent ${a.length} line(s), forwarded ${b.length}`);
      continue;
    }
    a.forEach((v, i) => {
      if (AUTH_HEADERS.has(name)) {
        if (v !== b[i]) problems.push(`header ${name}: auth header changed`);
      } else identity(map, v, b[i] as string, `header ${name}`, problems);
    });
  }
}

function jsonStillValid(sent: SentRequest, forwarded: Buffer, problems: string[]): void {
  if (sent.json === 'none') return;
  const before = utf8Text(sent.decodedBody);
  const after = utf8Text(forwarded);
  if (sent.json === 'json') {
    if (isJsonText(before) && !isJsonText(after)) problems.push('body: valid JSON became invalid');
    return;
  }
  const a = before.split('\n');
  const b = after.split('\n');
  if (a.length !== b.length) problems.push('body: JSONL line count changed');
  a.forEach((line, i) => {
    if (line.trim() !== '' && isJsonText(line) && !isJsonText(b[i] ?? '')) problems.push(`body: JSONL line ${i + 1} became invalid JSON`);
  });
}

function pathOnly(target: string): string {
  const q = target.indexOf('?');
  return q === -1 ? target : target.slice(0, q);
}

function hasDotSegment(path: string): boolean {
  return path.split('/').some((raw) => {
    const seg = percentDecode(raw, false);
    return seg === '.' || seg === '..';
  });
}

/** RFC 3986 §5.2.4 on a percent-decoded path (`%2e%2e` counts as `..`, as servers treat it). */
export function resolveDotSegments(path: string): string {
  const out: string[] = [];
  for (const raw of path.split('/')) {
    const seg = percentDecode(raw, false);
    if (seg === '.') continue;
    if (seg === '..') {
      if (out.length > 1) out.pop();
      continue;
    }
    out.push(raw);
  }
  return out.join('/');
}
