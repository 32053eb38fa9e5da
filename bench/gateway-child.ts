// The gateway bench's proxy (its own process): ficta's engine with tenancy — N tenants (`/t/tok-<i>/…`,
// groups g<i mod G>) and G dotenv `[[sources]]` from DIR (`g<k>.env`, groups [g<k>]) — the way
// `ficta gateway` runs it, minus the admin listener. SIGHUP reloads every source (reported on stdout as
// `reloaded <ms>`); SIGUSR1 prints the event loop's delay since the last SIGUSR1 (`loop <p99> <max>`, ms); SIGUSR2 where the
// memory is (`mem …`, MB).
// Request lines go to /dev/null at info level (formatted, as in production).
// usage: gateway-child.ts UPSTREAM PORT DIR TENANTS GROUPS

import { monitorEventLoopDelay } from 'node:perf_hooks';
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

process.on('SIGHUP', () => {
  const t0 = performance.now();
  void ficta.reload().then(() => process.stdout.write(`reloaded ${(performance.now() - t0).toFixed(1)}\n`));
});
const loop = monitorEventLoopDelay({ resolution: 5 });
loop.enable();
process.on('SIGUSR1', () => {
  process.stdout.write(`loop ${(loop.percentile(99) / 1e6).toFixed(1)} ${(loop.max / 1e6).toFixed(1)}\n`);
  loop.reset();
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
