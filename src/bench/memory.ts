// Memory checks against a ficta with 10,000 secrets (DESIGN §6: ≤ 150 MB RSS; a 32 MiB body costs at
// most ~3× its size): RSS when idle, the peak while a 32 MiB request is redacted and forwarded, the peak
// during a long restored SSE stream, and RSS and latency across many sequential requests (growth
// would mean per-request state that is never freed).

import { FictaError } from '../errors.ts';
import { makeMessagesBody } from './corpus.ts';
import { poolFor, type BenchMode, type Harness, type Target } from './e2e.ts';
import { runBatch, send, type RequestSpec } from './load-client.ts';
import { countLabel } from './micro.ts';
import { CHECK_HEADER, LEAKS_HEADER, RECEIVED_HEADER, REPLY_HEADER } from './mock-upstream.ts';
import { memory, resetPeak } from './proc.ts';
import { summarize } from './stats.ts';

const MiB = 1024 * 1024;

/**
 * How long the proxy must have been idle before its RSS counts as settled: V8's memory reducer gave
 * back the secret set's build garbage 14–18 s after start here (10,000 secrets: 157 MB → 112–146 MB).
 */
const IDLE_SETTLE_MS = 20_000;

export interface MemoryPlan {
  secrets: number;
  /** Size of the big request body (the default body limit is 32 MiB). */
  bigBodyBytes: number;
  longSseBytes: number;
  sequential: number;
  /** Idle time before the idle reading (smoke runs skip the wait: their figures mean nothing). */
  settleMs: number;
}

/** The memory checks of each mode. */
export const MEMORY_PLANS: Record<BenchMode, MemoryPlan> = {
  // The body stays 32 MiB even in smoke runs: the case exists to exercise the limit.
  smoke: { secrets: 10_000, bigBodyBytes: 32 * MiB - 64 * 1024, longSseBytes: 8 * MiB, sequential: 200, settleMs: 0 },
  quick: { secrets: 10_000, bigBodyBytes: 32 * MiB - 64 * 1024, longSseBytes: 64 * MiB, sequential: 2_000, settleMs: IDLE_SETTLE_MS },
  full: { secrets: 10_000, bigBodyBytes: 32 * MiB - 64 * 1024, longSseBytes: 256 * MiB, sequential: 10_000, settleMs: IDLE_SETTLE_MS },
};

export interface MemoryResult {
  name: string;
  [field: string]: number | string | boolean | null | undefined;
}

/** Runs the checks on a fresh ficta with `plan.secrets` secrets. */
export async function runMemoryChecks(h: Harness, plan: MemoryPlan, log: (line: string) => void): Promise<MemoryResult[]> {
  const label = countLabel(plan.secrets);
  const t = h.memoryTarget ?? (await h.startFicta(`ficta-memory-${label}`, plan.secrets));
  const pids = t.child?.pids ?? [];
  const read = (): { rssMB: number; peakMB: number } => {
    const m = memory(pids);
    if (m === undefined) throw new FictaError('FICTA_BENCH_FAILED', 'bench: cannot read the proxy memory from /proc');
    return m;
  };
  const out: MemoryResult[] = [];
  try {
    const small: RequestSpec = {
      path: '/v1/messages',
      headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-bench-not-a-key', [REPLY_HEADER]: 'json:1024' },
      body: makeMessagesBody(1024, { plant: h.planted, stream: false }),
      sse: false,
    };
    const smallSse: RequestSpec = { ...small, headers: { ...small.headers, [REPLY_HEADER]: 'sse-burst:4096' }, body: makeMessagesBody(1024, { plant: h.planted }), sse: true };
    // Idle RSS once V8's memory reducer has returned the build's garbage.
    const wait = plan.settleMs - (performance.now() - t.readyAt);
    if (wait > 0) {
      log(`memory/idle/${label}: waiting ${(wait / 1000).toFixed(1)} s for the proxy to settle`);
      await new Promise((r) => setTimeout(r, wait));
    }
    const idle = read();
    out.push({ name: `memory/idle/${label}`, secrets: plan.secrets, rssMB: idle.rssMB, startupPeakMB: idle.peakMB, idleSeconds: (performance.now() - t.readyAt) / 1000 });
    log(`memory/idle/${label}: rss ${idle.rssMB.toFixed(1)} MB settled (start-up peak ${idle.peakMB.toFixed(1)} MB)`);
    await runBatch(poolFor(t, 1), small, 50, 1, 10_000);
    await runBatch(poolFor(t, 1), smallSse, 50, 1, 10_000);
    const warm = read();
    out.push({ name: `memory/warm/${label}`, secrets: plan.secrets, rssMB: warm.rssMB });

    out.push(await sequential(t, small, smallSse, plan, label, read, log));
    out.push(await bigRequest(h, t, plan, label, read, pids, log));
    out.push(await longStream(h, t, plan, label, read, pids, log));
  } finally {
    await Promise.all([...t.pools.values()].map((p) => p.destroy().catch(() => undefined)));
    t.pools.clear();
    await t.child?.stop();
  }
  return out;
}

async function sequential(
  t: Target,
  json: RequestSpec,
  sse: RequestSpec,
  plan: MemoryPlan,
  label: string,
  read: () => { rssMB: number },
  log: (line: string) => void,
): Promise<MemoryResult> {
  const n = plan.sequential;
  const decile = Math.max(10, Math.floor(n / 10));
  const latencies: number[] = [];
  let rssEarly = 0;
  let errors = 0;
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const r = await send(poolFor(t, 1), i % 2 === 0 ? json : sse);
    if (r.status !== 200) errors++;
    latencies.push(r.total);
    if (i === decile) rssEarly = read().rssMB;
  }
  const wallMs = performance.now() - started;
  const rssLate = read().rssMB;
  // The first half-decile warms up; the second decile is compared with the last one.
  const early = summarize(latencies.slice(decile, 2 * decile));
  const late = summarize(latencies.slice(n - decile));
  const all = summarize(latencies);
  const result: MemoryResult = {
    name: `memory/sequential/${label}`,
    requests: n,
    errors,
    unit: 'ms',
    samples: all.samples,
    p50: all.p50,
    p95: all.p95,
    p99: all.p99,
    p50EarlyMs: early.p50,
    p50LateMs: late.p50,
    latencyGrowth: late.p50 / early.p50,
    rssEarlyMB: rssEarly,
    rssLateMB: rssLate,
    rssGrowthMB: rssLate - rssEarly,
    reqPerSec: (n / wallMs) * 1000,
  };
  log(`memory/sequential/${label}: ${n} requests, p50 ${early.p50.toFixed(3)} → ${late.p50.toFixed(3)} ms, rss ${rssEarly.toFixed(1)} → ${rssLate.toFixed(1)} MB${errors > 0 ? `, ${errors} errors` : ''}`);
  return result;
}

async function bigRequest(
  h: Harness,
  t: Target,
  plan: MemoryPlan,
  label: string,
  read: () => { rssMB: number; peakMB: number },
  pids: readonly number[],
  log: (line: string) => void,
): Promise<MemoryResult> {
  // The corpus counts characters, not bytes: shrink the target until the body fits the limit.
  let body = makeMessagesBody(plan.bigBodyBytes, { plant: h.planted, stream: false });
  for (let i = 0; i < 3 && body.length > plan.bigBodyBytes; i++) {
    body = makeMessagesBody(Math.floor((plan.bigBodyBytes * plan.bigBodyBytes) / body.length) - 4096, { plant: h.planted, stream: false });
  }
  const spec: RequestSpec = { path: '/v1/messages', headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-bench-not-a-key', [REPLY_HEADER]: 'small' }, body, sse: false };
  const baseline = read().rssMB;
  const peakReset = resetPeak(pids);
  const r = await send(poolFor(t, 1), spec, { keepBody: true, headers: { [CHECK_HEADER]: '1' } });
  const after = read();
  if (r.status !== 200) throw new FictaError('FICTA_BENCH_FAILED', `bench: the ${mb(body.length)} MB request got status ${r.status}: ${(r.body ?? Buffer.alloc(0)).toString('utf8').slice(0, 200)}`);
  if (Number(r.headers[LEAKS_HEADER]) !== 0) throw new FictaError('FICTA_BENCH_FAILED', `bench: planted values reached the upstream in the ${mb(body.length)} MB request`);
  const bodyMB = body.length / 1e6;
  const costMB = after.peakMB - baseline;
  log(`memory/big-request/${label}: ${bodyMB.toFixed(1)} MB body in ${r.total.toFixed(0)} ms, peak ${after.peakMB.toFixed(1)} MB (+${costMB.toFixed(1)} over ${baseline.toFixed(1)}, ${(costMB / bodyMB).toFixed(2)}× the body)`);
  return {
    name: `memory/big-request/${label}`,
    bodyMB,
    forwardedMB: Number(r.headers[RECEIVED_HEADER]) / 1e6,
    ms: r.total,
    baselineMB: baseline,
    peakMB: after.peakMB,
    costMB,
    costOverBody: costMB / bodyMB,
    peakReset,
  };
}

async function longStream(
  h: Harness,
  t: Target,
  plan: MemoryPlan,
  label: string,
  read: () => { rssMB: number; peakMB: number },
  pids: readonly number[],
  log: (line: string) => void,
): Promise<MemoryResult> {
  const spec: RequestSpec = {
    path: '/v1/messages',
    headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-bench-not-a-key', [REPLY_HEADER]: `sse-burst:${plan.longSseBytes}` },
    body: makeMessagesBody(1024, { plant: h.planted }),
    sse: true,
  };
  const baseline = read().rssMB;
  const peakReset = resetPeak(pids);
  // Restored values must appear and no placeholder may be left (one split by a chunk edge can hide from this check).
  let restored = 0;
  let leftover = 0;
  const value = Buffer.from(h.planted[0] as string);
  const r = await send(poolFor(t, 1), spec, {
    onChunk: (c) => {
      if (c.includes(value)) restored++;
      if (c.includes('~ficta_')) leftover++;
    },
  });
  const after = read();
  if (r.status !== 200 || r.bytes < plan.longSseBytes) throw new FictaError('FICTA_BENCH_FAILED', `bench: the long stream ended after ${r.bytes} bytes with status ${r.status}`);
  if (restored === 0 || leftover > 0) throw new FictaError('FICTA_BENCH_FAILED', `bench: the long stream was not restored (${restored} chunks with a value, ${leftover} with a placeholder)`);
  const streamMB = r.bytes / 1e6;
  log(`memory/long-sse/${label}: ${streamMB.toFixed(0)} MB restored in ${r.total.toFixed(0)} ms (${((streamMB / r.total) * 1000).toFixed(0)} MB/s), peak ${after.peakMB.toFixed(1)} MB (baseline ${baseline.toFixed(1)})`);
  return {
    name: `memory/long-sse/${label}`,
    streamMB,
    ms: r.total,
    mbPerSec: (streamMB / r.total) * 1000,
    baselineMB: baseline,
    peakMB: after.peakMB,
    costMB: after.peakMB - baseline,
    peakReset,
  };
}

function mb(bytes: number): string {
  return (bytes / 1e6).toFixed(1);
}
