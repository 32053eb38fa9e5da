// Compares two builds of ficta end to end (or repeats one): fresh `ficta bench --json` processes in
// alternating order (A B B A A B …, so drift in the machine's load falls on both), each measuring one
// build's proxy with this checkout's harness, then the median of the per-run figures and a bootstrap
// 95 % interval of the difference. Without --base it repeats the current build (medians of N runs).
// Run: node --import tsx bench/compare.ts [--base REF|DIR] [--runs 3] [--json] [--save DIR] -- [ficta bench args, e.g. --quick --only e2e]

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { formatTable, fmt } from '../src/bench/report.ts';
import { median } from '../src/bench/stats.ts';
import { mulberry32 } from '../src/util/prng.ts';

/** Figures compared, when a result has them. */
const FIELDS = ['p50', 'addedP50Ms', 'addedTtfbP50Ms', 'addedTtftP50Ms', 'added_firstCall_P50Ms', 'added_held_P50Ms', 'added_callEnd_P50Ms', 'cpuMsPerReq', 'allocKBPerReq', 'gcMsPerReq', 'rssMB', 'peakMB', 'costOverBody', 'latencyGrowth'] as const;

const REPO = resolve(import.meta.dirname, '..');
const { values, positionals } = parseArgs({
  options: { base: { type: 'string' }, head: { type: 'string' }, runs: { type: 'string' }, json: { type: 'boolean' }, save: { type: 'string' } },
  allowPositionals: true,
  strict: true,
});
const runs = Number(values.runs ?? 3);
const benchArgs = positionals.length > 0 ? positionals : ['--quick', '--only', 'e2e'];
const log = (s: string): void => void process.stderr.write(`${s}\n`);

interface Build {
  label: string;
  bin: string;
  cleanup?: () => void;
}

/** A directory checkout as is, or a git ref exported with `git archive` (no worktree, .git untouched). */
function prepare(spec: string, label: string): Build {
  const dir = resolve(spec);
  if (existsSync(join(dir, 'bin', 'ficta'))) return { label, bin: join(dir, 'bin', 'ficta') };
  const out = mkdtempSync(join(tmpdir(), `ficta-${label}-`));
  const archive = spawnSync('sh', ['-c', `git -C "$1" archive "$2" | tar -x -C "$3"`, 'sh', REPO, spec, out], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (archive.status !== 0 || !existsSync(join(out, 'bin', 'ficta'))) {
    rmSync(out, { recursive: true, force: true });
    throw new Error(`compare: cannot export ${spec} (not a directory with bin/ficta, nor a git ref)`);
  }
  // Same lockfile assumed: reuse this checkout's dependencies.
  symlinkSync(join(REPO, 'node_modules'), join(out, 'node_modules'));
  // Measure it compiled, as it would be installed; a ref from before scripts/build.ts runs its sources
  // through tsx (FICTA_DEV=1 in the environment runs every build's sources, for a like-for-like run).
  if (existsSync(join(out, 'scripts', 'build.ts')) && process.env.FICTA_DEV !== '1') {
    const built = spawnSync(process.execPath, ['--import', 'tsx', join(out, 'scripts', 'build.ts')], { cwd: out, stdio: ['ignore', 'inherit', 'inherit'] });
    if (built.status !== 0) throw new Error(`compare: cannot build ${spec}`);
  } else log(`compare: ${spec} runs its sources through tsx`);
  return { label: `${label} (${spec})`, bin: join(out, 'bin', 'ficta'), cleanup: () => rmSync(out, { recursive: true, force: true }) };
}

type Results = Map<string, Record<string, number>>;

let saved = 0;
function runOnce(build: Build): Results {
  const r = spawnSync(join(REPO, 'bin', 'ficta'), ['bench', '--json', '--ficta-bin', build.bin, ...benchArgs], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0 && r.stdout.trim() === '') throw new Error(`compare: ficta bench failed for ${build.label}: ${r.stderr.slice(-800)}`);
  const report = JSON.parse(r.stdout) as { results: Array<Record<string, unknown>>; machine: { loadBefore: number; loadAfter: number } };
  if (values.save !== undefined) {
    mkdirSync(values.save, { recursive: true });
    writeFileSync(join(values.save, `run-${++saved}-${build.label.split(' ')[0]}.json`), r.stdout);
  }
  log(`  ${build.label}: load ${report.machine.loadBefore} → ${report.machine.loadAfter}`);
  const out: Results = new Map();
  for (const res of report.results) {
    const fields: Record<string, number> = {};
    for (const f of FIELDS) if (typeof res[f] === 'number') fields[f] = res[f] as number;
    out.set(res.name as string, fields);
  }
  return out;
}

const head: Build = prepare(values.head ?? REPO, 'head');
const base: Build | undefined = values.base === undefined ? undefined : prepare(values.base, 'base');
const builds = base === undefined ? [head] : [base, head];
const collected = new Map<string, Results[]>(builds.map((b) => [b.label, []]));
try {
  for (let i = 0; i < runs; i++) {
    // ABBA order: each build goes first as often as second.
    const order = i % 2 === 0 ? builds : [...builds].reverse();
    log(`run ${i + 1}/${runs}`);
    for (const b of order) collected.get(b.label)!.push(runOnce(b));
  }
} finally {
  for (const b of builds) b.cleanup?.();
}

const names = [...(collected.get(head.label)![0]?.keys() ?? [])];
const rows: Array<Array<string | number>> = [];
const json: Array<Record<string, unknown>> = [];
for (const name of names) {
  for (const f of FIELDS) {
    const series = (b: Build): number[] => collected.get(b.label)!.map((r) => r.get(name)?.[f]).filter((x): x is number => x !== undefined);
    const h = series(head);
    if (h.length === 0) continue;
    if (base === undefined) {
      rows.push([name, f, median(h), Math.min(...h), Math.max(...h), h.length]);
      json.push({ name, field: f, median: median(h), runs: h });
      continue;
    }
    const b = series(base);
    if (b.length === 0) continue;
    const [lo, hi] = bootstrapDiff(h, b);
    const verdict = lo > 0 ? 'higher' : hi < 0 ? 'lower' : 'within noise';
    rows.push([name, f, median(b), median(h), median(h) - median(b), `${fmt(lo)}…${fmt(hi)}`, verdict]);
    json.push({ name, field: f, base: b, head: h, delta: median(h) - median(b), ci95: [lo, hi], verdict });
  }
}
if (values.json === true) process.stdout.write(`${JSON.stringify({ runs, benchArgs, rows: json }, null, 2)}\n`);
else if (base === undefined) process.stdout.write(`${formatTable(['result', 'field', `median of ${runs}`, 'min', 'max', 'runs'], rows)}\n`);
else process.stdout.write(`${formatTable(['result', 'field', 'base', 'head', 'head − base', '95% CI', 'verdict'], rows)}\n`);

/** Percentile-bootstrap 95 % interval of median(a) − median(b) over per-run figures (seeded). */
function bootstrapDiff(a: number[], b: number[]): [number, number] {
  const rnd = mulberry32(7);
  const draw = (xs: number[]): number => median(Array.from({ length: xs.length }, () => xs[Math.floor(rnd() * xs.length)] as number));
  const d = Array.from({ length: 2000 }, () => draw(a) - draw(b)).sort((x, y) => x - y);
  return [d[Math.floor(0.025 * d.length)] as number, d[Math.floor(0.975 * d.length)] as number];
}
