// `ficta bench`: what ficta adds on this machine — end-to-end latency against a direct connection,
// CPU and memory of the proxy process, and the hot-path microbenchmarks — as a table or JSON, checked
// against an overhead budget (exit 1 when a limit is exceeded, so CI can gate on it).

import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { checkBudget, readBudget } from '../bench/budget.ts';
import { keepLastResults } from '../bench/last-results.ts';
import { resolveHome } from '../config/home.ts';
import { stopAllChildren } from '../bench/processes.ts';
import { formatHtmlReport } from '../bench/html-report.ts';
import { formatBudget, formatReport } from '../bench/report.ts';
import { DEFAULT_FICTA_BIN, runBench, SECTIONS, type BenchReport, type Section } from '../bench/run.ts';
import { FictaError } from '../errors.ts';
import { formatHelp, parseCommandLine, usageError, type CommandSpec } from './args.ts';
import type { CliIo } from './io.ts';

export const spec = {
  name: 'bench',
  usage: 'bench [options]',
  summary: 'measure what ficta adds on this machine',
  description: `Targets run in separate processes on loopback: a mock provider, ficta with no secrets (passthrough),
ficta redacting with 1,000 secrets (and 100 in the full run), and a direct connection, measured in
interleaved rounds. "added" is a target's p50 minus the direct p50 of the same run.`,
  options: {
    quick: { type: 'boolean', help: 'a subset that finishes in under a minute (default: the full run, several minutes)' },
    json: { type: 'boolean', help: 'print the results as JSON on stdout (progress goes to stderr)' },
    html: { type: 'string', value: 'FILE', complete: 'file', help: 'also write the report as one self-contained HTML page (plots, verdicts, machine)' },
    from: { type: 'string', value: 'FILE', complete: 'file', help: 'report a run saved with --json instead of measuring (with --html, --budget)' },
    budget: {
      type: 'string',
      value: 'FILE',
      complete: 'file',
      help: 'check the results against the limits in FILE; exit 1 when one is exceeded\n(config/bench-budget.json is tuned for --quick on a 2-vCPU machine)',
    },
    'proxy-cmd': {
      type: 'string',
      value: 'CMD',
      help: "also measure another proxy: a shell command with {UPSTREAM} (the mock\nprovider's URL), {PORT} (where it must listen) and optionally {ENV_FILE}\n(a dotenv file of the 1,000 registered secrets)",
    },
    'proxy-label': { type: 'string', value: 'NAME', help: 'its name in the results (default "other")' },
    floor: { type: 'boolean', help: 'also measure bench/floor-proxy.ts (node:http in, undici out, nothing else):\nwhat any Node proxy pays on this machine' },
    'ficta-bin': { type: 'string', value: 'PATH', complete: 'file', help: "the bin/ficta of the build to measure (default: this checkout's)" },
    only: { type: 'string', value: 'LIST', help: 'sections to run: micro,e2e,memory (default all)' },
    filter: { type: 'string', value: 'TEXT', help: 'only micro cases and e2e scenarios whose name contains TEXT (e.g. json/50KiB/c16)' },
    smoke: { type: 'boolean', help: 'a few requests per case, for tests: the figures mean nothing' },
  },
} satisfies CommandSpec;

/** Runs the benchmarks and prints the report. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const { help, values } = parseCommandLine(spec, argv);
  if (help) {
    io.stdout.write(formatHelp(spec));
    return 0;
  }
  if (values.from === undefined && process.platform !== 'linux') throw usageError(spec, 'it reads process CPU and memory from /proc and runs on Linux only');
  const sections = parseSections(values.only);
  if (values['proxy-cmd'] !== undefined && !values['proxy-cmd'].includes('{PORT}')) {
    throw usageError(spec, '--proxy-cmd must contain {PORT} (and usually {UPSTREAM})');
  }
  // Read the budget first: a typo in its path should not cost a whole run.
  const budget = values.budget === undefined ? undefined : readBudget(values.budget);
  if (budget !== undefined && !budget.ok) throw budget.error;

  const report = values.from === undefined ? await measure(values, sections, io) : readSavedReport(values.from);

  const checks = budget?.ok === true ? checkBudget(budget.value, report.results) : undefined;
  // The dashboard's Benchmarks page shows the last measured --json/--html run (figures of a smoke run mean nothing).
  if (values.from === undefined && report.mode !== 'smoke' && (values.json === true || values.html !== undefined)) keepLastResults(resolveHome(io.env), report);
  if (values.html !== undefined) writeReportFile(values.html, formatHtmlReport(report, checks));
  if (values.json === true) {
    const failed = checks?.filter((c) => !c.ok);
    io.stdout.write(`${JSON.stringify({ ...report, ...(checks === undefined ? {} : { budget: { file: values.budget, pass: failed?.length === 0, checks } }) }, null, 2)}\n`);
  } else {
    io.stdout.write(`${formatReport(report, checks)}\n`);
  }
  const over = checks?.filter((c) => !c.ok) ?? [];
  if (over.length > 0) {
    if (values.json === true) io.stderr.write(`${formatBudget(over)}\n`);
    const names = over.map((c) => `${c.name} ${c.field} ${c.value === undefined ? 'not measured' : c.value.toFixed(3)} (${c.limit})`);
    throw new FictaError('FICTA_BENCH_BUDGET_EXCEEDED', `bench: budget exceeded: ${over.length} of ${checks?.length} limits: ${names.join('; ')}`);
  }
  return 0;
}

type Values = { [k: string]: string | boolean | undefined };

/** Runs the harness; every child process is stopped however the run ends. */
async function measure(values: Values, sections: Section[], io: CliIo): Promise<BenchReport> {
  const str = (k: string): string | undefined => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
  const onSignal = (): void => {
    stopAllChildren();
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await runBench({
      mode: values.smoke === true ? 'smoke' : values.quick === true ? 'quick' : 'full',
      sections,
      fictaBin: str('ficta-bin') === undefined ? DEFAULT_FICTA_BIN : resolve(str('ficta-bin') as string),
      ...(str('proxy-cmd') === undefined ? {} : { proxyCmd: str('proxy-cmd') as string }),
      ...(str('proxy-label') === undefined ? {} : { proxyLabel: str('proxy-label') as string }),
      ...(str('filter') === undefined ? {} : { filter: str('filter') as string }),
      ...(values.floor === true ? { floor: true } : {}),
      log: (line) => void io.stderr.write(`${line}\n`),
    });
  } finally {
    stopAllChildren();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** A report saved by `ficta bench --json` (its budget verdicts are recomputed when --budget is given). */
function readSavedReport(path: string): BenchReport {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    throw new FictaError('FICTA_BENCH_REPORT_INVALID', `bench: cannot read ${path}${code === undefined ? ': not JSON' : ` (${code})`}`, { cause });
  }
  const r = parsed as Partial<BenchReport> | null;
  if (typeof r !== 'object' || r === null || !Array.isArray(r.results) || typeof r.machine !== 'object' || typeof r.measured !== 'object' || typeof r.mode !== 'string') {
    throw new FictaError('FICTA_BENCH_REPORT_INVALID', `bench: ${path} is not a report written by ficta bench --json`);
  }
  return r as BenchReport;
}

function writeReportFile(path: string, text: string): void {
  try {
    writeFileSync(path, text);
  } catch (cause) {
    throw new FictaError('FICTA_FILE_WRITE', `files: cannot write ${path}: ${(cause as NodeJS.ErrnoException).code ?? 'error'}`, { cause });
  }
}

function parseSections(only: string | undefined): Section[] {
  if (only === undefined) return [...SECTIONS];
  const list = only.split(',').map((s) => s.trim());
  for (const s of list) {
    if (!SECTIONS.includes(s as Section)) throw usageError(spec, `--only takes ${SECTIONS.join(',')}`);
  }
  return list as Section[];
}
