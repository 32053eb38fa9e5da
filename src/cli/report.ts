// `ficta report FILE [--json] [--fail-on-block] [--fail-on-withhold]`: prints a run report written by
// `--report-file` (requests, redactions, restores, blocks and withheld tool-call restores by secret name,
// restore misses); names and counts only.

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { FictaError } from '../errors.ts';
import type { RunReport } from '../server/stats.ts';
import type { CliIo } from './io.ts';
import { describeWithheld, type WithheldByName } from '../sinks/withheld.ts';
import { describeBlocks, EXIT_BLOCKED } from './proxy-session.ts';

/** Prints the report; exits 3 with --fail-on-block when a request was blocked. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { json: { type: 'boolean' }, 'fail-on-block': { type: 'boolean' }, 'fail-on-withhold': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
  });
  if (values.help === true || positionals.length !== 1) {
    if (values.help !== true) throw new FictaError('FICTA_USAGE', `usage: ${USAGE}`);
    io.stdout.write(`usage: ${USAGE}\n`);
    return 0;
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
  if (values.json === true) io.stdout.write(`${JSON.stringify(report)}\n`);
  else io.stdout.write(formatReport(report));
  if (values['fail-on-block'] === true && report.blocks > 0) {
    io.stderr.write(`ficta: report: ${describeBlocks(report)}\n`);
    return EXIT_BLOCKED;
  }
  if (values['fail-on-withhold'] === true && (report.withheld ?? 0) > 0) {
    io.stderr.write(`ficta: report: ${describeWithheld(report.withheldBySecret ?? {})}\n`);
    return EXIT_BLOCKED;
  }
  return 0;
}

const USAGE = 'ficta report FILE [--json] [--fail-on-block] [--fail-on-withhold]';

/** The human-readable report. */
export function formatReport(r: RunReport): string {
  const list = (m: Record<string, number>): string =>
    Object.keys(m).length === 0
      ? '-'
      : Object.entries(m)
          .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
          .map(([k, v]) => `${k} ${v}`)
          .join(', ');
  return [
    `requests        ${r.requests} (${list(r.byOutcome)})`,
    `redactions      ${list(r.redactions)}`,
    `restores        ${list(r.restores)}`,
    `blocked         ${r.blocks}${r.blocks > 0 ? ` (${list(r.blockedBySecret)})` : ''}`,
    `restore misses  ${r.restoreMisses}`,
    `withheld        ${r.withheld ?? 0}${(r.withheld ?? 0) > 0 ? ` (${withheldList(r.withheldBySecret ?? {})})` : ''}`,
    '',
  ].join('\n');
}

/** `NAME reason ×n` entries, most frequent first. */
function withheldList(byName: WithheldByName): string {
  const rows: Array<[string, number]> = [];
  for (const [name, byReason] of Object.entries(byName)) for (const [reason, n] of Object.entries(byReason)) rows.push([`${name} ${reason}`, n]);
  return rows.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([k, n]) => `${k} ${n}`).join(', ');
}
