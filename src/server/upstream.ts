// The upstream client: the only module that imports undici. One connection-pooling Agent for all
// upstreams, driven through `dispatch` callbacks rather than `request()`: body chunks reach the proxy
// in the same tick the parser produces them (no Readable, no promise per chunk), so the response
// headers, the body and its end leave in as few writes as the bytes allow. Errors before the response
// headers become 502 (unreachable) or 504 (timed out).

import type { IncomingHttpHeaders } from 'node:http';
import type { Agent, Dispatcher } from 'undici';
import { FictaError, isFictaError } from '../errors.ts';

/**
 * undici's Agent alone, not undici's index, which also loads fetch, WebSocket, the cache, the mocks and the
 * request API ficta never uses (measured: 92 → 42 ms of CPU to load from node_modules; in the bundle,
 * `ficta serve` used 116 → 106 ms of CPU to its ready line). undici has no exports map, so the path is
 * reachable; undici-agent.d.ts types it, and a move in a new major fails the build. Loaded on first use,
 * not at start: its HTTP/2 client loads node:http2 and node:tls (~12 ms of `ficta serve`'s start), and
 * createFicta's listen warms it just after the ready line.
 */
const loadAgentClass = async (): Promise<typeof Agent> => (await import('undici/lib/dispatcher/agent.js')).default;

export interface UpstreamLimits {
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
}

export interface UpstreamRequest {
  /** `https://api.anthropic.com` (scheme, host, port only). */
  origin: string;
  /** Path and query, already redacted. */
  path: string;
  method: string;
  /** Flat [name, value, name, value, …] list. */
  headers: string[];
  body: Buffer | undefined;
}

/** Receives one upstream exchange. Callbacks run in the tick the bytes were parsed in. */
export interface UpstreamHandler {
  /** The response status and headers (lowercase names). */
  onHead(status: number, headers: IncomingHttpHeaders): void;
  /** A body chunk; return false to pause the body until {@link UpstreamCall.resume}. */
  onData(chunk: Buffer): boolean;
  onEnd(): void;
  /**
   * The exchange failed. Before the head, `error` is FICTA_UPSTREAM_UNREACHABLE (502),
   * FICTA_UPSTREAM_TIMEOUT (504) or FICTA_CLIENT_ABORTED; after it, the transport's own error.
   */
  onError(error: unknown, afterHead: boolean): void;
}

/** Control over an exchange in flight. */
export interface UpstreamCall {
  /** Resumes a body paused by onData returning false. */
  resume(): void;
  /** Aborts the exchange; the handler then hears onError with FICTA_CLIENT_ABORTED, unless it already ended. */
  abort(): void;
}

export interface UpstreamClient {
  dispatch(req: UpstreamRequest, handler: UpstreamHandler): UpstreamCall;
  /** Loads the HTTP client now rather than with the first request. */
  warm(): void;
  close(): Promise<void>;
}

/** Keep-alive for idle upstream connections; providers close theirs after about a minute. */
const KEEP_ALIVE_MS = 30_000;

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'ETIMEDOUT']);

/** Creates the pooled client. */
export function createUpstreamClient(limits: UpstreamLimits): UpstreamClient {
  let agent: Agent | undefined;
  let loading: Promise<Agent> | undefined;
  const load = (): Promise<Agent> =>
    (loading ??= loadAgentClass().then(
      (AgentClass) =>
        (agent = new AgentClass({
          connect: { timeout: limits.connectTimeoutMs },
          headersTimeout: limits.headersTimeoutMs,
          bodyTimeout: limits.bodyTimeoutMs,
          keepAliveTimeout: KEEP_ALIVE_MS,
          connections: 128,
        })),
    ));
  return {
    warm: () => void load().catch(() => undefined),
    dispatch(req, handler) {
      let controller: Dispatcher.DispatchController | undefined;
      let afterHead = false;
      let done = false;
      let abortReason: FictaError | undefined;
      const fail = (error: unknown): void => {
        if (done) return;
        done = true;
        handler.onError(afterHead ? error : toUpstreamError(abortReason ?? error, req.origin), afterHead);
      };
      const start = (agent: Agent): void => {
        try {
          send(agent);
        } catch (error) {
          fail(error);
        }
      };
      const send = (agent: Agent): void => {
        agent.dispatch(
          { origin: req.origin, path: req.path, method: req.method as Dispatcher.HttpMethod, headers: req.headers, body: req.body ?? null },
          {
            onRequestStart(c) {
              controller = c;
              if (abortReason !== undefined) c.abort(abortReason);
            },
            onResponseStart(_c, status, headers) {
              afterHead = true;
              handler.onHead(status, headers as IncomingHttpHeaders);
            },
            onResponseData(c, chunk) {
              if (!done && !handler.onData(chunk)) c.pause();
            },
            onResponseEnd() {
              if (done) return;
              done = true;
              handler.onEnd();
            },
            onResponseError(_c, error) {
              fail(error);
            },
          },
        );
      };
      if (agent !== undefined) start(agent);
      else load().then(start, fail);
      return {
        resume: () => controller?.resume(),
        abort: () => {
          if (done || abortReason !== undefined) return;
          abortReason = new FictaError('FICTA_CLIENT_ABORTED', 'upstream: request aborted by the client');
          controller?.abort(abortReason);
        },
      };
    },
    async close() {
      if (loading !== undefined) await (await loading).close();
    },
  };
}

/** Maps a transport error to FICTA_UPSTREAM_TIMEOUT (504) or FICTA_UPSTREAM_UNREACHABLE (502). */
export function toUpstreamError(cause: unknown, origin: string): FictaError {
  if (isFictaError(cause, 'FICTA_CLIENT_ABORTED')) return cause;
  const code = errorCode(cause);
  if (code === 'UND_ERR_ABORTED' || (cause as Error | null)?.name === 'AbortError') {
    return new FictaError('FICTA_CLIENT_ABORTED', 'upstream: request aborted by the client', { cause });
  }
  if (code !== undefined && TIMEOUT_CODES.has(code)) {
    return new FictaError('FICTA_UPSTREAM_TIMEOUT', `upstream: ${origin} timed out (${code})`, { status: 504, cause });
  }
  return new FictaError('FICTA_UPSTREAM_UNREACHABLE', `upstream: ${origin} unreachable (${code ?? 'error'})`, { status: 502, cause });
}

function errorCode(e: unknown): string | undefined {
  let cur: unknown = e;
  for (let i = 0; i < 4 && typeof cur === 'object' && cur !== null; i++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}
