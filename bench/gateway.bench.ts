// Issue 21's gateway benchmark: one instance with 10,000 organisation secrets (in G sources) and 1,000
// tenants, 200 KB Anthropic streams at concurrency 64, against the floor proxy and a direct connection in
// the same run (rounds alternate). Reports requests per CPU-second ("per core"), p50/p99 added latency and
// CPU per request against the floor's; RSS once every tenant has made requests; and p99 in a round during
// which all 10,000 values are replaced and reloaded (SIGHUP) against a round without.
// usage: node --import tsx bench/gateway.bench.ts [--secrets 10000] [--tenants 1000] [--requests 1200] [--rounds 2] [--reloads 3] [--json]

import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
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
    /** Rounds with a reload (each paired with one without; medians reported). */
    reloads: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '64' },
    bytes: { type: 'string', default: String(200 * 1024) },
    /** Values replaced before the reload (default: every one, so the set holds 2 × secrets while retained). */
    rotate: { type: 'string' },
    /** Node options for the gateway process (space-separated); the default is what bin/ficta gives `ficta gateway`. */
    'gateway-node-args': { type: 'string', default: '--max-semi-space-size=16' },
    /** Write a CPU profile of the gateway process into this directory (see bench/profile-summary.ts). */
    profile: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});
const SECRETS = Number(args.secrets);
const TENANTS = Number(args.tenants);
const GROUPS = Number(args.groups);
const REQUESTS = Number(args.requests);
const ROUNDS = Number(args.rounds);
const RELOADS = Math.max(1, Number(args.reloads));
const CONCURRENCY = Number(args.concurrency);
const BYTES = Number(args.bytes);
const ROTATE = Math.min(SECRETS, Number(args.rotate ?? SECRETS));
/** No round runs longer than this, whatever the machine's load. */
const ROUND_MAX_MS = 90_000;
const log = (line: string): void => void process.stderr.write(`${line}\n`);

/**
 * The processes run compiled (dist/, as installed: tsx alone adds ~40 MB of RSS and a slow worker start)
 * when the build is newer than the bench's own sources; otherwise through tsx, and the report says so.
 */
const ROOT = join(import.meta.dirname, '..');
const compiled = ['gateway-child', 'gateway-mock', 'floor-proxy'].every((n) => existsSync(join(ROOT, 'dist', `${n}.js`)) && statSync(join(ROOT, 'dist', `${n}.js`)).mtimeMs >= statSync(join(ROOT, 'src/index.ts')).mtimeMs);
const script = (name: string, source: string): string[] => (compiled ? [join(ROOT, 'dist', `${name}.js`)] : ['--import', 'tsx', join(ROOT, source)]);
log(compiled ? 'running dist/ (compiled)' : 'running the sources through tsx (run `pnpm build` first to measure the compiled build)');

const dir = mkdtempSync(join(tmpdir(), 'ficta-gw-bench-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
process.on('SIGINT', () => {
  stopAllChildren();
  process.exit(130);
});

interface Generation {
  files: Array<[string, string]>;
  bySource: string[][];
}

/** The G source files of a generation of values (secret i in source i mod G) and the mock's watch list. */
function generation(seed: number, rotate = SECRETS): Generation {
  const all = Object.values(makeSecrets(SECRETS, 1));
  if (seed !== 1) {
    const fresh = Object.values(makeSecrets(rotate, seed));
    for (let i = 0; i < rotate; i++) all[i] = fresh[i] as string;
  }
  const bySource: string[][] = Array.from({ length: GROUPS }, () => []);
  all.forEach((v, i) => bySource[i % GROUPS]!.push(v));
  const files: Array<[string, string]> = bySource.map((values, k) => [join(dir, `g${k}.env`), values.map((v, i) => `S${k}_${i}='${v.replace(/'/g, '')}'`).join('\n') + '\n']);
  files.push([join(dir, 'watch.json'), JSON.stringify(all.map((v) => v.replace(/'/g, '')))]);
  return { files, bySource: bySource.map((vs) => vs.map((v) => v.replace(/'/g, ''))) };
}

/** Writes a generation's files; returns its values by source. */
function writeSources(g: Generation): string[][] {
  for (const [path, content] of g.files) writeFileSync(path, content);
  return g.bySource;
}

/** The same, without holding this process's event loop (it times requests in flight meanwhile). */
async function writeSourcesAsync(g: Generation): Promise<string[][]> {
  await Promise.all(g.files.map(([path, content]) => writeFile(path, content)));
  return g.bySource;
}

let bySource = writeSources(generation(1));

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
    args: [...script('gateway-mock', 'bench/gateway-mock.ts'), String(BYTES), join(dir, 'watch.json')],
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
  await spawnChild({ label: 'floor', command: process.execPath, args: [...script('floor-proxy', 'bench/floor-proxy.ts'), upstream, String(floorPort)], env: { ...process.env }, logDir: dir, ready: { port: floorPort } })
).child;
const gwPort = await freePort();
const started = performance.now();
const gateway = (
  await spawnChild({
    label: 'gateway',
    command: process.execPath,
    args: [...args['gateway-node-args'].split(' ').filter((a) => a !== ''), ...(args.profile === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${args.profile}`]), ...script('gateway-child', 'bench/gateway-child.ts'), upstream, String(gwPort), dir, String(TENANTS), String(GROUPS)],
    // As bin/ficta runs `ficta gateway`: glibc maps blocks of 1 MiB and more on their own (returned when freed).
    env: { ...process.env, NODE_ENV: 'production', MALLOC_MMAP_THRESHOLD_: process.env.MALLOC_MMAP_THRESHOLD_ ?? '1048576' },
    logDir: dir,
    ready: { stdout: /gateway listening on (\d+)/ },
  })
).child;
log(`gateway ready in ${((performance.now() - started) / 1000).toFixed(1)} s (${SECRETS} secrets in ${GROUPS} sources, ${TENANTS} tenants)`);
const reloads: number[] = [];
const loops: Array<{ p99: number; max: number; gc: number; gcMax: number }> = [];
gateway.process.stdout?.on('data', (d: Buffer | string) => {
  for (const m of String(d).matchAll(/reloaded ([\d.]+)/g)) reloads.push(Number(m[1]));
  for (const m of String(d).matchAll(/loop ([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+)/g)) loops.push({ p99: Number(m[1]), max: Number(m[2]), gc: Number(m[3]), gcMax: Number(m[4]) });
});
const mems: string[] = [];
gateway.process.stdout?.on('data', (d: Buffer | string) => {
  for (const m of String(d).matchAll(/mem ([\d ]+)\n/g)) mems.push(m[1] as string);
});
/** Where the gateway's memory is, as one line (MB). */
async function memoryLine(): Promise<string> {
  const n = mems.length;
  process.kill(gateway.process.pid as number, 'SIGUSR2');
  const end = Date.now() + 5000;
  while (mems.length === n && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
  const [rss, heap, used, young, old, external, buffers] = (mems[n] ?? '').split(' ');
  return `rss ${rss}, V8 heap ${heap} (used ${used}; new space ${young}, old space ${old}), external ${external} (array buffers ${buffers})`;
}
/** The gateway's event-loop delay since the last call (p99 and max, ms). */
async function loopDelay(): Promise<{ p99: number; max: number; gc: number; gcMax: number }> {
  const n = loops.length;
  process.kill(gateway.process.pid as number, 'SIGUSR1');
  const end = Date.now() + 5000;
  while (loops.length === n && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
  return loops[n] ?? { p99: NaN, max: NaN, gc: NaN, gcMax: NaN };
}

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

const rssIdle = memory(gateway.pids);
// Warm-up: every tenant once through the gateway (its key derived, its placeholders met), and the others.
for (const t of targets) await round(t, t.label === 'gateway' ? TENANTS : 200);
const rssAfterTenants = memory(gateway.pids);
const floorRss = memory(floor.pids);
log(`gateway RSS idle after start ${rssIdle?.rssMB.toFixed(0)} MB; after ${TENANTS} tenants: ${rssAfterTenants?.rssMB.toFixed(0)} MB (peak ${rssAfterTenants?.peakMB.toFixed(0)} MB): ${await memoryLine()}`);

const results: RoundResult[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 === 0 ? targets : [...targets].reverse();
  for (const t of order) {
    const res = await round(t, REQUESTS);
    results.push(res);
    log(`round ${r + 1} ${t.label}: ${res.requests} ok, ${res.errors} errors, p50 ${quantile(res.totals, 0.5).toFixed(1)} ms, p99 ${quantile(res.totals, 0.99).toFixed(1)} ms${res.cpuMs === undefined ? '' : `, CPU ${(res.cpuMs / res.requests).toFixed(2)} ms/req`}`);
  }
}

// Reload under load: a quarter into a gateway round, every value is replaced and SIGHUP sent; RELOADS such
// rounds, each after a round without (the values go back and forth between two generations, so from the
// second on the set holds 2 × secrets: the current ones and the retained ones). The gateway's own
// event-loop delay over each round says what the reload held, whatever else loads the machine.
const quietRounds: RoundResult[] = [];
const reloadRounds: RoundResult[] = [];
const loopsQuiet: Array<{ p99: number; max: number; gc: number; gcMax: number }> = [];
const loopsReload: Array<{ p99: number; max: number; gc: number; gcMax: number }> = [];
for (let k = 0; k < RELOADS; k++) {
  await loopDelay();
  quietRounds.push(await round(targets[2]!, REQUESTS));
  loopsQuiet.push(await loopDelay());
  // Made before the round: the client's own work must not stall the requests it times.
  const next = generation(k % 2 === 0 ? 2 : 1, ROTATE);
  let reloadSent = false;
  reloadRounds.push(
    await round(targets[2]!, REQUESTS, (i) => {
      if (reloadSent || i < REQUESTS / 4) return;
      reloadSent = true;
      // FICTA_BENCH_RELOAD (bench/gateway-child.ts) other than `full`: SIGHUP alone, no files changed.
      const write = (process.env.FICTA_BENCH_RELOAD ?? 'full') === 'full' ? writeSourcesAsync(next) : Promise.resolve(bySource);
      void write.then((values) => {
        bySource = values;
        process.kill(gateway.process.pid as number, 'SIGHUP');
      });
    }),
  );
  loopsReload.push(await loopDelay());
  // The next pair starts once this reload is in use (a reload still building would overlap it).
  const waitUntil = Date.now() + 30_000;
  while (reloads.length <= k && Date.now() < waitUntil) await new Promise((r) => setTimeout(r, 20));
  const q = quietRounds[k]!;
  const l = reloadRounds[k]!;
  log(`reload ${k + 1}: built in ${reloads[k] ?? '—'} ms; p99 ${quantile(q.totals, 0.99).toFixed(1)} ms without, ${quantile(l.totals, 0.99).toFixed(1)} ms with; event-loop delay p99/max ${loopsQuiet[k]!.p99}/${loopsQuiet[k]!.max} ms without, ${loopsReload[k]!.p99}/${loopsReload[k]!.max} ms with; GC total/longest ${loopsQuiet[k]!.gc}/${loopsQuiet[k]!.gcMax} ms without, ${loopsReload[k]!.gc}/${loopsReload[k]!.gcMax} ms with; gateway CPU ${q.cpuMs?.toFixed(0)} ms without, ${l.cpuMs?.toFixed(0)} ms with; ${l.errors} errors`);
}
const rssAfterReload = memory(gateway.pids);
const median = (xs: number[]): number => quantile([...xs].sort((a, b) => a - b), 0.5);
const p99Quiet = median(quietRounds.map((r) => quantile(r.totals, 0.99)));
const p99Reload = median(reloadRounds.map((r) => quantile(r.totals, 0.99)));
const loopQuiet = { p99: median(loopsQuiet.map((l) => l.p99)), max: median(loopsQuiet.map((l) => l.max)) };
const loopReload = { p99: median(loopsReload.map((l) => l.p99)), max: median(loopsReload.map((l) => l.max)) };
log(`after the reloads: ${await memoryLine()}`);
log(`reloads: median p99 ${p99Quiet.toFixed(1)} ms without, ${p99Reload.toFixed(1)} ms with; RSS after ${rssAfterReload?.rssMB.toFixed(0)} MB (peak ${rssAfterReload?.peakMB.toFixed(0)} MB)`);

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
  compiled,
  setup: { rotated: ROTATE, secrets: SECRETS, sources: GROUPS, tenants: TENANTS, concurrency: CONCURRENCY, streamBytes: BYTES, requestsPerRound: REQUESTS, rounds: ROUNDS },
  floor: { addedP50Ms: fl.p50 - direct.p50, addedP99Ms: fl.p99 - direct.p99, cpuMsPerReq: fl.cpuPerReq, reqPerCoreSecond: fl.cpuPerReq === undefined ? undefined : 1000 / fl.cpuPerReq, reqPerSecond: fl.rps },
  gateway: { addedP50Ms: gw.p50 - direct.p50, addedP99Ms: gw.p99 - direct.p99, cpuMsPerReq: gw.cpuPerReq, reqPerCoreSecond: gw.cpuPerReq === undefined ? undefined : 1000 / gw.cpuPerReq, reqPerSecond: gw.rps },
  cpuRatioToFloor: gw.cpuPerReq !== undefined && fl.cpuPerReq !== undefined ? gw.cpuPerReq / fl.cpuPerReq : undefined,
  rssMB: { floorAfterWarmUp: floorRss?.rssMB, idle: rssIdle?.rssMB, afterTenants: rssAfterTenants?.rssMB, peak: rssAfterReload?.peakMB, afterReload: rssAfterReload?.rssMB },
  reload: {
    reloads: RELOADS,
    buildMs: reloads,
    loopDelayWithoutMs: loopQuiet,
    loopDelayWithMs: loopReload,
    p99WithoutMs: p99Quiet,
    p99WithMs: p99Reload,
    /** The median over the pairs of (p99 with − p99 without): pairs are adjacent in time, so the machine's drift cancels. */
    p99MovedMs: median(reloadRounds.map((r, k) => quantile(r.totals, 0.99) - quantile(quietRounds[k]!.totals, 0.99))),
    p99MovedPerPairMs: reloadRounds.map((r, k) => quantile(r.totals, 0.99) - quantile(quietRounds[k]!.totals, 0.99)),
    errors: reloadRounds.reduce((n, r) => n + r.errors, 0),
  },
};
if (args.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
else {
  const f = (n: number | undefined, d = 2): string => (n === undefined || Number.isNaN(n) ? '—' : n.toFixed(d));
  log('');
  log(`| target | added p50 ms | added p99 ms | CPU ms/req | req per CPU-second | req/s |`);
  log(`|---|---|---|---|---|---|`);
  for (const [name, r] of [['floor', report.floor], ['gateway', report.gateway]] as const) log(`| ${name} | ${f(r.addedP50Ms)} | ${f(r.addedP99Ms)} | ${f(r.cpuMsPerReq)} | ${f(r.reqPerCoreSecond, 0)} | ${f(r.reqPerSecond, 0)} |`);
  log(`CPU per request: ${f(report.cpuRatioToFloor)}× the floor's (target ≤ 2×); RSS ${f(report.rssMB.idle, 0)} MB idle, ${f(report.rssMB.afterTenants, 0)} MB after ${TENANTS} tenants (floor ${f(report.rssMB.floorAfterWarmUp, 0)} MB), peak ${f(report.rssMB.peak, 0)} MB (target ≤ 300); reload of ${SECRETS} (${ROTATE} replaced) moved p99 by ${f(report.reload.p99MovedMs, 1)} ms (median over ${RELOADS} pairs; per pair ${report.reload.p99MovedPerPairMs.map((d) => d.toFixed(1)).join(', ')}; target ≤ 10), event-loop delay p99 ${loopQuiet.p99} → ${loopReload.p99} ms, max ${loopQuiet.max} → ${loopReload.max} ms`);
}
for (const t of targets) await t.child?.stop();
stopAllChildren();
process.exit(0);
