// The gateway's admin listener: `GET /healthz` (the process is alive), `GET /readyz` (200 once every
// source has loaded, 503 from the moment a drain starts; names sources added later and not loaded yet), `GET /metrics` (Prometheus text), and nothing
// else — no provider route, no token, no value ever answers here.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AdminOptions {
  host: string;
  port: number;
  /** `pending`: sources (names) not loaded yet, shown in the body. */
  ready: () => { ready: boolean; reason?: string; pending?: string[] };
  metrics: () => Promise<{ contentType: string; body: string }>;
}

export interface AdminServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Starts the admin listener. */
export async function startAdmin(options: AdminOptions): Promise<AdminServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    req.resume();
    const json = (status: number, body: unknown): void => {
      const text = `${JSON.stringify(body)}\n`;
      res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(text) });
      res.end(req.method === 'HEAD' ? undefined : text);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      json(405, { error: 'method not allowed' });
      return;
    }
    if (path === '/healthz') {
      json(200, { status: 'ok' });
      return;
    }
    if (path === '/readyz') {
      const r = options.ready();
      const pending = r.pending === undefined || r.pending.length === 0 ? {} : { pendingSources: r.pending };
      json(r.ready ? 200 : 503, r.ready ? { status: 'ready', ...pending } : { status: 'not_ready', reason: r.reason ?? 'not ready', ...pending });
      return;
    }
    if (path === '/metrics') {
      options.metrics().then(
        (m) => {
          res.writeHead(200, { 'content-type': m.contentType, 'cache-control': 'no-store', 'content-length': Buffer.byteLength(m.body) });
          res.end(req.method === 'HEAD' ? undefined : m.body);
        },
        () => json(500, { error: 'metrics unavailable' }),
      );
      return;
    }
    json(404, { error: 'not found: the admin listener serves /healthz, /readyz and /metrics' });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const shown = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${shown}:${addr.port}`,
    port: addr.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
