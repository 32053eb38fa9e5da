// Starting and stopping the HTTP server: listen, refuse WebSocket upgrades at once (clients such as
// Codex then fall back to HTTP; nothing is tunnelled unredacted), and shut down gracefully — stop
// accepting, let in-flight requests finish within a grace period, then close what remains.

import { createAdaptorServer } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import { resolveRoute } from '../providers/routes.ts';
import type { Hono } from 'hono';
import type { Logger } from '../log/logger.ts';
import { logEvent } from '../log/logger.ts';
import { dotSegmentError, hasDotSegment } from './dot-segments.ts';
import { formatErrorBody, sendError, toHttpError } from './error-response.ts';

export interface RunningServer {
  server: Server;
  host: string;
  port: number;
  url: string;
  /** Stops accepting, waits up to `graceMs` for in-flight requests, then closes every connection. */
  close(graceMs: number): Promise<void>;
}

export interface InFlight {
  count: number;
  idle: (() => void)[];
}

/** Tracks in-flight proxied requests so shutdown can wait for them. */
export function createInFlight(): InFlight & { start(): void; end(): void } {
  const s = {
    count: 0,
    idle: [] as (() => void)[],
    start() {
      s.count++;
    },
    end() {
      s.count--;
      if (s.count === 0) for (const f of s.idle.splice(0)) f();
    },
  };
  return s;
}

export interface ListenOptions {
  /** The path of a raw request target as logs may show it (values redacted, token masked), or undefined. */
  loggablePath?: (rawTarget: string) => string | undefined;
}

/**
 * An http.Server whose requests first pass the raw-target check: a dot segment is refused (400, in the
 * provider's shape) before hono normalises the path it routes by, or @hono/node-server answers a bare 400
 * for a backslash — the raw target is what would be forwarded (DESIGN §2).
 */
function guardedServer(options: ServerOptions, listener?: RequestListener): Server {
  return createServer(options, (req: IncomingMessage, res: ServerResponse) => {
    const raw = req.url ?? '/';
    if (!hasDotSegment(raw)) {
      listener?.(req, res);
      return;
    }
    req.resume();
    const provider = resolveRoute(raw.replace(/^\/t\/[^/?]*/, ''))?.provider ?? 'openai';
    sendError(res, provider, toHttpError(dotSegmentError()));
  });
}

/** Listens on host:port (0 = any free port). */
export async function listen(app: Hono<any>, host: string, port: number, inFlight: InFlight, logger: Logger, options: ListenOptions = {}): Promise<RunningServer> {
  const server = createAdaptorServer({ fetch: app.fetch, hostname: host, createServer: guardedServer as typeof createServer }) as Server;
  // LLM calls can think for minutes before the first byte; the upstream timeouts govern instead.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 5_000;

  server.on('upgrade', (req, socket) => {
    // Never the raw target: it may carry the access token or a registered value.
    logEvent(logger, 'info', 'websocket_refused', { path: options.loggablePath?.(req.url ?? '/') });
    const body = formatErrorBody('openai', 'ficta_websocket_unsupported', 'ficta: WebSocket is not supported; use HTTP (SSE) streaming');
    socket.end(
      `HTTP/1.1 426 Upgrade Required\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    server,
    host: addr.address,
    port: addr.port,
    url: `http://${shownHost}:${addr.port}`,
    async close(graceMs) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const drained = inFlight.count === 0 ? Promise.resolve() : new Promise<void>((resolve) => inFlight.idle.push(resolve));
      // Connections that finish their last request become idle; close them as they do.
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), graceMs);
      });
      const forced = await Promise.race([drained.then(() => false), timedOut]);
      if (forced) logEvent(logger, 'warn', 'shutdown_forced', { inFlight: inFlight.count });
      clearTimeout(timer);
      server.closeIdleConnections();
      if (forced) server.closeAllConnections();
      const lingering = setTimeout(() => server.closeAllConnections(), 1_000);
      await closed;
      clearInterval(sweep);
      clearTimeout(lingering);
    },
  };
}
