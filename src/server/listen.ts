// Starting and stopping the HTTP server: listen, refuse dot segments before anything routes by the path,
// refuse WebSocket upgrades at once (clients such as Codex then fall back to HTTP; nothing is tunnelled
// unredacted), refuse proxy CONNECT tunnels (an agent given ficta as its HTTPS proxy so that its side
// traffic goes nowhere), and shut down gracefully — stop accepting, let in-flight requests finish within a
// grace period, then close what remains.

import type { AddressInfo } from 'node:net';
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Hono } from 'hono';
import type { Logger } from '../log/logger.ts';
import { logEvent } from '../log/logger.ts';
import type { Outcome } from '../log/outcomes.ts';
import { openaiErrors, type ErrorShape } from '../providers/error-shapes.ts';
import { responseAlreadySent } from './app.ts';
import { dotSegmentError, hasDotSegment } from './dot-segments.ts';
import { sendError, toHttpError } from './error-response.ts';

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

/** A request answered by the server itself, before any route (to log and count it like any request). */
export interface RefusedAtListener {
  method: string;
  /** The target as the client sent it: may hold the access token or a registered value, so never logged as it is. */
  rawUrl: string;
  status: number;
  outcome: Outcome;
  bytesOut: number;
}

export interface ListenOptions {
  /** The error shape of the route a raw target would take (its client's SDK reads it); OpenAI's by default. */
  errorShapeFor?: (rawUrl: string) => ErrorShape;
  /** Told of each request refused before routing: a dot segment (400) or a WebSocket upgrade (426). */
  onRefused?: (refused: RefusedAtListener) => void;
  /** Told of each refused CONNECT: its target as the client sent it, and the bytes of the answer. */
  onTunnelRefused?: (target: string, bytesOut: number) => void;
}

/**
 * node:http without its ESM namespace: building that namespace reads every export, and node:http's
 * WebSocket, CloseEvent and MessageEvent getters load Node's internal undici (~15-25 ms of `ficta serve`'s
 * start, for classes ficta never uses).
 */
const http = process.getBuiltinModule('node:http') as typeof import('node:http');

/**
 * @hono/node-server's request listener, loaded once (its module reads globalThis.Request, Response and
 * Headers at the top, which loads Node's fetch implementation: ~13 ms). `listen` starts loading it as soon
 * as the server listens, so the ready line does not wait for it and a request rarely does.
 */
function lazyHonoListener(app: Hono<any>, host: string, options: ListenOptions): { warm(): void; handle: RequestListener } {
  let loading: Promise<RequestListener> | undefined;
  const load = (): Promise<RequestListener> =>
    (loading ??= responseAlreadySent()
      .then(() => import('@hono/node-server'))
      .then(({ getRequestListener }) => getRequestListener(app.fetch, { hostname: host }) as RequestListener));
  return {
    warm: () => void load().catch(() => undefined),
    handle: (req, res) => {
      load().then(
        (listener) => listener(req, res),
        (error: unknown) => {
          req.resume();
          sendError(res, options.errorShapeFor?.(req.url ?? '/') ?? openaiErrors, toHttpError(error));
        },
      );
    },
  };
}

/**
 * An http.Server whose requests first pass the raw-target check: a dot segment is refused (400, in the
 * route's error shape) before hono normalises the path it routes by, or @hono/node-server answers a bare
 * 400 for a backslash — the raw target is what would be forwarded (DESIGN §2).
 */
function guardedServer(options: ListenOptions, listener: RequestListener): Server {
  return http.createServer({}, (req: IncomingMessage, res: ServerResponse) => {
    const raw = req.url ?? '/';
    if (!hasDotSegment(raw)) {
      listener(req, res);
      return;
    }
    req.resume();
    const bytesOut = sendError(res, options.errorShapeFor?.(raw) ?? openaiErrors, toHttpError(dotSegmentError()));
    options.onRefused?.({ method: req.method ?? 'GET', rawUrl: raw, status: 400, outcome: 'bad_request', bytesOut });
  });
}

/** Listens on host:port (0 = any free port). */
export async function listen(app: Hono<any>, host: string, port: number, inFlight: InFlight, logger: Logger, options: ListenOptions = {}): Promise<RunningServer> {
  const hono = lazyHonoListener(app, host, options);
  const server = guardedServer(options, hono.handle);
  // LLM calls can think for minutes before the first byte; the upstream timeouts govern instead.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 5_000;

  server.on('upgrade', (req, socket) => {
    const body = (options.errorShapeFor?.(req.url ?? '/') ?? openaiErrors).format(426, 'ficta_websocket_unsupported', 'ficta: WebSocket is not supported; use HTTP (SSE) streaming');
    socket.end(
      `HTTP/1.1 426 Upgrade Required\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    // Logged like any refused request: the route with the token segment dropped and values redacted.
    options.onRefused?.({ method: req.method ?? 'GET', rawUrl: req.url ?? '/', status: 426, outcome: 'websocket_refused', bytesOut: Buffer.byteLength(body) });
  });

  // `ficta gemini` points the agent's HTTPS_PROXY here: whatever would bypass the base URL (usage
  // statistics, update checks) ends in this refusal instead of reaching its vendor.
  server.on('connect', (req, socket) => {
    socket.end('HTTP/1.1 403 Forbidden\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    options.onTunnelRefused?.(req.url ?? '', 0);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // After the ready line (the caller prints it once this returns), not before it.
  setImmediate(hono.warm);
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
