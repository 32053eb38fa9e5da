// One `ficta bench` run: a microbenchmark subset in this process, then the end-to-end scenarios and the
// memory checks against child processes, collected into one report with the machine it ran on.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { FICTA_BIN, ownScriptArgs } from '../util/own-script.ts';
import type { SizeName } from './corpus.ts';
import { PLANS, runScenarios, startHarness, type BenchMode, type E2eResult } from './e2e.ts';
import { machineInfo, type MachineInfo } from './machine.ts';
import { MEMORY_PLANS, runMemoryChecks, type MemoryResult } from './memory.ts';
import { redactGateCases, restoreCases, runMicro, type MicroResult } from './micro.ts';

/** Parts of a run that `--only` selects. */
export type Section = 'micro' | 'e2e' | 'memory';
export const SECTIONS: readonly Section[] = ['micro', 'e2e', 'memory'];

export interface RunOptions {
  mode: BenchMode;
  sections: readonly Section[];
  /** `bin/ficta` of the build to measure (this checkout's by default). */
  fictaBin: string;
  proxyCmd?: string;
  proxyLabel?: string;
  /** Also measure bench/floor-proxy.ts, the least a Node proxy can do (labelled "floor"). */
  floor?: boolean;
  /** Only micro cases and e2e scenarios whose name contains this. */
  filter?: string;
  log: (line: string) => void;
}

export interface BenchReport {
  mode: BenchMode;
  machine: MachineInfo;
  /** The build measured: its bin/ficta and git sha (differs from machine.gitSha with --ficta-bin). */
  measured: { fictaBin: string; gitSha: string };
  results: Array<MicroResult | E2eResult | MemoryResult>;
  durationMs: number;
}

/** The other proxies a run measures: --floor's, then --proxy-cmd's. */
function otherProxies(options: RunOptions): Array<{ cmd: string; label: string }> {
  const out: Array<{ cmd: string; label: string }> = [];
  if (options.floor === true) {
    const args = [process.execPath, ...ownScriptArgs('floor-proxy')].map((a) => `'${a}'`).join(' ');
    // {ALLOC_FILE}: where its allocation probe reports (bytes per request, like ficta's).
    out.push({ cmd: `FICTA_BENCH_ALLOC={ALLOC_FILE} ${args} {UPSTREAM} {PORT}`, label: 'floor' });
  }
  if (options.proxyCmd !== undefined) out.push({ cmd: options.proxyCmd, label: options.proxyLabel ?? 'other' });
  return out;
}

/** This checkout's (or installed package's) `bin/ficta`. */
export const DEFAULT_FICTA_BIN = FICTA_BIN;

/** Microbenchmark subset per mode: the figures DESIGN §6 states targets for. */
const MICRO: Record<BenchMode, { counts: number[]; sizes: SizeName[]; timeMs: number; warmupMs: number }> = {
  // The quick run's cases (so a budget written for --quick finds every name), timed for a moment only.
  smoke: { counts: [10, 1_000, 10_000], sizes: ['500KiB'], timeMs: 10, warmupMs: 2 },
  quick: { counts: [10, 1_000, 10_000], sizes: ['500KiB'], timeMs: 150, warmupMs: 50 },
  full: { counts: [10, 100, 1_000, 10_000], sizes: ['50KiB', '500KiB', '5MiB'], timeMs: 400, warmupMs: 100 },
};

/** Runs the selected sections; child processes are always stopped, the work directory removed. */
export async function runBench(options: RunOptions): Promise<BenchReport> {
  const started = performance.now();
  const loadBefore = machineInfo().loadBefore;
  const results: BenchReport['results'] = [];
  const log = options.log;

  const runMicroSection = async (): Promise<void> => {
    if (!options.sections.includes('micro')) return;
    const m = MICRO[options.mode];
    const cases = [...redactGateCases(m.counts, m.sizes), ...restoreCases(m.counts, m.sizes)].filter((c) => options.filter === undefined || c.name.includes(options.filter));
    log(`micro: ${cases.length} cases`);
    results.push(
      ...(await runMicro(cases, {
        timeMs: m.timeMs,
        warmupMs: m.warmupMs,
        onResult: (r) => log(`  ${r.name.padEnd(52)} p50 ${r.p50.toFixed(4)} ms${r.msPerMB === undefined ? '' : `, ${r.msPerMB.toFixed(3)} ms/MB`}`),
      })),
    );
  };

  if (!options.sections.includes('e2e') && !options.sections.includes('memory')) {
    await runMicroSection();
  } else {
    const workDir = mkdtempSync(join(tmpdir(), 'ficta-bench-'));
    const plan = { ...PLANS[options.mode], ...(options.filter === undefined ? {} : { filter: options.filter }) };
    try {
      // Child processes first: the memory checks' proxy then idles through the micro and e2e sections
      // (its idle RSS is read once V8 has settled), and start-up work never overlaps a timed section.
      const harness = await startHarness(
        {
          mode: options.mode,
          fictaBin: options.fictaBin,
          workDir,
          log,
          others: otherProxies(options),
          ...(options.sections.includes('memory') ? { memorySecrets: MEMORY_PLANS[options.mode].secrets } : {}),
        },
        options.sections.includes('e2e') ? plan : { ...plan, redactCounts: [], watermarkOnly: false },
      );
      try {
        await runMicroSection();
        if (options.sections.includes('e2e')) results.push(...(await runScenarios(harness, plan, log)));
        if (options.sections.includes('memory')) results.push(...(await runMemoryChecks(harness, MEMORY_PLANS[options.mode], log)));
      } finally {
        await harness.close();
      }
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
  }

  return {
    mode: options.mode,
    machine: machineInfo(loadBefore),
    measured: { fictaBin: options.fictaBin, gitSha: machineInfo(undefined, dirname(dirname(options.fictaBin))).gitSha },
    results,
    durationMs: performance.now() - started,
  };
}
