// Sends one request to the proxy with full control of what goes on the wire: the raw target, header
// lines in order with repeats, latin1 header bytes, an exact body; returns the raw response body.

import { Agent, request } from 'node:http';

export interface ClientRequest {
  method: string;
  target: string;
  headers: Array<[string, string]>;
  body: Buffer | undefined;
}

export interface ClientResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** Body chunks as they arrived. */
  chunks: number;
}

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

/** Sends `req` to `base` (http://host:port). */
export function send(base: string, req: ClientRequest, timeoutMs: number): Promise<ClientResponse> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const grouped = new Map<string, string[]>();
    for (const [n, v] of req.headers) grouped.set(n, [...(grouped.get(n) ?? []), v]);
    const r = request({ host: url.hostname, port: url.port, method: req.method, path: req.target, agent, setHost: true }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), chunks: chunks.length });
      });
      res.on('error', reject);
    });
    const timer = setTimeout(() => r.destroy(new Error(`fuzz: no complete response within ${timeoutMs} ms`)), timeoutMs);
    for (const [n, vs] of grouped) r.setHeader(n, vs.length === 1 ? (vs[0] as string) : vs);
    if (req.body !== undefined) r.setHeader('content-length', String(req.body.length));
    r.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    r.end(req.body);
  });
}

/** Closes idle keep-alive sockets (at the end of a suite). */
export function closeClient(): void {
  agent.destroy();
}
