// One response case end to end: register the case's values, script the recorder to answer with the
// generated body cut into the generated chunks, fetch it through the real proxy, and hand the
// provider's bytes and the client's bytes to the response oracle.

import { gunzipSync } from 'node:zlib';
import { createPlaceholderMap } from '../oracle/placeholder-map.ts';
import { checkResponse, type BodyShape } from '../oracle/response-check.ts';
import type { WireFormat } from '../oracle/wire-fields.ts';
import { send } from './http-client.ts';
import { named, type RequestEnv } from './request-case.ts';
import type { CaseResult } from './runner.ts';

export interface ResponseCase {
  values: string[];
  /** Proxy path, e.g. /anthropic/v1/messages. */
  route: string;
  format: WireFormat;
  shape: BodyShape;
  contentType: string | undefined;
  /** The provider's body as text (what the oracle compares against). */
  body: string;
  /** The bytes on the wire (the body, gzip-compressed when `gzip`). */
  wire: Buffer;
  gzip: boolean;
  /** Sizes of the chunks the wire bytes are written in. */
  cuts: number[];
  /**
   * Plain-text SSE data: a placeholder of a value holding CR, restored raw (depth 0), must stay as it is
   * (SSE data cannot carry a CR); one holding only LF is restored over several `data:` lines.
   */
  crStays: boolean;
}

/** Runs one response case and judges it. */
export async function runResponseCase(env: RequestEnv, c: ResponseCase): Promise<CaseResult> {
  await env.proxy.setSecrets(named(c.values));
  const chunks: Buffer[] = [];
  let pos = 0;
  for (const n of c.cuts) {
    chunks.push(c.wire.subarray(pos, pos + n));
    pos += n;
  }
  if (pos < c.wire.length) chunks.push(c.wire.subarray(pos));
  const headers: Array<[string, string]> = [];
  if (c.contentType !== undefined) headers.push(['content-type', c.contentType]);
  if (c.gzip) headers.push(['content-encoding', 'gzip']);
  // A replay spaces the chunks out so TCP keeps each one apart, as generated.
  const gap = process.env.FUZZ_SEED !== undefined && process.env.FUZZ_SEED !== '' ? 2 : 'tick';
  env.recorder.reset();
  env.recorder.setReply(() => ({ status: 200, headers, chunks, gap }));
  const res = await send(env.proxy.url, { method: 'POST', target: c.route, headers: [['content-type', 'application/json']], body: Buffer.from('{"model":"x","stream":true,"messages":[{"role":"user","content":"hi"}]}') }, 25_000);
  const problems: string[] = [];
  if (res.status !== 200) problems.push(`client got status ${res.status}`);
  let body = res.body;
  if (res.headers['content-encoding'] === 'gzip') {
    problems.push('the response reached the client still compressed (not restored)');
    body = gunzipSync(body);
  }
  const client = body.toString('utf8');
  const map = createPlaceholderMap(env.proxy.key, c.values);
  const stays = (v: string, depth: number): boolean => c.crStays && depth === 0 && v.includes('\r');
  if (problems.length === 0) problems.push(...checkResponse(map, c.format, c.shape, c.body, client, stays));
  return {
    ok: problems.length === 0,
    problems,
    outcome: `${c.shape}${c.gzip ? '+gzip' : ''}`,
    detail: () => `  → client got ${res.status} in ${res.chunks} chunk(s):\n    ${JSON.stringify(client.length > 6000 ? `${client.slice(0, 6000)}…` : client)}`,
  };
}

/** The case in full, for a replay. */
export function describeResponseCase(c: ResponseCase): string {
  const map = c.values.map((v) => `    ${JSON.stringify(v)}`).join('\n');
  return [
    `  values:\n${map}`,
    `  POST ${c.route} → ${c.format} ${c.shape}, content-type ${JSON.stringify(c.contentType)}${c.gzip ? ', gzip' : ''}, ${c.cuts.length + 1} chunk(s) (first ${c.cuts[0] ?? c.wire.length} bytes)`,
    `  provider body: ${JSON.stringify(c.body.length > 6000 ? `${c.body.slice(0, 6000)}…` : c.body)}`,
  ].join('\n');
}
