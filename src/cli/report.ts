// `ficta report FILE [--json] [--fail-on-block] [--fail-on-withhold]`: prints a run report written by
// `--report-file` (requests by outcome, redactions, restores, blocks and withheld tool-call restores by
// secret name, restore misses, upstream errors); names and counts only.

import { readFileSync } from 'node:fs';
import { FictaError } from '../errors.ts';
import type { RunReport } from '../server/stats.ts';
import { formatHelp, parseCommandLine, type CommandSpec } from './args.ts';
import { EXIT_BLOCKED, EXIT_OK } from './exit-codes.ts';
import type { CliIo } from './io.ts';
import { describeWithheld } from '../sinks/withheld.ts';
import { describeBlocks, formatReportLines } from './report-format.ts';

export const spec = {
  name: 'report',
  usage: 'report FILE [--json] [--fail-on-block] [--fail-on-withhold]',
  summary: 'print a run report written with --report-file',
  description: `Prints the run report that ficta serve/run --report-file FILE wrote on exit: requests by outcome
(ok, blocked, unauthorized, not_found, upstream_unreachable, … — see "Outcomes" in docs/logs.md),
redactions and restores by secret name, blocked requests, restore misses, upstream errors and restores
withheld from tool calls (by secret name and reason). Names and counts only, never a value.`,
  options: {
    json: { type: 'boolean', help: 'print the report as one JSON object' },
    'fail-on-block': { type: 'boolean', help: 'exit 3 when a request was blocked (for CI)' },
    'fail-on-withhold': { type: 'boolean', help: 'exit 3 when a restore was withheld from a tool call (for CI)' },
  },
  positionals: { name: 'FILE', min: 1, max: 1, complete: 'file' },
} satisfies CommandSpec;

/** Prints the report; exits 3 with --fail-on-block when a request was blocked, with --fail-on-withhold when a restore was withheld. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const { help, values, positionals } = parseCommandLine(spec, argv);
  if (help) {
    io.stdout.write(formatHelp(spec));
    return EXIT_OK;
  }
  const file = positionals[0] as string;
  let report: RunReport;
  try {
    report = JSON.parse(readFileSync(file, 'utf8')) as RunReport;
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    throw new FictaError('FICTA_REPORT_UNREADABLE', `report: cannot read ${file}: ${code ?? 'not a report (invalid JSON)'}`, { cause });
  }
  if (typeof report.requests !== 'number' || typeof report.blocks !== 'number') throw new FictaError('FICTA_REPORT_UNREADABLE', `report: ${file} is not a ficta run report`);
  report.upstreamErrors ??= 0;
  if (values.json === true) io.stdout.write(`${JSON.stringify(report)}\n`);
  else io.stdout.write(`${formatReportLines(report).join('\n')}\n`);
  if (values['fail-on-block'] === true && report.blocks > 0) {
    io.stderr.write(`ficta: report: ${describeBlocks(report)}\n`);
    return EXIT_BLOCKED;
  }
  if (values['fail-on-withhold'] === true && (report.withheld ?? 0) > 0) {
    io.stderr.write(`ficta: report: ${describeWithheld(report.withheldBySecret ?? {})}\n`);
    return EXIT_BLOCKED;
  }
  return EXIT_OK;
}
