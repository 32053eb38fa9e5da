// The set-build worker: builds a secret set's tables (de-duplication, escaped forms, fingerprints,
// classes and the automaton: src/redact/set-tables.ts) from what the parent sends, and posts them back
// with their buffers transferred, so a reload of 10,000 secrets costs the proxy's event loop almost nothing.

import { parentPort } from 'node:worker_threads';
import { buildSetTables, transferables, type SetTables, type TablesInput } from './set-tables.ts';

export type SetTablesReply = { ok: true; tables: SetTables } | { ok: false; message: string };

const port = parentPort;
if (port !== null) {
  port.once('message', (input: TablesInput) => {
    let reply: SetTablesReply;
    let transfer: ArrayBuffer[] = [];
    try {
      const tables = buildSetTables(input);
      transfer = transferables(tables);
      reply = { ok: true, tables };
    } catch (error) {
      reply = { ok: false, message: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(reply, transfer);
  });
}
