// Issue 21's gateway benchmark: one instance with 10,000 organisation secrets (in G sources) and 1,000
// tenants, 200 KB Anthropic streams at concurrency 64, against the floor proxy and a direct connection in
// the same run (rounds alternate). Reports requests per CPU-second ("per core"), p50/p99 added latency and
// CPU per request against the floor's; RSS once every tenant has made requests; and p99 in a round during
// which all 10,000 values are replaced and reloaded (SIGHUP) against a round without.
// usage: node --import tsx bench/gateway.bench.ts [--secrets 10000] [--tenants 1000] [--requests 1200] [--rounds 2] [--json]

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { makeSecrets } from '../src/bench/corpus.ts';
import { createPool, send, type RequestSpec } from '../src/bench/load-client.ts';
import { machineInfo } from '../src/bench/machine.ts';
import { cpuTimeMs, memory, processTree } from '../src/bench/proc.ts';
import { freePort, spawnChild, stopAllChildren, type Child } from '../src/bench/processes.ts';
import { quantile } from '../src/bench/stats.ts';

const { values: args } = parseArgs({
  options: {
    secrets: { type: 'string', default: '10000' },
    tenants: { type: 'string', default: '1000' },
    groups: { type: 'string', default: '10' },
    requests: { type: 'string', default: '1200' },
    rounds: { type: 'string', default: '2' },
    concurrency: { type: 'string', default: '64' },
    bytes: { type: 'string', default: String(200 * 1024) },
    json: { type: 'boolean', default: false },
  },
});
const SECRETS = Number(args.secrets);
const TENANTS = Number(args.tenants);
const GROUPS = Number(args.groups);
const REQUESTS = Number(args.requests);
const ROUNDS = Number(args.rounds);
const CONCURRENCY = Number(args.concurrency);
const BYTES = Number(args.bytes);
/** No round runs longer than this, whatever the machine's load. */
const ROUND_MAX_MS = 90_000;
const log = (line: string): void => void process.stderr.write(`${line}\n`);

const dir = mkdtempSync(join(tmpdir(), 'ficta-gw-bench-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
process.on('SIGINT', () => {
  stopAllChildren();
  process.exit(130);
});

/** Writes the G source files (secret i in source i mod G) and the mock's watch list; returns the values by source. */
function writeSources(seed: number): string[][] {
  const all = Object.values(makeSecrets(SECRETS, seed));
  const bySource: string[][] = Array.from({ length: GROUPS }, () => []);
  all.forEach((v, i) => bySource[i % GROUPS]!.push(v));
  bySource.forEach((values, k) => writeFileSync(join(dir, `g${k}.env`), values.map((v, i) => `S${k}_${i}='${v.replace(/'/g, '')}'`).join('\n') + '\n'));
  writeFileSync(join(dir, 'watch.json'), JSON.stringify(all.map((v) => v.replace(/'/g, ''))));
  return bySource.map((vs) => vs.map((v) => v.replace(/'/g, '')));
}

let bySource = writeSources(1);

/** A ~8 KB Anthropic request for tenant `t` holding four of its group's values. */
function requestFor(t: number, base: string): RequestSpec {
  const own = bySource[t % GROUPS]!;
  const planted = [0, 1, 2, 3].map((k) => own[(t * 4 + k) % own.length]!);
  const filler = 'Please review the deploy configuration and explain each step in detail. '.repeat(100);
  const content = `${filler}\nkeys: ${planted.join(' and ')}\n${filler}`;
  const body = Buffer.from(JSON.stringify({ model: 'claude-x', max_tokens: 4096, stream: true, messages: [{ role: 'user', content }] }));
  return { path: `${base}/v1/messages`, headers: { 'content-type': 'application/json', 'x-api-key': 'bench', 'anthropic-version': '2023-06-01' }, body, sse: true };
}

interface Target {
  label: string;
  port: number;
  child: Child | undefined;
  base: (t: number) => string;
}

const mockPort = await (async () => {
  const { child, match } = await spawnChild({
    label: 'gateway-mock',
    command: process.execPath,
    args: ['--import', 'tsx', 'bench/gateway-mock.ts', String(BYTES), join(dir, 'watch.json')],
    env: { ...process.env },
    logDir: dir,
    ready: { stdout: /gateway mock listening on (\d+)/ },
  });
  void child;
  return Number(match);
})();
const upstream = `http://127.0.0.1:${mockPort}`;

const floorPort = await freePort();
const floor = (
  await spawnChild({ label: 'floor', command: process.execPath, args: ['--import', 'tsx', 'bench/floor-proxy.ts', upstream, String(floorPort)], env: { ...process.env }, logDir: dir, ready: { port: floorPort } })
).child;
const gwPort = await freePort();
const started = performance.now();
const gateway = (
  await spawnChild({
    label: 'gateway',
    command: process.execPath,
    args: ['--import', 'tsx', 'bench/gateway-child.ts', upstream, String(gwPort), dir, String(TENANTS), String(GROUPS)],
    env: { ...process.env, NODE_ENV: 'production' },
    logDir: dir,
    ready: { stdout: /gateway listening on (\d+)/ },
  })
).child;
log(`gateway ready in ${((performance.now() - started) / 1000).toFixed(1)} s (${SECRETS} secrets in ${GROUPS} sources, ${TENANTS} tenants)`);
const reloads: number[] = [];
gateway.process.stdout?.on('data', (d: Buffer | string) => {
  for (const m of String(d).matchAll(/reloaded ([\d.]+)/g)) reloads.push(Number(m[1]));
});

const targets: Target[] = [
  { label: 'direct', port: mockPort, child: undefined, base: () => '' },
  { label: 'floor', port: floorPort, child: floor, base: () => '' },
  { label: 'gateway', port: gwPort, child: gateway, base: (t) => `/t/tok-${t}/anthropic` },
];
for (const t of targets) t.child && (t.child.pids = processTree(t.child.process.pid as number));

// Check first: through the gateway no planted value reaches the mock, and every tenant's values come back.
{
  const pool = createPool(`http://127.0.0.1:${gwPort}`, 4);
  for (const t of [0, 1, TENANTS - 1]) {
    const spec = requestFor(t, `/t/tok-${t}/anthropic`);
    const r = await send(pool, spec, { keepBody: true, headers: { 'x-bench-check': '1' } });
    const text = (r.body ?? Buffer.alloc(0)).toString('utf8');
    const own = bySource[t % GROUPS]!;
    const planted = [0, 1, 2, 3].map((k) => own[(t * 4 + k) % own.length]!);
    if (r.status !== 200 || r.headers['x-bench-leaks'] !== '0') throw new Error(`bench: gateway check failed: status ${r.status}, leaks ${String(r.headers['x-bench-leaks'])}`);
    if (!planted.every((v) => text.includes(v))) throw new Error('bench: gateway check failed: a planted value was not restored');
    if (/~ficta_[a-z2-7]{20}/.test(text)) throw new Error('bench: gateway check failed: a placeholder came back unrestored');
  }
  await pool.close();
  log('check: 0 values reached the mock, every planted value came back restored');
}

interface RoundResult {
  target: string;
  requests: number;
  errors: number;
  wallMs: number;
  cpuMs: number | undefined;
  totals: number[];
}

async function round(t: Target, count: number, during?: (at: number) => void): Promise<RoundResult> {
  const pool = createPool(`http://127.0.0.1:${t.port}`, CONCURRENCY);
  const specs = Array.from({ length: Math.min(TENANTS, count) }, (_, i) => requestFor(i, t.base(i)));
  const cpu0 = t.child === undefined ? undefined : cpuTimeMs(t.child.pids);
  const totals: number[] = [];
  let issued = 0;
  let errors = 0;
  const t0 = performance.now();
  const worker = async (): Promise<void> => {
    while (issued < count && performance.now() - t0 < ROUND_MAX_MS) {
      const i = issued++;
      during?.(i);
      try {
        const r = await send(pool, specs[i % specs.length]!);
        if (r.status === 200) totals.push(r.total);
        else errors++;
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const wallMs = performance.now() - t0;
  const cpu1 = t.child === undefined ? undefined : cpuTimeMs(t.child.pids);
  await pool.close();
  return { target: t.label, requests: totals.length, errors, wallMs, cpuMs: cpu0 === undefined || cpu1 === undefined ? undefined : cpu1 - cpu0, totals: totals.sort((a, b) => a - b) };
}

// Warm-up: every tenant once through the gateway (its key derived, its placeholders met), and the others.
for (const t of targets) await round(t, t.label === 'gateway' ? TENANTS : 200);
const rssAfterTenants = memory(gateway.pids);
log(`gateway RSS after ${TENANTS} tenants: ${rssAfterTenants?.rssMB.toFixed(0)} MB (peak ${rssAfterTenants?.peakMB.toFixed(0)} MB)`);

const results: RoundResult[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 === 0 ? targets : [...targets].reverse();
  for (const t of order) {
    const res = await round(t, REQUESTS);
    results.push(res);
    log(`round ${r + 1} ${t.label}: ${res.requests} ok, ${res.errors} errors, p50 ${quantile(res.totals, 0.5).toFixed(1)} ms, p99 ${quantile(res.totals, 0.99).toFixed(1)} ms${res.cpuMs === undefined ? '' : `, CPU ${(res.cpuMs / res.requests).toFixed(2)} ms/req`}`);
  }
}

// Reload under load: a quarter into a gateway round, every value is replaced and SIGHUP sent.
const quiet = await round(targets[2]!, REQUESTS);
let reloadSent = false;
const loaded = await round(targets[2]!, REQUESTS, (i) => {
  if (reloadSent || i < REQUESTS / 4) return;
  reloadSent = true;
  bySource = writeSources(2);
  process.kill(gateway.process.pid as number, 'SIGHUP');
});
const rssAfterReload = memory(gateway.pids);
log(`reload: ${reloads.map((m) => `${m} ms`).join(', ') || 'not reported'}; p99 ${quantile(quiet.totals, 0.99).toFixed(1)} ms without, ${quantile(loaded.totals, 0.99).toFixed(1)} ms with; RSS after ${rssAfterReload?.rssMB.toFixed(0)} MB`);

const pooled = (label: string): { p50: number; p99: number; cpuPerReq: number | undefined; rps: number } => {
  const rs = results.filter((r) => r.target === label);
  const all = rs.flatMap((r) => r.totals).sort((a, b) => a - b);
  const reqs = rs.reduce((n, r) => n + r.requests, 0);
  const cpu = rs.every((r) => r.cpuMs !== undefined) ? rs.reduce((n, r) => n + (r.cpuMs as number), 0) : undefined;
  return { p50: quantile(all, 0.5), p99: quantile(all, 0.99), cpuPerReq: cpu === undefined ? undefined : cpu / reqs, rps: reqs / (rs.reduce((n, r) => n + r.wallMs, 0) / 1000) };
};
const direct = pooled('direct');
const fl = pooled('floor');
const gw = pooled('gateway');
const report = {
  machine: machineInfo(),
  setup: { secrets: SECRETS, sources: GROUPS, tenants: TENANTS, concurrency: CONCURRENCY, streamBytes: BYTES, requestsPerRound: REQUESTS, rounds: ROUNDS },
  floor: { addedP50Ms: fl.p50 - direct.p50, addedP99Ms: fl.p99 - direct.p99, cpuMsPerReq: fl.cpuPerReq, reqPerCoreSecond: fl.cpuPerReq === undefined ? undefined : 1000 / fl.cpuPerReq, reqPerSecond: fl.rps },
  gateway: { addedP50Ms: gw.p50 - direct.p50, addedP99Ms: gw.p99 - direct.p99, cpuMsPerReq: gw.cpuPerReq, reqPerCoreSecond: gw.cpuPerReq === undefined ? undefined : 1000 / gw.cpuPerReq, reqPerSecond: gw.rps },
  cpuRatioToFloor: gw.cpuPerReq !== undefined && fl.cpuPerReq !== undefined ? gw.cpuPerReq / fl.cpuPerReq : undefined,
  rssMB: { afterTenants: rssAfterTenants?.rssMB, peak: rssAfterReload?.peakMB, afterReload: rssAfterReload?.rssMB },
  reload: { buildMs: reloads, p99WithoutMs: quantile(quiet.totals, 0.99), p99WithMs: quantile(loaded.totals, 0.99), p99MovedMs: quantile(loaded.totals, 0.99) - quantile(quiet.totals, 0.99), errors: loaded.errors },
};
if (args.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
else {
  const f = (n: number | undefined, d = 2): string => (n === undefined || Number.isNaN(n) ? '—' : n.toFixed(d));
  log('');
  log(`| target | added p50 ms | added p99 ms | CPU ms/req | req per CPU-second | req/s |`);
  log(`|---|---|---|---|---|---|`);
  for (const [name, r] of [['floor', report.floor], ['gateway', report.gateway]] as const) log(`| ${name} | ${f(r.addedP50Ms)} | ${f(r.addedP99Ms)} | ${f(r.cpuMsPerReq)} | ${f(r.reqPerCoreSecond, 0)} | ${f(r.reqPerSecond, 0)} |`);
  log(`CPU per request: ${f(report.cpuRatioToFloor)}× the floor's (target ≤ 2×); RSS ${f(report.rssMB.afterTenants, 0)} MB after ${TENANTS} tenants, peak ${f(report.rssMB.peak, 0)} MB (target ≤ 300); reload of ${SECRETS} moved p99 by ${f(report.reload.p99MovedMs, 1)} ms (target ≤ 10)`);
}
for (const t of targets) await t.child?.stop();
stopAllChildren();
process.exit(0);
