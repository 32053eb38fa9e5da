// The upstream client: the only module that imports undici. One connection-pooling Agent for all
// upstreams; errors before response headers become 502 (unreachable) or 504 (timed out).

import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { Agent } from 'undici';
import { FictaError } from '../errors.ts';

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
  signal: AbortSignal;
}

export interface UpstreamResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Readable;
}

export interface UpstreamClient {
  request(req: UpstreamRequest): Promise<UpstreamResponse>;
  close(): Promise<void>;
}

/** Keep-alive for idle upstream connections; providers close theirs after about a minute. */
const KEEP_ALIVE_MS = 30_000;

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'ETIMEDOUT']);

/** Creates the pooled client. */
export function createUpstreamClient(limits: UpstreamLimits): UpstreamClient {
  const agent = new Agent({
    connect: { timeout: limits.connectTimeoutMs },
    headersTimeout: limits.headersTimeoutMs,
    bodyTimeout: limits.bodyTimeoutMs,
    keepAliveTimeout: KEEP_ALIVE_MS,
    connections: 128,
  });
  return {
    async request(req) {
      try {
        const res = await agent.request({
          origin: req.origin,
          path: req.path,
          method: req.method as 'GET',
          headers: req.headers,
          body: req.body ?? null,
          signal: req.signal,
        });
        return { status: res.statusCode, headers: res.headers, body: res.body };
      } catch (cause) {
        throw toUpstreamError(cause, req.origin);
      }
    },
    async close() {
      await agent.close();
    },
  };
}

/** Maps a transport error to FICTA_UPSTREAM_TIMEOUT (504) or FICTA_UPSTREAM_UNREACHABLE (502). */
export function toUpstreamError(cause: unknown, origin: string): FictaError {
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
