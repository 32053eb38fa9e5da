// The fuzz suite's mock provider: records every request exactly as it arrived (raw target, raw header
// lines, undecoded body bytes) for the oracle, and answers with a scripted reply sent in exact chunks.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ForwardedRequest } from '../oracle/request-check.ts';

export interface ReplyPlan {
  status: number;
  /** Header lines (repeats allowed). */
  headers: Array<[string, string]>;
  /** Body pieces, each written separately (a pause between them keeps TCP from merging most). */
  chunks: Buffer[];
  /** Pause between chunks: 'tick' (setImmediate) or milliseconds. */
  gap: 'tick' | number;
}

export interface Recorder {
  url: string;
  /** Requests received since the last `reset`. */
  requests: ForwardedRequest[];
  reset(): void;
  setReply(reply: (req: ForwardedRequest) => ReplyPlan): void;
  close(): Promise<void>;
}

/** A reply with a small JSON body and no placeholder. */
export function okReply(): ReplyPlan {
  return { status: 200, headers: [['content-type', 'application/json']], chunks: [Buffer.from('{"ok":true}')], gap: 'tick' };
}

/** Starts the recorder on 127.0.0.1:0. */
export async function createRecorder(): Promise<Recorder> {
  let reply: (req: ForwardedRequest) => ReplyPlan = okReply;
  const state = { requests: [] as ForwardedRequest[] };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rec: ForwardedRequest = { method: req.method ?? 'GET', target: req.url ?? '/', rawHeaders: [...req.rawHeaders], body: Buffer.concat(chunks) };
      state.requests.push(rec);
      void send(res, reply(rec));
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return state.requests;
    },
    reset() {
      state.requests = [];
    },
    setReply(r) {
      reply = r;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function send(res: import('node:http').ServerResponse, plan: ReplyPlan): Promise<void> {
  const flat: string[] = [];
  for (const [n, v] of plan.headers) flat.push(n, v);
  const total = plan.chunks.reduce((n, c) => n + c.length, 0);
  if (plan.chunks.length <= 1) flat.push('content-length', String(total));
  res.writeHead(plan.status, flat);
  res.flushHeaders();
  for (const c of plan.chunks) {
    if (res.destroyed) return;
    res.write(c);
    if (plan.chunks.length > 1) await (plan.gap === 'tick' ? new Promise((r) => setImmediate(r)) : new Promise((r) => setTimeout(r, plan.gap as number)));
  }
  res.end();
}
