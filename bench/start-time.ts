// Start-up times of the `ficta` command (DESIGN §6: serve to its ready line ≤ 150 ms, --version ≤ 80 ms;
// issue 11: `ficta run` adds ≤ 200 ms to a command's start; issue 26: serve's ready line within 3× a bare
// node:http server's, measured side by side), in fresh processes, the cases interleaved so a change in the
// machine's load falls on all of them.
// Run: node --import tsx bench/start-time.ts [--runs 15] [--bin bin/ficta] [--json]
// FICTA_DEV=1 in the environment measures the sources through tsx instead of the build.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { cpuTimeMs } from '../src/bench/proc.ts';
import { formatTable } from '../src/bench/report.ts';
import { summarize } from '../src/bench/stats.ts';

const { values } = parseArgs({ options: { runs: { type: 'string' }, bin: { type: 'string' }, json: { type: 'boolean' } }, strict: true });
const runs = Number(values.runs ?? 15);
const bin = values.bin ?? join(import.meta.dirname, '../bin/ficta');
const home = mkdtempSync(join(tmpdir(), 'ficta-start-'));
const env = { ...process.env, FICTA_HOME: home };

/** The CPU model and count, as lscpu names them. */
function cpuModel(): string {
  const all = cpus();
  return `${all[0]?.model.trim() ?? 'unknown CPU'} × ${all.length}`;
}

/** CPU milliseconds `serve` used up to its ready line (load-independent, unlike the wall time). */
const serveCpu: number[] = [];

/** Milliseconds from spawn until `until` matches a stdout line, or until the process exits. */
function time(command: string, args: string[], until?: RegExp): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    let at: number | undefined;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      out += d;
      if (until !== undefined && at === undefined && until.test(out)) {
        at = performance.now() - t0;
        const cpu = child.pid === undefined || command === process.execPath ? undefined : cpuTimeMs([child.pid]);
        if (cpu !== undefined) serveCpu.push(cpu);
        child.kill('SIGTERM');
      }
    });
    child.once('error', reject);
    child.once('close', (code) => {
      if (until === undefined) return code === 0 ? resolve(performance.now() - t0) : reject(new Error(`${command} ${args.join(' ')} exited ${code}`));
      return at === undefined ? reject(new Error(`${command} ${args.join(' ')} exited before ${until}`)) : resolve(at);
    });
  });
}

/** A bare node:http server that prints a ready line once listening: the floor serve is compared with. */
const BARE_SERVER = "require('node:http').createServer((q, s) => s.end()).listen(0, '127.0.0.1', function () { console.log('listening on http://127.0.0.1:' + this.address().port); })";

const cases = {
  version: () => time(bin, ['--version']),
  'node:http ready': () => time(process.execPath, ['-e', BARE_SERVER], /^listening on /m),
  serve: () => time(bin, ['serve', '--port', '0', '--no-vault'], /^ficta listening on /m),
  'node -e 0': () => time(process.execPath, ['-e', '0']),
  'run -- node -e 0': () => time(bin, ['run', '--no-vault', '--', process.execPath, '-e', '0']),
};
type Name = keyof typeof cases;
const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, [] as number[]])) as Record<Name, number[]>;
const loadBefore = loadavg()[0] as number;
try {
  // One warm-up round (file system cache, V8 compile cache), not counted.
  for (const run of Object.values(cases)) await run();
  serveCpu.length = 0;
  for (let i = 0; i < runs; i++) for (const [name, run] of Object.entries(cases) as Array<[Name, () => Promise<number>]>) samples[name].push(await run());
} finally {
  rmSync(home, { recursive: true, force: true });
}
const loadAfter = loadavg()[0] as number;

const summary = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summarize(v)])) as Record<Name, ReturnType<typeof summarize>>;
// `ficta run` adds what its run takes beyond the command's own, paired run by run.
const added = samples['run -- node -e 0'].map((v, i) => v - (samples['node -e 0'][i] as number));
// serve's ready line against the bare node:http server's, paired run by run (the same moment's load).
const serveRatio = samples.serve.map((v, i) => v / (samples['node:http ready'][i] as number));
const report = {
  node: process.version,
  build: process.env.FICTA_DEV === '1' ? 'sources (tsx)' : 'bin/ficta (compiled when current)',
  load: { before: loadBefore, after: loadAfter },
  runs,
  summary,
  runAdds: summarize(added),
  serveOverBare: summarize(serveRatio),
  cpu: cpuModel(),
  serveCpuMs: summarize(serveCpu),
  targets: { serve: 150, version: 80, runAdds: 200, serveOverBare: 3 },
};
if (values.json === true) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
else {
  const row = (label: string, s: ReturnType<typeof summarize>, target?: number): string[] => [
    label,
    s.p50.toFixed(0),
    s.min.toFixed(0),
    s.max.toFixed(0),
    target === undefined ? '' : `${s.p50 <= target ? 'ok' : 'OVER'} (≤ ${target})`,
  ];
  process.stdout.write(
    `${formatTable(
      ['ms', 'median', 'min', 'max', 'target'],
      [
        row('ficta --version', summary.version, 80),
        row('ficta serve → ready line', summary.serve, 150),
        row('  its CPU time to ready', report.serveCpuMs),
        row('node:http server → ready line', summary['node:http ready']),
        row('node -e 0', summary['node -e 0']),
        row('ficta run -- node -e 0', summary['run -- node -e 0']),
        row('  added by ficta run', report.runAdds, 200),
      ],
    )}\nserve / node:http ready line, paired by run: median ${report.serveOverBare.p50.toFixed(2)}× (min ${report.serveOverBare.min.toFixed(2)}, max ${report.serveOverBare.max.toFixed(2)}; ${report.serveOverBare.p50 <= 3 ? 'ok' : 'OVER'} ≤ 3×)\n${runs} runs each, interleaved; ${report.build}; Node ${process.version}; ${report.cpu}; load ${loadBefore.toFixed(2)} → ${loadAfter.toFixed(2)}\n`,
  );
}
