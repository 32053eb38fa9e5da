// One proxied request, end to end: read the body (bounded) → decode its content-encoding → redact body,
// target and headers → GATE on the exact outgoing bytes → send upstream → restore placeholders in the
// streamed response → log counts. Every refusal is a provider-shaped error and nothing is forwarded.

import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { FictaError, isFictaError } from '../errors.ts';
import { logEvent, type Logger } from '../log/logger.ts';
import type { ResolvedRoute } from '../providers/routes.ts';
import type { StreamAdapter } from '../providers/types.ts';
import { classifyBody } from '../redact/body-kind.ts';
import { redactBody } from '../redact/body.ts';
import { describeFindings, gateRequest, type Finding } from '../redact/gate.ts';
import { forwardableHeaders, redactHeaders, type HeaderList } from '../redact/headers.ts';
import type { CountMap } from '../redact/replace.ts';
import type { SecretSet } from '../redact/secret-set.ts';
import { redactTarget } from '../redact/url.ts';
import { createBodyRestorer, type ChunkTransform } from '../restore/body-restorer.ts';
import { createRestoreStats, type RestoreStats } from '../restore/restore-bytes.ts';
import { createSseRestorer } from '../restore/sse-restorer.ts';
import { unavailableError, type SecretRegistry } from '../secrets/registry.ts';
import { sendError, toHttpError } from './error-response.ts';
import { decodeBody, parseContentEncoding, readBody, SUPPORTED_CODINGS } from './request-body.ts';
import { clientHeaders } from './response-headers.ts';
import type { RunStats } from './stats.ts';
import type { UpstreamCall, UpstreamClient } from './upstream.ts';
import type { Watermarker } from '../watermark/watermarker.ts';
import { createDeltaStripper, createStripTransform, mayHoldFrame } from '../watermark/strip.ts';

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
  log.blocked = [...new Set(findings.map((f) => set.names[f.secret] as string))];
  logEvent(deps.logger, 'warn', 'request_blocked', {
    id: log.id,
    route: log.route,
    findings: findings.map((f) => ({ name: set.names[f.secret], surface: f.surface })),
  });
  throw new FictaError(
    'FICTA_LEAK_BLOCKED',
    `request blocked: registered secret ${describeFindings(set, findings)} would reach the provider; nothing was sent. Remove it from the request or let ficta redact it in a JSON string.`,
    { status: 403 },
  );
}

/**
 * How much may wait in the client's socket buffer before the upstream is paused. Node's http writes
 * are corked until the end of the tick, so a 50 KiB chunk always reports "full" against the 16 KiB
 * default; pausing there cost an event-loop turn before undici reported the end of the body, and the
 * end then left in a write of its own (50 KiB JSON, c16: 0.644 → 0.609 ms CPU per request).
 */
const CLIENT_BUFFER_BYTES = 1024 * 1024;

/** Writes one upstream response to the client: restores (and strips frames) when needed, with backpressure. */
interface ResponseWriter {
  /** An upstream body chunk; false asks the upstream to pause until the client drains. */
  write(chunk: Buffer): boolean;
  /** The upstream body ended: flush what the transform holds and end the response. */
  end(): void;
  /** The upstream failed mid-body: drop whatever is pending. */
  abandon(): void;
}

function createResponseWriter(
  deps: ProxyDeps,
  adapter: StreamAdapter,
  status: number,
  headers: IncomingHttpHeaders,
  res: ServerResponse,
  set: SecretSet,
  log: RequestLog,
  call: UpstreamCall,
  done: (failure?: unknown) => void,
): ResponseWriter {
  const contentType = String(headers['content-type'] ?? '');
  const codings = parseContentEncoding(headers['content-encoding'] as string | undefined);
  const decodable = codings.every((c) => SUPPORTED_CODINGS.has(c));
  // Frames are stripped from every response while watermarking is on, so nothing to restore is not enough to pass through.
  const nothingToDo = set.size === 0 && deps.watermarker === undefined;
  const mode = nothingToDo || !decodable ? 'passthrough' : restoreMode(contentType);

  const rewritten = mode !== 'passthrough';
  res.writeHead(status, clientHeaders(headers, rewritten, log.id));
  // The client's time to first byte is the upstream's, not ours: when no body byte came with the
  // headers (checked once the parser's current pass is over), send them on their own.
  let wroteBody = false;
  queueMicrotask(() => {
    if (!wroteBody && !res.writableEnded && !res.destroyed) res.flushHeaders();
  });

  let transform: ChunkTransform | undefined;
  let sniffing = mode === 'sniff';
  const strip = deps.watermarker !== undefined;
  const makeTransform = (m: 'sse' | 'json' | 'text'): ChunkTransform => {
    const restore =
      m === 'sse'
        ? createSseRestorer(set, adapter, log.restore, { maxEventBytes: deps.limits.maxEventBytes, ...(strip ? { deltaFilter: createDeltaStripper, deltaFilterNeeded: mayHoldFrame } : {}) })
        : createBodyRestorer(set, m, log.restore);
    // Watermark frames come off before placeholders are restored (DESIGN §1).
    return strip ? chain(createStripTransform(), restore) : restore;
  };
  if (mode === 'sse' || mode === 'json' || mode === 'text') transform = makeTransform(mode);

  let failed = false;
  let waiting = false;
  const fail = (error: unknown): void => {
    if (failed) return;
    failed = true;
    call.abort();
    done(error);
  };
  /** Writes pieces; false when the client has more than CLIENT_BUFFER_BYTES waiting. */
  const send = (pieces: Buffer[]): boolean => {
    for (const p of pieces) {
      if (p.length === 0) continue;
      wroteBody = true;
      log.bytesOut += p.length;
      res.write(p);
    }
    return res.writableLength < CLIENT_BUFFER_BYTES || res.destroyed;
  };
  /** Transforms and writes one decoded chunk; false when the client's buffer is full. */
  const push = (chunk: Buffer): boolean => {
    if (sniffing) {
      transform = makeTransform(sniffMode(chunk));
      sniffing = false;
    }
    let pieces: Buffer[];
    try {
      pieces = transform === undefined ? [chunk] : transform.push(chunk);
    } catch (e) {
      fail(e);
      return true;
    }
    return send(pieces);
  };
  const finish = (): void => {
    if (failed) return;
    let pieces: Buffer[] = [];
    try {
      if (transform !== undefined) pieces = transform.end();
    } catch (e) {
      fail(e);
      return;
    }
    // Written in the tick of the last chunk, so body tail and end share one write.
    send(pieces);
    res.end(() => done());
  };
  const whenDrained = (resume: () => void): void => {
    if (waiting) return;
    waiting = true;
    res.once('drain', () => {
      waiting = false;
      resume();
    });
  };

  if (rewritten && codings.length > 0) {
    const decoder = decompress(codings);
    decoder.output.on('data', (c: Buffer) => {
      if (!failed && !push(c)) {
        decoder.output.pause();
        whenDrained(() => decoder.output.resume());
      }
    });
    decoder.output.once('end', finish);
    decoder.output.once('error', (e) => fail(e));
    return {
      write(chunk) {
        if (failed || decoder.input.write(chunk)) return true;
        decoder.input.once('drain', () => call.resume());
        return false;
      },
      end: () => decoder.input.end(),
      abandon: () => decoder.destroy(),
    };
  }
  return {
    write(chunk) {
      if (failed || push(chunk)) return true;
      whenDrained(() => call.resume());
      return false;
    },
    end: finish,
    abandon() {
      failed = true;
    },
  };
}

/** Two chunk transforms in sequence. */
function chain(first: ChunkTransform, second: ChunkTransform): ChunkTransform {
  const through = (pieces: Buffer[]): Buffer[] => {
    if (pieces.length === 1) return second.push(pieces[0] as Buffer);
    const out: Buffer[] = [];
    for (const p of pieces) for (const q of second.push(p)) out.push(q);
    return out;
  };
  return {
    push: (chunk) => through(first.push(chunk)),
    end: () => [...through(first.end()), ...second.end()],
  };
}

type RestoreMode = 'sse' | 'json' | 'text' | 'sniff' | 'passthrough';

function restoreMode(contentType: string): RestoreMode {
  const t = contentType.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  if (t === 'text/event-stream') return 'sse';
  if (t.includes('json')) return 'json';
  if (t === '') return 'sniff';
  if (t.startsWith('text/') || t.endsWith('+xml') || t === 'application/xml') return 'text';
  return 'passthrough';
}

function sniffMode(first: Buffer): 'sse' | 'json' | 'text' {
  const head = first.subarray(0, 16).toString('latin1').trimStart();
  if (head.startsWith('event:') || head.startsWith('data:') || head.startsWith(':') || head.startsWith('id:')) return 'sse';
  if (head.startsWith('{') || head.startsWith('[')) return 'json';
  return 'text';
}

/** Decoders for the codings in the order they were applied (undone in reverse): write to `input`, read `output`. */
function decompress(codings: readonly string[]): { input: Transform; output: Transform; destroy(): void } {
  const stages = [...codings].reverse().map((c): Transform => (c === 'br' ? createBrotliDecompress() : c === 'deflate' ? createInflate() : createGunzip()));
  for (let i = 0; i + 1 < stages.length; i++) {
    const next = stages[i + 1] as Transform;
    (stages[i] as Transform).pipe(next);
    (stages[i] as Transform).on('error', (e) => next.destroy(e));
  }
  return { input: stages[0] as Transform, output: stages[stages.length - 1] as Transform, destroy: () => stages.forEach((d) => d.destroy()) };
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
    const name = set.names[idx] as string;
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
