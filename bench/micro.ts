// `pnpm bench`: the microbenchmarks — automaton build and scan, redact + gate (detection off and on, and
// its worst-case shapes), JSON and SSE restore (and the shapes that once made it quadratic) over secrets
// {10, 100, 1k, 10k} × bodies {1KiB, 50KiB, 500KiB, 5MiB} — then the watermark, detection and vault
// benchmarks (bench/*.bench.ts), each in its own process.
// Run: pnpm bench [--quick] [--json] [--filter TEXT]

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildCases, detectRedactGateCases, matcherScanCases, redactGateCases, restoreCases, restoreShapeCases, runMicro, type MicroCase } from '../src/bench/micro.ts';
import { machineInfo } from '../src/bench/machine.ts';
import { redactShapeCases } from '../src/bench/redact-shapes.ts';
import { formatMicroTable } from '../src/bench/report.ts';
import type { SizeName } from '../src/bench/corpus.ts';

const { values } = parseArgs({
  options: { quick: { type: 'boolean' }, json: { type: 'boolean' }, filter: { type: 'string' }, 'no-children': { type: 'boolean' } },
  strict: true,
});
const quick = values.quick === true;
const counts = quick ? [10, 1_000, 10_000] : [10, 100, 1_000, 10_000];
const sizes: SizeName[] = quick ? ['50KiB', '500KiB'] : ['1KiB', '50KiB', '500KiB', '5MiB'];

// Restore shapes that used to be quadratic (issue 9): 500 KiB of JSON text holds ~8,000 placeholders.
const restoreShapes = restoreShapeCases(1_000, quick ? ['5MiB'] : ['500KiB', '5MiB'], ['500KiB']);
let cases: MicroCase[] = [
  ...buildCases(counts),
  ...matcherScanCases(counts, sizes),
  ...redactGateCases(counts, sizes),
  ...detectRedactGateCases(counts, sizes),
  ...redactShapeCases(counts, sizes),
  ...restoreCases(counts, sizes),
  ...restoreShapes,
];
if (values.filter !== undefined) cases = cases.filter((c) => c.name.includes(values.filter as string));

const machine = machineInfo();
const log = (s: string): void => void process.stderr.write(`${s}\n`);
log(`micro: ${cases.length} cases, ${quick ? 'quick' : 'full'} — node ${machine.node}, ${machine.cpu} × ${machine.cpus}, git ${machine.gitSha}, load ${machine.loadBefore}`);
const results = await runMicro(cases, {
  timeMs: quick ? 150 : 400,
  warmupMs: quick ? 50 : 100,
  onResult: (r) => log(`  ${r.name.padEnd(56)} p50 ${r.p50.toFixed(4)} ms${r.msPerMB === undefined ? '' : `  ${r.msPerMB.toFixed(3)} ms/MB`}`),
});

if (values.json === true) {
  process.stdout.write(`${JSON.stringify({ machine: machineInfo(machine.loadBefore), results }, null, 2)}\n`);
} else {
  process.stdout.write(`${formatMicroTable(results)}\n`);
}

// The vault and watermark engineers' benchmarks, unchanged, in their own processes.
if (values['no-children'] !== true && values.json !== true) {
  const here = import.meta.dirname;
  const children: Array<[string, string[]]> = [
    ['watermark.bench.ts', quick ? ['--rounds', '1'] : []],
    ['detect.bench.ts', quick ? ['--quick'] : []],
    // Argon2id at MODERATE and 10k-secret vaults take minutes: full runs only.
    ...(quick ? [] : [['vault.bench.ts', []] as [string, string[]]]),
  ];
  for (const [file, args] of children) {
    const path = join(here, file);
    if (!existsSync(path)) continue;
    process.stdout.write(`\n== ${file} ==\n`);
    const r = spawnSync(process.execPath, ['--import', 'tsx', path, ...args], { stdio: 'inherit', cwd: join(here, '..') });
    if (r.status !== 0) process.exitCode = 1;
  }
}
