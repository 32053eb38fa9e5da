// An HTTP(S) proxy on loopback that refuses and records every connection an agent tries to open outside
// 127.0.0.1. Agents get it as HTTPS_PROXY/HTTP_PROXY with NO_PROXY=127.0.0.1,localhost, so any traffic
// that bypasses ficta's base URL shows up here and the test fails.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface EgressRecorder {
  url: string;
  /** `CONNECT host:port` targets and plain-HTTP absolute URLs that were attempted. */
  attempts: string[];
  /** Environment for the agent: proxy variables pointing here, loopback exempt. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** Starts the recorder on 127.0.0.1:0. */
export async function createEgressRecorder(): Promise<EgressRecorder> {
  const attempts: string[] = [];
  const server: Server = createServer((req, res) => {
    attempts.push(`${req.method ?? 'GET'} ${req.url ?? ''}`);
    res.writeHead(403, { 'content-type': 'text/plain', connection: 'close' });
    res.end('egress refused by the test\n');
  });
  server.on('connect', (req, socket) => {
    attempts.push(`CONNECT ${req.url ?? ''}`);
    socket.end('HTTP/1.1 403 Forbidden\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const noProxy = '127.0.0.1,localhost,::1';
  return {
    url,
    attempts,
    env: { HTTPS_PROXY: url, HTTP_PROXY: url, https_proxy: url, http_proxy: url, ALL_PROXY: url, NO_PROXY: noProxy, no_proxy: noProxy },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
