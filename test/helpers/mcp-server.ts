// A real MCP server built with the official TypeScript SDK (@modelcontextprotocol/sdk) on loopback: one
// tool, `record`, that records the arguments and request headers it was called with and answers with a
// fixed text. Streamable HTTP at `/mcp` (a session per client) and the older HTTP+SSE transport at `/sse`
// (its `endpoint` event names `/messages?sessionId=…`, a path on the server's origin).

import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface RecordedCall {
  args: Record<string, unknown>;
  headers: IncomingHttpHeaders;
}

export interface TestMcpServer {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  /** Streamable HTTP endpoint. */
  httpUrl: string;
  /** HTTP+SSE endpoint. */
  sseUrl: string;
  /** Every call of `record`, in order. */
  calls: RecordedCall[];
  /** Every raw request body the server received (JSON-RPC), in order. */
  bodies: string[];
  /** Headers of every request. */
  headers: IncomingHttpHeaders[];
  close(): Promise<void>;
}

/** The text `record` answers with (a test can check it arrives byte-exact). */
export const RECORD_REPLY = 'recorded ✓ "quoted" \\ and unicode: ö';

function createMcp(calls: RecordedCall[], current: { headers: IncomingHttpHeaders }): McpServer {
  const server = new McpServer({ name: 'tracker', version: '1.0.0' });
  server.registerTool(
    'record',
    { description: 'Records an issue in the tracker.', inputSchema: { title: z.string(), body: z.string() } },
    async (args) => {
      calls.push({ args: { ...args }, headers: { ...current.headers } });
      return { content: [{ type: 'text', text: RECORD_REPLY }] };
    },
  );
  return server;
}

export async function startMcpServer(): Promise<TestMcpServer> {
  const calls: RecordedCall[] = [];
  const bodies: string[] = [];
  const headers: IncomingHttpHeaders[] = [];
  const current = { headers: {} as IncomingHttpHeaders };
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const sse = new Map<string, SSEServerTransport>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    headers.push(req.headers);
    if (raw !== '') bodies.push(raw);
    current.headers = req.headers;
    const body = raw === '' ? undefined : JSON.parse(raw);
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/mcp') {
      const id = req.headers['mcp-session-id'];
      let transport = typeof id === 'string' ? sessions.get(id) : undefined;
      if (transport === undefined) {
        transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sid) => void sessions.set(sid, transport as StreamableHTTPServerTransport) });
        await createMcp(calls, current).connect(transport);
      }
      await transport.handleRequest(req, res, body);
      return;
    }
    if (url.pathname === '/sse' && req.method === 'GET') {
      const transport = new SSEServerTransport('/messages', res);
      sse.set(transport.sessionId, transport);
      await createMcp(calls, current).connect(transport);
      return;
    }
    if (url.pathname === '/messages' && req.method === 'POST') {
      const transport = sse.get(url.searchParams.get('sessionId') ?? '');
      if (transport === undefined) {
        res.writeHead(404).end('no session');
        return;
      }
      await transport.handlePostMessage(req, res, body);
      return;
    }
    res.writeHead(404).end('not found');
  };
  const http: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    origin,
    httpUrl: `${origin}/mcp`,
    sseUrl: `${origin}/sse`,
    calls,
    bodies,
    headers,
    async close() {
      for (const t of sessions.values()) await t.close().catch(() => undefined);
      for (const t of sse.values()) await t.close().catch(() => undefined);
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
