// The set-build worker: builds a secret set's tables (de-duplication, escaped forms, fingerprints,
// classes and the automaton: src/redact/set-tables.ts) from what the parent sends, and posts them back
// with their buffers transferred, so a reload of 10,000 secrets costs the proxy's event loop almost nothing.

import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { buildSetTables, transferables, type SetTables, type TablesInput } from './set-tables.ts';

export type SetTablesReply = { ok: true; tables: SetTables } | { ok: false; message: string };

/**
 * The worker's nice value. On Linux it is per thread (setpriority on the calling thread), so the build
 * yields the CPU to the request thread, the clients and the upstream when they want it and takes what is
 * idle: on 2 cores under saturating load, a build at the default priority took a core from them for the
 * half second it lasts and moved the p99 of every request in flight (bench/gateway.bench.ts).
 */
export const BUILD_NICE = 19;

/**
 * The build also sleeps SLEEP_MS after every WORK_MS of work. Even at nice 19 a busy thread costs the
 * others on a saturated machine (its memory traffic, the collector's helper threads). Measured with
 * bench/gateway.bench.ts, FICTA_BENCH_RELOAD=worker, 15 pairs: a 20,000-value build without pauses moved
 * the p99 by ~13 ms; at 2 ms in 8 it still moved it by +13.2 ms and the event loop's p99 by +6 ms; at
 * 2 ms in 16 by +3.7 ms and +1.5 ms. A reload then takes ~1–1.5 s instead of ~0.3 s; nothing else waits
 * on it, but a new value is protected only from the swap (docs/gateway.md, "What it cannot protect").
 */
const WORK_MS = 2;
const SLEEP_MS = 14;

const port = parentPort;
if (port !== null) {
  // Only where the nice value is the calling thread's: elsewhere (macOS) it would be the whole process's.
  if (process.platform === 'linux') {
    try {
      setPriority(BUILD_NICE);
    } catch {
      // Not permitted: the build runs at the process's priority (and still sleeps between slices).
    }
  }
  port.once('message', (input: TablesInput) => {
    let reply: SetTablesReply;
    let transfer: ArrayBuffer[] = [];
    try {
      const sleeper = new Int32Array(new SharedArrayBuffer(4));
      let since = performance.now();
      const pause = (): void => {
        if (performance.now() - since < WORK_MS) return;
        Atomics.wait(sleeper, 0, 0, SLEEP_MS);
        since = performance.now();
      };
      const tables = buildSetTables(input, pause);
      transfer = transferables(tables);
      reply = { ok: true, tables };
    } catch (error) {
      reply = { ok: false, message: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(reply, transfer);
  });
}
