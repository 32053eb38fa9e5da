// One proxied request, end to end: read the body (bounded) → decode its content-encoding → redact body,
// target and headers → GATE on the exact outgoing bytes → send upstream → restore placeholders in the
// streamed response → log counts. Every refusal is a provider-shaped error and nothing is forwarded.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { FictaError, isFictaError } from '../errors.ts';
import { logEvent, type Logger } from '../log/logger.ts';
import type { ResolvedRoute } from '../providers/routes.ts';
import { classifyBody } from '../redact/body-kind.ts';
import { redactBody } from '../redact/body.ts';
import { describeFindings, gateRequest, type Finding } from '../redact/gate.ts';
import { forwardableHeaders, redactHeaders, type HeaderList } from '../redact/headers.ts';
import type { CountMap } from '../redact/replace.ts';
import type { SecretSet } from '../redact/secret-set.ts';
import { redactTarget } from '../redact/url.ts';
import { createRestoreStats, type RestoreStats } from '../restore/restore-bytes.ts';
import { unavailableError, type SecretRegistry } from '../secrets/registry.ts';
import { sendError, toHttpError } from './error-response.ts';
import { decodeBody, parseContentEncoding, readBody, SUPPORTED_CODINGS } from './request-body.ts';
import type { RunStats } from './stats.ts';
import { createResponseWriter, type ResponseWriter } from './response-writer.ts';
import type { UpstreamClient } from './upstream.ts';
import type { Watermarker } from '../watermark/watermarker.ts';

export interface UpstreamTarget {
  /** scheme://host:port */
  origin: string;
  /** Base path of the upstream URL ('' for none), prepended to every target. */
  basePath: string;
}

export interface ProxyDeps {
  registry: SecretRegistry;
  upstream: UpstreamClient;
  upstreams: Record<'anthropic' | 'openai', UpstreamTarget>;
  logger: Logger;
  limits: { maxBodyBytes: number; maxDecodedBytes: number; maxEventBytes: number };
  /** Run totals for reports. */
  stats?: RunStats;
  /** The watermark stage: marks documents on the way out, strips frames on the way back. */
  watermarker?: Watermarker;
}

interface RequestLog {
  id: string;
  method: string;
  route: string;
  provider: string;
  adapter: string;
  status?: number;
  bytesIn: number;
  bytesUp: number;
  bytesOut: number;
  redactions: CountMap;
  restore: RestoreStats;
  started: number;
  upstreamHeadersMs?: number;
  outcome: string;
  blocked: string[];
}

let sequence = 0;
const RUN_ID = Math.random().toString(36).slice(2, 8);

/** Handles one request on a provider route. Resolves when the response has ended. */
export async function proxyRequest(deps: ProxyDeps, route: ResolvedRoute, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const log: RequestLog = {
    id: `${RUN_ID}-${(++sequence).toString(36)}`,
    method: req.method ?? 'GET',
    route: route.pathname,
    provider: route.provider,
    adapter: route.adapter.id,
    bytesIn: 0,
    bytesUp: 0,
    bytesOut: 0,
    redactions: new Map(),
    restore: createRestoreStats(),
    started: performance.now(),
    outcome: 'ok',
    blocked: [],
  };
  const client: ClientState = { gone: false, onGone: undefined };
  const onClose = (): void => {
    if (res.writableFinished) return;
    client.gone = true;
    client.onGone?.();
  };
  res.on('close', onClose);

  const snapshot = deps.registry.current();
  let set: SecretSet | undefined;
  try {
    if (snapshot.kind === 'unavailable') throw unavailableError(snapshot);
    set = snapshot.set;
    await forward(deps, route, req, res, set, log, client);
  } catch (error) {
    if (isFictaError(error, 'FICTA_CLIENT_ABORTED') || client.gone) {
      log.outcome = 'client_aborted';
      if (!res.destroyed) res.destroy();
    } else {
      const http = toHttpError(error);
      log.outcome = isFictaError(error, 'FICTA_LEAK_BLOCKED') ? 'blocked' : isFictaError(error) ? error.code : 'internal_error';
      log.status = http.status;
      if (!isFictaError(error)) logEvent(deps.logger, 'error', 'internal_error', { id: log.id, error: safeErrorName(error) });
      sendError(res, route.provider, http, { 'x-ficta-request-id': log.id, ...(http.status === 413 ? { connection: 'close' } : {}) });
    }
  } finally {
    res.off('close', onClose);
    writeRequestLog(deps, log, set);
  }
}

async function forward(
  deps: ProxyDeps,
  route: ResolvedRoute,
  req: IncomingMessage,
  res: ServerResponse,
  set: SecretSet,
  log: RequestLog,
  client: ClientState,
): Promise<void> {
  const method = log.method;
  const hasBody = method !== 'GET' && method !== 'HEAD';
  const raw = hasBody ? await readBody(req, deps.limits.maxBodyBytes) : Buffer.alloc(0);
  log.bytesIn = raw.length;

  const headers = forwardableHeaders(req.rawHeaders);
  const codings = parseContentEncoding(headerValue(headers, 'content-encoding'));
  const body = codings.length === 0 ? raw : await decodeBody(raw, codings, deps.limits.maxDecodedBytes);
  const sendHeaders = codings.length === 0 ? headers : headers.filter(([n]) => n !== 'content-encoding');

  const kind = classifyBody(headerValue(sendHeaders, 'content-type'), body);
  const redacted = redactBody(set, body, kind, log.redactions);
  const upstream = deps.upstreams[route.provider];
  const target = upstream.basePath + redactTarget(set, route.target, log.redactions);
  redactHeaders(set, sendHeaders, log.redactions);
  filterAcceptEncoding(sendHeaders);

  const findings = gateRequest(
    set,
    { target, headers: sendHeaders, body: redacted.bytes, bodyKind: kind },
    redacted.clean ? { scannedCleanBody: redacted.bytes } : {},
  );
  if (findings.length > 0) block(deps, set, log, findings);

  // Watermark after the gate, then gate again: the marked bytes are what is sent (DESIGN §1).
  let outBody = redacted.bytes;
  if (deps.watermarker !== undefined && hasBody && kind === 'json') {
    const sessionId = deps.watermarker.sessionFor((n) => headerValue(sendHeaders, n));
    const marked = deps.watermarker.markRequestBody(redacted.bytes, { provider: route.provider, route: route.pathname, sessionId, requestId: log.id });
    if (marked.body !== redacted.bytes) {
      const again = gateRequest(set, { target, headers: sendHeaders, body: marked.body, bodyKind: kind });
      if (again.length > 0) block(deps, set, log, again);
      outBody = marked.body;
    }
  }

  const flat: string[] = [];
  for (const [n, v] of sendHeaders) flat.push(n, v);
  if (hasBody) flat.push('content-length', String(outBody.length));
  log.bytesUp = hasBody ? outBody.length : 0;

  const t0 = performance.now();
  await new Promise<void>((resolve, reject) => {
    let writer: ResponseWriter | undefined;
    let settled = false;
    const settle = (error?: unknown): void => {
      if (settled) return;
      settled = true;
      client.onGone = undefined;
      if (error === undefined) resolve();
      else reject(error);
    };
    const call = deps.upstream.dispatch(
      { origin: upstream.origin, path: target, method, headers: flat, body: hasBody ? outBody : undefined },
      {
        onHead(status, headers) {
          log.upstreamHeadersMs = performance.now() - t0;
          log.status = status;
          writer = createResponseWriter(deps, route.adapter, status, headers, res, set, log, call, (failure) => {
            if (failure !== undefined) streamFailed(deps, log, res, failure);
            settle();
          });
        },
        onData: (chunk) => writer?.write(chunk) ?? true,
        onEnd: () => writer?.end(),
        onError(error, afterHead) {
          if (settled) return;
          if (client.gone) return settle(new FictaError('FICTA_CLIENT_ABORTED', 'response: client went away', { cause: error }));
          if (!afterHead) return settle(error);
          writer?.abandon();
          streamFailed(deps, log, res, error);
          settle();
        },
      },
    );
    client.onGone = () => {
      call.abort();
      settle(new FictaError('FICTA_CLIENT_ABORTED', 'response: client went away'));
    };
    if (client.gone) client.onGone();
  });
}

/** Whether the client went away, and what to do when it does (abort the upstream exchange). */
interface ClientState {
  gone: boolean;
  onGone: (() => void) | undefined;
}

/** After the headers are out, the only honest signal of a broken stream is to cut the connection. */
function streamFailed(deps: ProxyDeps, log: RequestLog, res: ServerResponse, error: unknown): void {
  log.outcome = 'upstream_stream_error';
  logEvent(deps.logger, 'warn', 'stream_error', { id: log.id, error: safeErrorName(error) });
  res.destroy();
}

/** Refuses the request: logs names and surfaces, throws the 403 the client will see. */
function block(deps: ProxyDeps, set: SecretSet, log: RequestLog, findings: Finding[]): never {
  log.outcome = 'blocked';
  log.blocked = [...new Set(findings.map((f) => set.nameFor(f.secret)))];
  logEvent(deps.logger, 'warn', 'request_blocked', {
    id: log.id,
    route: log.route,
    findings: findings.map((f) => ({ name: set.nameFor(f.secret), surface: f.surface })),
  });
  const registered = findings.filter((f) => f.secret >= 0);
  const detected = findings.filter((f) => f.secret < 0);
  const what = [
    ...(registered.length > 0 ? [`registered secret ${describeFindings(set, registered)}`] : []),
    ...(detected.length > 0 ? [`credential ${describeFindings(set, detected)}`] : []),
  ].join('; ');
  const advice = detected.length > 0 && set.detection?.mode === 'block'
    ? 'Remove it from the request, or run ficta with --detect redact.'
    : 'Remove it from the request or let ficta redact it in a JSON string.';
  throw new FictaError('FICTA_LEAK_BLOCKED', `request blocked: ${what} would reach the provider; nothing was sent. ${advice}`, { status: 403 });
}

function headerValue(headers: HeaderList, name: string): string | undefined {
  for (const [n, v] of headers) if (n === name) return v;
  return undefined;
}

/** Upstream may only use codings ficta can decode (restore has to read the body). */
function filterAcceptEncoding(headers: HeaderList): void {
  for (const pair of headers) {
    if (pair[0] !== 'accept-encoding') continue;
    const kept = pair[1]
      .split(',')
      .map((s) => s.trim())
      .filter((s) => {
        const c = s.split(';', 1)[0]?.trim().toLowerCase() ?? '';
        return c === 'identity' || c === '*' ? c === 'identity' : SUPPORTED_CODINGS.has(c);
      });
    pair[1] = kept.length === 0 ? 'identity' : kept.join(', ');
  }
}

function safeErrorName(error: unknown): string {
  // Error messages from parsers can quote input; log only the class and code.
  const e = error as { name?: unknown; code?: unknown } | null;
  return `${typeof e?.name === 'string' ? e.name : 'Error'}${typeof e?.code === 'string' ? `:${e.code}` : ''}`;
}

function namedCounts(set: SecretSet | undefined, counts: CountMap): Record<string, number> {
  const out: Record<string, number> = {};
  if (set === undefined) return out;
  for (const [idx, n] of counts) {
    const name = set.nameFor(idx);
    out[name] = (out[name] ?? 0) + n;
  }
  return out;
}

function writeRequestLog(deps: ProxyDeps, log: RequestLog, set: SecretSet | undefined): void {
  const redactions = namedCounts(set, log.redactions);
  const restores = namedCounts(set, log.restore.restores);
  logEvent(deps.logger, 'info', 'request', {
    id: log.id,
    method: log.method,
    route: log.route,
    provider: log.provider,
    adapter: log.adapter,
    status: log.status,
    outcome: log.outcome,
    bytesIn: log.bytesIn,
    bytesUp: log.bytesUp,
    bytesOut: log.bytesOut,
    ms: round(performance.now() - log.started),
    upstreamHeadersMs: log.upstreamHeadersMs === undefined ? undefined : round(log.upstreamHeadersMs),
    redactions,
    restores,
    restoreMisses: log.restore.misses,
  });
  deps.stats?.record({ outcome: log.outcome, status: log.status, redactions, restores, restoreMisses: log.restore.misses, blocked: log.blocked });
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
