// Start-up times of the `ficta` command (DESIGN §6: serve to its ready line ≤ 150 ms, --version ≤ 80 ms;
// issue 11: `ficta run` adds ≤ 200 ms to a command's start; issue 26: serve's ready line within 3× a bare
// node:http server's, measured side by side), in fresh processes, the cases interleaved so a change in the
// machine's load falls on all of them.
// Run: node --import tsx bench/start-time.ts [--runs 15] [--bin bin/ficta] [--json]
// FICTA_DEV=1 in the environment measures the sources through tsx instead of the build.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
const env: NodeJS.ProcessEnv = { ...process.env, FICTA_HOME: home };

/**
 * Preloaded (NODE_OPTIONS=--import) into serve and into the bare server alike: at the first stdout write
 * holding the ready line, the process's own CPU time (user + system) goes to stderr. Unlike the wall time,
 * that hardly moves with the machine's load, so the two servers' CPU to ready compare fairly on a busy host.
 */
const PROBE = join(home, 'ready-probe.mjs');
writeFileSync(
  PROBE,
  "const w = process.stdout.write.bind(process.stdout); let done = false;\nprocess.stdout.write = (c, ...r) => { if (!done && /listening on /.test(String(c))) { done = true; const u = process.cpuUsage(); process.stderr.write(`ficta-start-probe ${(u.user + u.system) / 1000}\\n`); } return w(c, ...r); };\n",
);
/** CPU milliseconds to the ready line, per probed case, in run order. */
const cpuToReady: Record<string, number[]> = {};

/** The CPU model and count, as lscpu names them. */
function cpuModel(): string {
  const all = cpus();
  return `${all[0]?.model.trim() ?? 'unknown CPU'} × ${all.length}`;
}

/**
 * CPU milliseconds `serve` had used when this process read its ready line. It keeps running meanwhile (the
 * automaton and @hono/node-server load just after the line), so under load this includes some of that.
 */
const serveCpu: number[] = [];

/** Milliseconds from spawn until `until` matches a stdout line, or until the process exits. */
function time(command: string, args: string[], until?: RegExp, probe?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const probeEnv = probe === undefined ? env : { ...env, NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --import=${PROBE}`.trim() };
    const child = spawn(command, args, { env: probeEnv, stdio: ['ignore', 'pipe', probe === undefined ? 'ignore' : 'pipe'] });
    if (probe !== undefined) {
      let err = '';
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (d: string) => {
        err += d;
        const m = /^ficta-start-probe (\S+)$/m.exec(err);
        if (m !== null && err !== '') {
          (cpuToReady[probe] ??= []).push(Number(m[1]));
          err = '';
          child.stderr?.removeAllListeners('data');
          child.stderr?.resume();
        }
      });
    }
    let out = '';
    let at: number | undefined;
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (d: string) => {
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

/**
 * Milliseconds from spawn until serve has answered its first request (GET /healthz sent the moment the
 * ready line arrives): what is loaded or compiled just after the ready line is on this path.
 */
function timeFirstAnswer(command: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    let asked = false;
    let at: number | undefined;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      out += d;
      const m = /^ficta listening on (\S+)$/m.exec(out);
      if (m === null || asked) return;
      asked = true;
      fetch(`${m[1]}/healthz`)
        .then((r) => r.text())
        .then(
          () => (at = performance.now() - t0),
          () => undefined,
        )
        .finally(() => child.kill('SIGTERM'));
    });
    child.once('error', reject);
    child.once('close', () => (at === undefined ? reject(new Error(`${command} ${args.join(' ')}: no answer to its first request`)) : resolve(at)));
  });
}

/** A bare node:http server that prints a ready line once listening: the floor serve is compared with. */
const BARE_SERVER = "require('node:http').createServer((q, s) => s.end()).listen(0, '127.0.0.1', function () { console.log('listening on http://127.0.0.1:' + this.address().port); })";

const cases = {
  version: () => time(bin, ['--version']),
  'node:http ready': () => time(process.execPath, ['-e', BARE_SERVER], /^listening on /m, 'bare'),
  serve: () => time(bin, ['serve', '--port', '0', '--no-vault'], /^ficta listening on /m, 'serve'),
  'serve first answer': () => timeFirstAnswer(bin, ['serve', '--port', '0', '--no-vault']),
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
// The same for the CPU each had used at its ready line (the warm-up round's are dropped with the rest).
const cpuServe = (cpuToReady.serve ?? []).slice(-runs);
const cpuBare = (cpuToReady.bare ?? []).slice(-runs);
const cpuRatio = cpuServe.map((v, i) => v / (cpuBare[i] as number));
const report = {
  node: process.version,
  build: process.env.FICTA_DEV === '1' ? 'sources (tsx)' : 'bin/ficta (compiled when current)',
  load: { before: loadBefore, after: loadAfter },
  runs,
  summary,
  runAdds: summarize(added),
  serveOverBare: summarize(serveRatio),
  cpuToReady: { serve: summarize(cpuServe), bare: summarize(cpuBare), ratio: summarize(cpuRatio) },
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
        row('  its CPU time when the line is read', report.serveCpuMs),
        row('ficta serve → first /healthz answered', summary['serve first answer']),
        row('node:http server → ready line', summary['node:http ready']),
        row('node -e 0', summary['node -e 0']),
        row('ficta run -- node -e 0', summary['run -- node -e 0']),
        row('  added by ficta run', report.runAdds, 200),
      ],
    )}\nCPU to the ready line (own user+system, read in-process): serve ${report.cpuToReady.serve.p50.toFixed(0)} ms, node:http ${report.cpuToReady.bare.p50.toFixed(0)} ms; ratio paired by run: median ${report.cpuToReady.ratio.p50.toFixed(2)}× (min ${report.cpuToReady.ratio.min.toFixed(2)}, max ${report.cpuToReady.ratio.max.toFixed(2)})\nserve / node:http ready line, paired by run: median ${report.serveOverBare.p50.toFixed(2)}× (min ${report.serveOverBare.min.toFixed(2)}, max ${report.serveOverBare.max.toFixed(2)}; ${report.serveOverBare.p50 <= 3 ? 'ok' : 'OVER'} ≤ 3×)\n${runs} runs each, interleaved; ${report.build}; Node ${process.version}; ${report.cpu}; load ${loadBefore.toFixed(2)} → ${loadAfter.toFixed(2)}\n`,
  );
}
