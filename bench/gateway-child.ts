// The gateway bench's proxy (its own process): ficta's engine with tenancy — N tenants (`/t/tok-<i>/…`,
// groups g<i mod G>) and G dotenv `[[sources]]` from DIR (`g<k>.env`, groups [g<k>]) — the way
// `ficta gateway` runs it, minus the admin listener. SIGHUP reloads every source (reported on stdout as
// `reloaded <ms>`); SIGUSR1 prints the event loop's delay since the last SIGUSR1 (`loop <p99> <max> <gc total> <gc max>`, ms); SIGUSR2 where the
// memory is (`mem …`, MB).
// Request lines go to /dev/null at info level (formatted, as in production).
// usage: gateway-child.ts UPSTREAM PORT DIR TENANTS GROUPS

import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import { loadConfig } from '../src/config/load.ts';
import { createFicta } from '../src/index.ts';
import { createLogger } from '../src/log/logger.ts';
import type { AuthResult, Tenancy, Tenant } from '../src/gateway/tenant.ts';
import { startAllocProbe } from '../src/bench/alloc-probe.ts';

const [upstream, port, dir, tenantsArg, groupsArg] = process.argv.slice(2);
if (upstream === undefined || port === undefined || dir === undefined || tenantsArg === undefined || groupsArg === undefined) {
  process.stderr.write('usage: gateway-child.ts UPSTREAM PORT DIR TENANTS GROUPS\n');
  process.exit(2);
}
if (process.env.FICTA_BENCH_ALLOC) startAllocProbe(process.env.FICTA_BENCH_ALLOC);
const groups = Number(groupsArg);
const tenants = new Map<string, Tenant>();
for (let i = 0; i < Number(tenantsArg); i++) tenants.set(`tok-${i}`, { name: `tenant-${i}`, groups: [`g${i % groups}`] });

const tenancy: Tenancy = {
  key: Buffer.alloc(32, 0x42),
  authenticate(_req, rawTarget): AuthResult {
    const slash = rawTarget.indexOf('/', 3);
    const tenant = rawTarget.startsWith('/t/') && slash !== -1 ? tenants.get(rawTarget.slice(3, slash)) : undefined;
    if (tenant === undefined) return { ok: false, status: 401, type: 'ficta_unauthorized', message: 'ficta: unknown token' };
    return { ok: true, tenant, target: rawTarget.slice(slash) };
  },
};

const loaded = loadConfig({
  env: { FICTA_HOME: dir },
  flags: {
    host: '127.0.0.1',
    port: Number(port),
    upstreams: { anthropic: upstream },
    secrets: { vault: 'off', discover: false },
    // As `ficta gateway` runs it: no dashboard on the public listener (src/gateway/gateway.ts).
    ui: { enabled: false },
    log: { level: 'info' },
    sources: Array.from({ length: groups }, (_, k) => ({ name: `g${k}`, type: 'dotenv', path: `${dir}/g${k}.env`, groups: [`g${k}`] })),
  },
});
if (!loaded.ok) throw loaded.error;
const ficta = await createFicta({ config: loaded.value, env: {}, tenancy, logger: createLogger({ level: 'info', format: 'json', destination: '/dev/null' }) });
await ficta.listen();
process.stdout.write(`gateway listening on ${port}\n`);

// FICTA_BENCH_RELOAD picks what SIGHUP does, to tell a reload's parts apart: `full` (default: every source
// read again and the set rebuilt and swapped in), `none` (nothing: the bench's own noise), `worker` (only
// the worker's build of the same tables, thrown away), `spin` (a worker at nice 19 spinning 500 ms).
const mode = process.env.FICTA_BENCH_RELOAD ?? 'full';
const workerInput =
  mode === 'worker'
    ? await (async () => {
        const { setTablesInput, anchorTables } = await import('../src/redact/secret-set.ts');
        const { createDetector } = await import('../src/detect/detector.ts');
        const { createGatewayKeys } = await import('../src/gateway/tenant-placeholder.ts');
        const { readFileSync } = await import('node:fs');
        const entries = Array.from({ length: groups }, (_, k) =>
          readFileSync(`${dir}/g${k}.env`, 'utf8')
            .split('\n')
            .filter((l) => l.includes('='))
            .map((l) => ({ name: l.slice(0, l.indexOf('=')), value: l.slice(l.indexOf('=') + 2, -1), source: `g${k}`, groups: [`g${k}`] })),
        ).flat();
        const twice = [...entries, ...entries.map((e) => ({ ...e, value: `${e.value}x` }))];
        const input = setTablesInput(twice, Buffer.alloc(32), createGatewayKeys(tenancy.key));
        const anchors = anchorTables(createDetector());
        input.automaton = { anchors: anchors.plain, families: anchors.families };
        return input;
      })()
    : undefined;
// `spin-warm`: the same spinning, in a worker started (and niced) once, at start.
const warm =
  mode === 'spin-warm'
    ? new (await import('node:worker_threads')).Worker(
        `require('node:os').setPriority(19); const { parentPort } = require('node:worker_threads'); parentPort.on('message', () => { const end = Date.now() + 500; while (Date.now() < end); parentPort.postMessage(1); });`,
        { eval: true },
      )
    : undefined;
warm?.unref();
process.on('SIGHUP', () => {
  const t0 = performance.now();
  const done = (): void => void process.stdout.write(`reloaded ${(performance.now() - t0).toFixed(1)}\n`);
  if (mode === 'none') return done();
  if (mode === 'spin-warm' && warm !== undefined) {
    warm.once('message', done);
    warm.postMessage(1);
    return;
  }
  if (mode === 'spin-duty') {
    // 150 ms of spinning in 2 ms bursts with 8 ms sleeps between, at nice 19.
    void import('node:worker_threads').then(({ Worker }) => {
      const w = new Worker(`require('node:os').setPriority(19); const s = new Int32Array(new SharedArrayBuffer(4)); for (let k = 0; k < 75; k++) { const end = performance.now() + 2; while (performance.now() < end); Atomics.wait(s, 0, 0, 8); } require('node:worker_threads').parentPort.postMessage(1);`, { eval: true });
      w.once('message', () => void w.terminate().then(done));
    });
    return;
  }
  if (mode === 'spin') {
    // A worker at the build's priority that only spins for 500 ms: its CPU alone, no memory.
    void import('node:worker_threads').then(({ Worker }) => {
      const w = new Worker(`require('node:os').setPriority(19); const end = Date.now() + Number(process.env.FICTA_BENCH_SPIN_MS ?? 500); while (Date.now() < end); require('node:worker_threads').parentPort.postMessage(1);`, { eval: true });
      w.once('message', () => void w.terminate().then(done));
    });
    return;
  }
  if (mode === 'worker' && workerInput !== undefined) {
    void import('../src/redact/matcher-thread.ts').then((m) => m.buildTablesInWorker(structuredClone(workerInput))).then(done);
    return;
  }
  void ficta.reload().then(done);
});
const loop = monitorEventLoopDelay({ resolution: 5 });
loop.enable();
// Garbage collection on this thread since the last SIGUSR1: total and longest pause (ms).
let gcTotal = 0;
let gcMax = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    gcTotal += e.duration;
    gcMax = Math.max(gcMax, e.duration);
  }
}).observe({ entryTypes: ['gc'] });
process.on('SIGUSR1', () => {
  process.stdout.write(`loop ${(loop.percentile(99) / 1e6).toFixed(1)} ${(loop.max / 1e6).toFixed(1)} ${gcTotal.toFixed(1)} ${gcMax.toFixed(1)}\n`);
  loop.reset();
  gcTotal = 0;
  gcMax = 0;
});
// SIGUSR2: where the memory is (MB): rss, V8 heap committed and used, new and old space committed, external, array buffers.
process.on('SIGUSR2', () => {
  const m = process.memoryUsage();
  const spaces = new Map(getHeapSpaceStatistics().map((sp) => [sp.space_name, sp.space_size]));
  const mb = (n: number | undefined): string => ((n ?? 0) / 2 ** 20).toFixed(0);
  process.stdout.write(`mem ${mb(m.rss)} ${mb(m.heapTotal)} ${mb(m.heapUsed)} ${mb(spaces.get('new_space'))} ${mb(spaces.get('old_space'))} ${mb(m.external)} ${mb(m.arrayBuffers)}\n`);
});
const stop = (): void => void ficta.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
