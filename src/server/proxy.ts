// One proxied request, end to end: read the body (bounded) → decode its content-encoding → redact body,
// target and headers → GATE on the exact outgoing bytes → send upstream → restore placeholders in the
// streamed response → log counts. Every refusal is a provider-shaped error and nothing is forwarded.

import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { FictaError, isFictaError } from '../errors.ts';
import { logEvent, type Logger } from '../log/logger.ts';
import { outcomeOf } from '../log/outcomes.ts';
import type { ResolvedRoute, Router } from '../providers/routes.ts';
import type { UpstreamEntry } from '../providers/upstreams.ts';
import { classifyBody } from '../redact/body-kind.ts';
import { redactBody } from '../redact/body.ts';
import { describeFindings, gateRequest, type Finding } from '../redact/gate.ts';
import { forwardableHeaders, headerList, redactHeaders, type HeaderList } from '../redact/headers.ts';
import type { SecretSet } from '../redact/secret-set.ts';
import { maskValues, pathOfTarget, redactTarget } from '../redact/url.ts';
import { createRestoreStats } from '../restore/restore-bytes.ts';
import { unavailableError, type SecretRegistry } from '../secrets/registry.ts';
import { tenantSet } from '../gateway/tenant-set.ts';
import { dotSegmentError, hasDotSegment } from './dot-segments.ts';
import type { RestoreConfig } from '../sinks/config.ts';
import { createToolCallGate, policyFor } from '../sinks/tool-call-gate.ts';
import { createToolCallSink } from '../sinks/tool-call-sink.ts';
import type { RestorePolicy } from '../sinks/policy.ts';
import { createWithheldCounts } from '../sinks/withheld.ts';
import { sendError, toHttpError } from './error-response.ts';
import { decodeBody, parseContentEncoding, readBody, SUPPORTED_CODINGS } from './request-body.ts';
import { firstSegmentOnly, writeRequestLog, type RequestLog } from './request-log.ts';
import type { RunStats } from './stats.ts';
import { createResponseWriter, type ResponseWriter } from './response-writer.ts';
import type { UpstreamClient } from './upstream.ts';
import type { Watermarker } from '../watermark/watermarker.ts';
import type { Tenant } from '../gateway/tenant.ts';

export interface ProxyDeps {
  registry: SecretRegistry;
  upstream: UpstreamClient;
  /** Which upstream, adapter and error shape a request target gets. */
  router: Router;
  logger: Logger;
  limits: { maxBodyBytes: number; maxDecodedBytes: number; maxEventBytes: number };
  /** Run totals for reports. */
  stats?: RunStats;
  /** The watermark stage: marks documents on the way out, strips frames on the way back. */
  watermarker?: Watermarker;
  /**
   * Restore into tool calls (`restore.toolCalls`, `restore.allowHosts`; default guarded, no host allowed):
   * the response restorers hand each complete tool call to a sink over the tool-call gate.
   */
  restore?: RestoreConfig;
}

const GUARDED: RestoreConfig = { toolCalls: 'guarded', allowHosts: [] };
/**
 * The compiled policy per secret set (a set changes when the vault does; its hosts with it), keyed by its
 * hosts array, which a gateway tenant's view shares with the set.
 */
const policies = new WeakMap<SecretSet['hosts'], { config: RestoreConfig; policy: RestorePolicy }>();

function policyOf(set: SecretSet, config: RestoreConfig): RestorePolicy {
  const hit = policies.get(set.hosts);
  if (hit !== undefined && hit.config === config) return hit.policy;
  const policy = policyFor(set, config);
  policies.set(set.hosts, { config, policy });
  return policy;
}

let sequence = 0;
const RUN_ID = Math.random().toString(36).slice(2, 8);

/** A request id for the log and the `x-ficta-request-id` header: this process's run id and a counter. */
export function nextRequestId(): string {
  return `${RUN_ID}-${(++sequence).toString(36)}`;
}

/**
 * Handles one request on a provider route. Resolves when the response has ended. `publicBase` is this
 * route's base URL as the client reaches it (`http://127.0.0.1:8787/t/<token>/gemini`), for upstream URLs
 * handed to the client in response headers.
 */
export async function proxyRequest(deps: ProxyDeps, route: ResolvedRoute, req: IncomingMessage, res: ServerResponse, publicBase?: string, tenant?: Tenant): Promise<void> {
  const log: RequestLog = {
    id: nextRequestId(),
    method: req.method ?? 'GET',
    // Until the target is redacted, only the first segment the route matched (its name: `/anthropic/…`,
    // `/v1/…`) is shown; the rest of the path could hold a value.
    route: firstSegmentOnly(pathOfTarget(req.url ?? '/').replace(/^\/t\/[^/]*/, '')),
    site: 'start',
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
    withheld: createWithheldCounts(),
  };
  if (tenant !== undefined) {
    log.tenant = tenant.name;
    log.groups = tenant.groups;
  }
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
    // A gateway request works on its tenant's view of the set: the same matcher, the tenant's placeholders
    // and entitlement (src/gateway/tenant-set.ts).
    set = tenant === undefined ? snapshot.set : tenantSet(snapshot.set, tenant);
    // The target is redacted first, so every log line of this request shows the redacted path (a value
    // across a `/`, which the gate blocks, is masked in the log too).
    log.site = 'redact-target';
    const target = redactTarget(set, route.target, log.redactions, route.authQuery);
    // A tenant's placeholders never reach a log line: its route is masked with the shared set's mask.
    log.route = tenant === undefined ? maskValues(set, pathOfTarget(target)) : maskValues(snapshot.set, pathOfTarget(route.target));
    if (hasDotSegment(route.target)) throw dotSegmentError();
    await forward(deps, route, target, req, res, set, log, client, publicBase);
  } catch (error) {
    if (isFictaError(error, 'FICTA_CLIENT_ABORTED') || client.gone) {
      log.outcome = 'client_aborted';
      if (!res.destroyed) res.destroy();
    } else {
      const http = toHttpError(error);
      log.outcome = outcomeOf(error, http.status);
      log.status = http.status;
      if (isFictaError(error, 'FICTA_UPSTREAM_UNREACHABLE') || isFictaError(error, 'FICTA_UPSTREAM_TIMEOUT')) {
        log.upstream = route.upstream.origin;
        log.error = transportCode(error);
      }
      if (!isFictaError(error)) logEvent(deps.logger, 'error', 'internal_error', { id: log.id, site: log.site, error: safeErrorName(error) });
      log.bytesOut += sendError(res, route.errorShape, http, { 'x-ficta-request-id': log.id, ...(http.status === 413 ? { connection: 'close' } : {}) });
    }
  } finally {
    res.off('close', onClose);
    writeRequestLog(deps, log, set);
  }
}

async function forward(
  deps: ProxyDeps,
  route: ResolvedRoute,
  redactedTarget: string,
  req: IncomingMessage,
  res: ServerResponse,
  set: SecretSet,
  log: RequestLog,
  client: ClientState,
  publicBase: string | undefined,
): Promise<void> {
  const method = log.method;
  const hasBody = method !== 'GET' && method !== 'HEAD';
  log.site = 'read-body';
  const raw = hasBody ? await readBody(req, deps.limits.maxBodyBytes) : Buffer.alloc(0);
  log.bytesIn = raw.length;

  log.site = 'decode-body';
  const headers = forwardableHeaders(req.rawHeaders);
  // Every content-encoding line counts (RFC 9110 §5.3: repeated lines form one list), undone in reverse.
  const codings = parseContentEncoding(headerList(headers, 'content-encoding'));
  const body = codings.length === 0 ? raw : await decodeBody(raw, codings, deps.limits.maxDecodedBytes);
  const sendHeaders = codings.length === 0 ? headers : headers.filter(([n]) => n !== 'content-encoding');

  log.site = 'redact';
  // File bytes (uploads) are forwarded byte-exact and only gated, whatever content-type they carry.
  const contentType = headerValue(sendHeaders, 'content-type');
  const kind = route.upstream.isFileBody(route.pathname, (n) => headerValue(sendHeaders, n)) ? 'binary' : classifyBody(contentType, body);
  const redacted = redactBody(set, body, kind, log.redactions, contentType);
  const upstream = route.upstream;
  const target = upstream.basePath + redactedTarget;
  redactHeaders(set, sendHeaders, log.redactions);
  filterAcceptEncoding(sendHeaders);

  log.site = 'gate';
  const findings = gateRequest(
    set,
    { target, headers: sendHeaders, body: redacted.bytes, bodyKind: kind, authQuery: route.authQuery },
    redacted.clean ? { scannedCleanBody: redacted.bytes } : {},
  );
  if (findings.length > 0) block(set, log, findings);

  // Watermark after the gate, then gate again: the marked bytes are what is sent (DESIGN §1).
  let outBody = redacted.bytes;
  if (deps.watermarker !== undefined && hasBody && kind === 'json') {
    log.site = 'watermark';
    const sessionId = deps.watermarker.sessionFor((n) => headerValue(sendHeaders, n));
    const marked = deps.watermarker.markRequestBody(redacted.bytes, { provider: route.provider, route: log.route, sessionId, requestId: log.id });
    if (marked.body !== redacted.bytes) {
      const again = gateRequest(set, { target, headers: sendHeaders, body: marked.body, bodyKind: kind, authQuery: route.authQuery });
      if (again.length > 0) block(set, log, again);
      outBody = marked.body;
    }
  }

  const flat: string[] = [];
  for (const [n, v] of sendHeaders) flat.push(n, v);
  if (hasBody) flat.push('content-length', String(outBody.length));
  log.bytesUp = hasBody ? outBody.length : 0;

  log.site = 'upstream';
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
        onHead(status, upstreamHeaders) {
          log.site = 'response';
          log.upstreamHeadersMs = performance.now() - t0;
          log.status = status;
          const headers = publicBase === undefined ? upstreamHeaders : pointBackThroughProxy(upstreamHeaders, route.upstream, publicBase);
          // With no secrets there is no placeholder to restore, so no tool call to decide on.
          const sink = set.inert ? undefined : createToolCallSink(createToolCallGate(set, policyOf(set, deps.restore ?? GUARDED), log.restore, log.withheld), route.adapter.id);
          writer = createResponseWriter(
            deps,
            route.adapter,
            status,
            headers,
            res,
            set,
            log,
            call,
            (failure) => {
              if (failure !== undefined) streamFailed(deps, log, res, failure);
              settle();
            },
            sink,
          );
        },
        onData: (chunk) => writer?.write(chunk) ?? true,
        onEnd: () => {
          log.upstreamMs = performance.now() - t0;
          writer?.end();
        },
        onError(error, afterHead) {
          log.upstreamMs ??= performance.now() - t0;
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

/**
 * Upstream URLs the client is told to call next (Gemini's `x-goog-upload-url`) are rewritten to lead
 * through this proxy's route, so the follow-up request is redacted and gated too.
 */
function pointBackThroughProxy(headers: IncomingHttpHeaders, upstream: UpstreamEntry, publicBase: string): IncomingHttpHeaders {
  let out: IncomingHttpHeaders | undefined;
  const base = upstream.origin + upstream.basePath;
  for (const name of upstream.urlHeaders) {
    const value = headers[name];
    if (typeof value !== 'string' || !(value.startsWith(`${base}/`) || value.startsWith(`${base}?`))) continue;
    out ??= { ...headers };
    out[name] = publicBase + value.slice(base.length);
  }
  return out ?? headers;
}

/** Whether the client went away, and what to do when it does (abort the upstream exchange). */
interface ClientState {
  gone: boolean;
  onGone: (() => void) | undefined;
}

/** After the headers are out, the only honest signal of a broken stream is to cut the connection. */
function streamFailed(deps: ProxyDeps, log: RequestLog, res: ServerResponse, error: unknown): void {
  log.outcome = isFictaError(error, 'FICTA_STREAM_OVERFLOW') ? 'stream_overflow' : 'upstream_stream_error';
  logEvent(deps.logger, 'warn', 'stream_error', { id: log.id, error: safeErrorName(error) });
  res.destroy();
}

/** Refuses the request: records names and surfaces (the request line carries them), throws the 403 the client will see. */
function block(set: SecretSet, log: RequestLog, findings: Finding[]): never {
  log.outcome = 'blocked';
  const seen = new Set<string>();
  for (const f of findings) {
    const finding = { secret: set.nameFor(f.secret), surface: f.surface };
    const key = `${finding.secret}\u0000${finding.surface}`;
    if (!seen.has(key)) log.blocked.push(finding);
    seen.add(key);
  }
  const registered = findings.filter((f) => f.secret >= 0);
  const detected = findings.filter((f) => f.secret < 0);
  const what = [
    ...(registered.length > 0 ? [`registered secret ${describeFindings(set, registered)}`] : []),
    ...(detected.length > 0 ? [`credential ${describeFindings(set, detected)}`] : []),
  ].join('; ');
  const advice =
    detected.length > 0 && set.detection?.mode === 'block'
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

/** The transport's error code under an upstream FictaError (ECONNREFUSED, UND_ERR_CONNECT_TIMEOUT, …). */
function transportCode(error: unknown): string {
  let cur: unknown = (error as { cause?: unknown } | null)?.cause;
  for (let i = 0; i < 4 && typeof cur === 'object' && cur !== null; i++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z0-9_]{1,40}$/.test(code)) return code;
    cur = (cur as { cause?: unknown }).cause;
  }
  return 'error';
}

function safeErrorName(error: unknown): string {
  // Error messages from parsers can quote input; log only the class and code.
  const e = error as { name?: unknown; code?: unknown } | null;
  return `${typeof e?.name === 'string' ? e.name : 'Error'}${typeof e?.code === 'string' ? `:${e.code}` : ''}`;
}
