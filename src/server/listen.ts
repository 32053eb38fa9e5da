// Starting and stopping the HTTP server: listen, refuse WebSocket upgrades at once (clients such as
// Codex then fall back to HTTP; nothing is tunnelled unredacted), refuse proxy CONNECT tunnels (an
// agent given ficta as its HTTPS proxy so that its side traffic goes nowhere), and shut down gracefully
// — stop accepting, let in-flight requests finish within a grace period, then close what remains.

import { createAdaptorServer } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Hono } from 'hono';
import type { Logger } from '../log/logger.ts';
import { logEvent } from '../log/logger.ts';
import { openaiErrors } from '../providers/error-shapes.ts';

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

/**
 * Listens on host:port (0 = any free port). `onTunnelRefused` is told the target of each refused CONNECT
 * (as the client sent it) and the bytes of the answer, to log and count it.
 */
export async function listen(app: Hono<any>, host: string, port: number, inFlight: InFlight, logger: Logger, onTunnelRefused: (target: string, bytesOut: number) => void = () => {}): Promise<RunningServer> {
  const server = createAdaptorServer({ fetch: app.fetch, hostname: host }) as Server;
  // LLM calls can think for minutes before the first byte; the upstream timeouts govern instead.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 5_000;

  server.on('upgrade', (req, socket) => {
    logEvent(logger, 'info', 'websocket_refused', { path: (req.url ?? '').split('?')[0] });
    const body = openaiErrors.format(426, 'ficta_websocket_unsupported', 'ficta: WebSocket is not supported; use HTTP (SSE) streaming');
    socket.end(
      `HTTP/1.1 426 Upgrade Required\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  });

  // `ficta gemini` points the agent's HTTPS_PROXY here: whatever would bypass the base URL (usage
  // statistics, update checks) ends in this refusal instead of reaching its vendor.
  server.on('connect', (req, socket) => {
    socket.end('HTTP/1.1 403 Forbidden\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    onTunnelRefused(req.url ?? '', 0);
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
