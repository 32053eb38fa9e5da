// Bench-only: bytes a proxy process allocates, for the end-to-end harness. Started when the process finds
// FICTA_BENCH_ALLOC (a file path) in its environment; nothing else loads it. On each SIGUSR2 it closes a
// window and writes its totals to that file as one JSON object `{ pid, seq, allocatedBytes, gcs, gcMs }`,
// then opens the next. The harness signals before and after a batch and divides by the batch's requests.
//
// How it counts: V8 keeps no running total of allocation, but every byte allocated in a window is either
// still in use at its end or was freed by a collection in it. So allocated = (used at end − used at start)
// + Σ over the window's collections (used before − used after), where "used" is the V8 heap's used size
// plus external memory (Buffer and ArrayBuffer contents), read from v8.GCProfiler's per-collection
// statistics. Memory freed outside a collection (Buffer pool reuse, native scratch) is not seen, so
// allocations the pool recycles count once per pool slab; figures compare builds, they are not exact.

import { readFileSync, writeFileSync } from 'node:fs';
import { GCProfiler, getHeapStatistics } from 'node:v8';

/** What one window reports. */
export interface AllocWindow {
  pid: number;
  /** Windows closed so far (0: the probe has just started). */
  seq: number;
  allocatedBytes: number;
  /** Garbage collections in the window and their total pause time. */
  gcs: number;
  gcMs: number;
}

interface HeapNumbers {
  usedHeapSize: number;
  externalMemory: number;
}
interface GcRecord {
  cost: number;
  beforeGC: { heapStatistics: HeapNumbers };
  afterGC: { heapStatistics: HeapNumbers };
}

function usedNow(): number {
  const h = getHeapStatistics();
  return h.used_heap_size + h.external_memory;
}

/** Starts the probe writing to `file` (the harness reads `pid` there to know whom to signal). */
export function startAllocProbe(file: string): void {
  let seq = 0;
  let profiler = new GCProfiler();
  let start = usedNow();
  profiler.start();
  writeFileSync(file, JSON.stringify({ pid: process.pid, seq, allocatedBytes: 0, gcs: 0, gcMs: 0 } satisfies AllocWindow));
  process.on('SIGUSR2', () => {
    const records = ((profiler.stop() as unknown as { statistics?: GcRecord[] } | undefined)?.statistics ?? []) as GcRecord[];
    const end = usedNow();
    let freed = 0;
    let costUs = 0;
    for (const r of records) {
      const b = r.beforeGC.heapStatistics;
      const a = r.afterGC.heapStatistics;
      freed += b.usedHeapSize + b.externalMemory - (a.usedHeapSize + a.externalMemory);
      costUs += r.cost;
    }
    const window: AllocWindow = { pid: process.pid, seq: ++seq, allocatedBytes: Math.max(0, end - start + freed), gcs: records.length, gcMs: costUs / 1000 };
    writeFileSync(file, JSON.stringify(window));
    profiler = new GCProfiler();
    start = usedNow();
    profiler.start();
  });
}

/** Reads the probe's file; undefined while it is missing or half written. */
function readWindow(file: string): AllocWindow | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as AllocWindow;
  } catch {
    return undefined;
  }
}

/**
 * Harness side: closes the probe's current window and returns its totals (undefined when the probe is
 * not there or does not answer within 2 s).
 */
export async function closeAllocWindow(file: string): Promise<AllocWindow | undefined> {
  const current = readWindow(file);
  if (current === undefined) return undefined;
  try {
    process.kill(current.pid, 'SIGUSR2');
  } catch {
    return undefined;
  }
  const deadline = performance.now() + 2_000;
  while (performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 2));
    const w = readWindow(file);
    if (w !== undefined && w.seq > current.seq) return w;
  }
  return undefined;
}
