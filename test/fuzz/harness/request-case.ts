// One request case end to end: register the case's values, send the request through the real proxy
// to the recorder, wait for the proxy's log line, and hand everything to the request oracle.

import { checkRequest } from '../oracle/request-check.ts';
import { createPlaceholderMap } from '../oracle/placeholder-map.ts';
import type { FuzzProxy } from './fuzz-proxy.ts';
import { send } from './http-client.ts';
import { okReply, type Recorder } from './recorder.ts';
import type { CaseResult } from './runner.ts';

export interface RequestCase {
  /** Every distinct registered value: what must never reach the provider. */
  values: string[];
  /** How they are registered: the in-memory source, or a dotenv file (names may repeat there). */
  register: { kind: 'source'; entries: Array<{ name: string; value: string }> } | { kind: 'env'; text: string };
  route: 'anthropic' | 'openai';
  method: string;
  /** Path and query after the route prefix. */
  routeTarget: string;
  headers: Array<[string, string]>;
  /** As sent (compressed when the case says so); undefined for no body. */
  body: Buffer | undefined;
  /** With every content-encoding undone. */
  decodedBody: Buffer;
  json: 'json' | 'jsonl' | 'none';
  /** Statuses that count as a safe refusal besides 403. */
  alsoRefuse?: number[];
}

export interface RequestEnv {
  proxy: FuzzProxy;
  recorder: Recorder;
}

/** Names NAME_1… for a list of values. */
export function named(values: readonly string[]): Array<{ name: string; value: string }> {
  return values.map((value, i) => ({ name: `FUZZ_SECRET_${i + 1}`, value }));
}

/** Runs one request case and judges it. */
export async function runRequestCase(env: RequestEnv, c: RequestCase): Promise<CaseResult> {
  if (c.register.kind === 'source') await env.proxy.setSecrets(c.register.entries);
  else if (!(await env.proxy.setEnvFile(c.register.text))) return { ok: true, problems: [], outcome: 'registration refused' };
  env.recorder.reset();
  env.recorder.setReply(okReply);
  const logFrom = env.proxy.logs.length;
  const res = await send(env.proxy.url, { method: c.method, target: `/${c.route}${c.routeTarget}`, headers: c.headers, body: c.body }, 25_000);
  const id = res.headers['x-ficta-request-id'];
  await waitForLog(env.proxy.logs, logFrom, typeof id === 'string' ? id : undefined);
  const map = createPlaceholderMap(env.proxy.key, c.values);
  const basePath = c.route === 'openai' ? env.proxy.openaiBasePath : '';
  const verdict = checkRequest(
    map,
    { method: c.method, routeTarget: c.routeTarget, headers: c.headers, decodedBody: c.decodedBody, json: c.json },
    { status: res.status, responseBody: res.body, forwarded: env.recorder.requests, logs: env.proxy.logs.slice(logFrom) },
    basePath,
    new Set([403, ...(c.alsoRefuse ?? [])]),
    process.env.FUZZ_SEED !== undefined && process.env.FUZZ_SEED !== '',
  );
  const forwarded = env.recorder.requests;
  return {
    ok: verdict.ok,
    problems: verdict.problems,
    outcome: verdict.outcome === 'forwarded' ? 'forwarded' : `refused ${res.status}`,
    detail: () =>
      [
        `  → client got ${res.status}: ${JSON.stringify(res.body.toString('utf8').slice(0, 600))}`,
        ...forwarded.map((f) => `  → upstream got ${f.method} ${f.target}\n${headerLines(f.rawHeaders)}\n    body: ${JSON.stringify(f.body.toString('latin1').slice(0, 3000))}`),
      ].join('\n'),
  };
}

function headerLines(raw: readonly string[]): string {
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push(`    ${raw[i]}: ${JSON.stringify(raw[i + 1])}`);
  return out.join('\n');
}

/** The request's `request` log line is written as the exchange ends, which can trail the client's last byte. */
async function waitForLog(logs: string[], from: number, id: string | undefined): Promise<void> {
  for (let i = 0; i < 200; i++) {
    for (let k = from; k < logs.length; k++) {
      const line = logs[k] as string;
      if (line.includes('"event":"request"') && (id === undefined || line.includes(`"id":"${id}"`))) return;
    }
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** The case in full, for a replay. */
export function describeRequestCase(c: RequestCase): string {
  const body = c.decodedBody.toString('utf8');
  return [
    `  values: ${JSON.stringify(c.values)}`,
    c.register.kind === 'env' ? `  env file: ${JSON.stringify(c.register.text)}` : '',
    `  ${c.method} /${c.route}${c.routeTarget}`,
    ...c.headers.map(([n, v]) => `  ${n}: ${JSON.stringify(v)}`),
    `  body (${c.decodedBody.length} bytes decoded${c.body !== undefined && c.body !== c.decodedBody ? `, ${c.body.length} sent` : ''}): ${JSON.stringify(body.length > 3000 ? `${body.slice(0, 3000)}…` : body)}`,
  ]
    .filter((l) => l !== '')
    .join('\n');
}
