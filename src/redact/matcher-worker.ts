// The automaton-build worker: builds one matcher's tables from patterns sent by the parent and posts them
// back (their buffers transferred), so a reload of 10,000 secrets never holds the proxy's event loop.

import { parentPort } from 'node:worker_threads';
import { buildTables, type BuiltTables, type PatternFamily } from './matcher-build.ts';

export interface MatcherRequest {
  /** Every pattern's bytes, back to back, and each one's length. */
  bytes: Uint8Array;
  lengths: Int32Array;
  families: PatternFamily[];
}

export type MatcherReply = { ok: true; built: BuiltTables } | { ok: false; message: string };

const port = parentPort;
if (port !== null) {
  port.once('message', (request: MatcherRequest) => {
    let reply: MatcherReply;
    const transfer: ArrayBuffer[] = [];
    try {
      const patterns: Uint8Array[] = [];
      let at = 0;
      for (const n of request.lengths) {
        patterns.push(request.bytes.subarray(at, at + n));
        at += n;
      }
      const built = buildTables(patterns, request.families);
      const t = built.tables;
      for (const a of [t.table, t.rowOf, t.rowState, t.childStart, t.edge, t.fail, t.dict, t.outStart, t.outIds]) {
        if (a.buffer instanceof ArrayBuffer && !transfer.includes(a.buffer)) transfer.push(a.buffer);
      }
      reply = { ok: true, built };
    } catch (error) {
      reply = { ok: false, message: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(reply, transfer);
  });
}
