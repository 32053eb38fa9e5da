// Probe: one gateway-like engine (10 dotenv sources, 1,000 tenants), then one reload with every value
// replaced; reports the reload's wall time, this thread's CPU during it, the event loop's longest delay,
// and (with --prof FILE) a CPU profile of this thread covering just the reload.
// usage: node bench/reload-probe.ts [--secrets 10000] [--prof FILE]
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { makeSecrets } from '../src/bench/corpus.ts';
import { loadConfig } from '../src/config/load.ts';
import { createFicta } from '../src/index.ts';
import { createLogger } from '../src/log/logger.ts';
import type { Tenancy } from '../src/gateway/tenant.ts';

const { values: args } = parseArgs({ options: { secrets: { type: 'string', default: '10000' }, prof: { type: 'string' }, groups: { type: 'string', default: '10' }, reloads: { type: 'string', default: '2' } } });
const SECRETS = Number(args.secrets);
const hwm = (): string => (Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024).toFixed(0);
const GROUPS = Number(args.groups);
const dir = mkdtempSync(join(tmpdir(), 'ficta-reload-probe-'));
function write(seed: number): void {
  const all = Object.values(makeSecrets(SECRETS, seed)).map((v) => v.replace(/'/g, ''));
  const by: string[][] = Array.from({ length: GROUPS }, () => []);
  all.forEach((v, i) => by[i % GROUPS]!.push(v));
  by.forEach((vs, k) => writeFileSync(join(dir, `g${k}.env`), vs.map((v, i) => `S${k}_${i}='${v}'`).join('\n') + '\n'));
}
write(1);
const tenancy: Tenancy = { key: Buffer.alloc(32, 0x42), authenticate: () => ({ ok: false, status: 401, type: 'ficta_unauthorized', message: 'no' }) };
const loaded = loadConfig({
  env: { FICTA_HOME: dir },
  flags: { host: '127.0.0.1', port: 0, secrets: { vault: 'off', discover: false },
    // As `ficta gateway` runs it: no dashboard on the public listener (src/gateway/gateway.ts).
    ui: { enabled: false }, log: { level: 'info' }, sources: Array.from({ length: GROUPS }, (_, k) => ({ name: `g${k}`, type: 'dotenv', path: `${dir}/g${k}.env`, groups: [`g${k}`] })) },
});
if (!loaded.ok) throw loaded.error;
const ficta = await createFicta({ config: loaded.value, env: {}, tenancy, logger: createLogger({ level: 'info', format: 'json', destination: '/dev/null' }) });
process.stdout.write(`after the first load: rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB, peak ${hwm()} MB\n`);
const session = new Session();
session.connect();
for (let r = 0; r < Number(args.reloads); r++) {
  write(r + 2);
  await new Promise((res) => setTimeout(res, 300));
  const loop = monitorEventLoopDelay({ resolution: 1 });
  if (args.prof !== undefined && r === Number(args.reloads) - 1) {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
  }
  loop.enable();
  const cpu0 = process.threadCpuUsage();
  const t0 = performance.now();
  await ficta.reload();
  const wall = performance.now() - t0;
  if (process.env.PROBE_GC) {
    await new Promise((res) => setTimeout(res, 100));
    (globalThis as { gc?: () => void }).gc?.();
  }
  const cpu = process.threadCpuUsage(cpu0);
  loop.disable();
  if (args.prof !== undefined && r === Number(args.reloads) - 1) {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(args.prof, JSON.stringify(profile));
  }
  process.stdout.write(`reload ${r + 1}: ${wall.toFixed(0)} ms wall, main thread CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms, loop max ${(loop.max / 1e6).toFixed(1)} ms, p99 ${(loop.percentile(99) / 1e6).toFixed(1)} ms, rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB, peak ${hwm()} MB\n`);
}
if (process.env.SMAPS) {
  const { readFileSync } = await import('node:fs');
  const maps = readFileSync('/proc/self/smaps', 'utf8').split(/\n(?=[0-9a-f]+-[0-9a-f]+ )/);
  const rows = maps.map((m) => ({ head: m.split('\n')[0]!.slice(0, 90), rss: Number(/\nRss:\s+(\d+)/.exec(m)?.[1] ?? 0) })).sort((a, b) => b.rss - a.rss);
  for (const r of rows.slice(0, 12)) process.stdout.write(`  ${(r.rss / 1024).toFixed(1)} MB ${r.head}\n`);
  process.stdout.write(readFileSync('/proc/self/status', 'utf8').split('\n').filter((l) => /Rss|VmHWM/.test(l)).join('\n') + '\n');
}
const m = process.memoryUsage();
const v8 = await import('node:v8');
process.stdout.write(`memory: rss ${(m.rss / 2 ** 20).toFixed(0)} MB, heap used ${(m.heapUsed / 2 ** 20).toFixed(0)} of ${(m.heapTotal / 2 ** 20).toFixed(0)} MB, external ${(m.external / 2 ** 20).toFixed(0)} MB, array buffers ${(m.arrayBuffers / 2 ** 20).toFixed(0)} MB\n`);
for (const sp of v8.getHeapSpaceStatistics()) process.stdout.write(`  ${sp.space_name}: used ${(sp.space_used_size / 2 ** 20).toFixed(1)} MB, size ${(sp.space_size / 2 ** 20).toFixed(1)} MB\n`);
await ficta.close();
process.exit(0);
