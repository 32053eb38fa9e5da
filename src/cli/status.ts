// `ficta status [--json]`: the ficta proxies running for this user (this FICTA_HOME): pid, mode, URL with
// the token masked, uptime, requests, blocks and upstream errors. Entries of proxies that are gone are
// removed as they are found.

import { resolveHome } from '../config/home.ts';
import { formatHelp, parseCommandLine, type CommandSpec } from './args.ts';
import { EXIT_OK } from './exit-codes.ts';
import { listInstances } from './instances.ts';
import type { CliIo } from './io.ts';

export const spec = {
  name: 'status',
  usage: 'status [--json]',
  summary: 'the ficta proxies running for this user',
  description: `Lists the running ficta proxies of this FICTA_HOME (serve, run, claude, codex, …): pid, mode, URL
with its access token masked, uptime, requests, blocked requests and upstream errors (refreshed about once
a second). Entries left by proxies that are gone are cleaned up.`,
  options: {
    json: { type: 'boolean', help: 'print a JSON array (uptimeMs instead of a readable uptime)' },
  },
} satisfies CommandSpec;

/** Prints the running proxies. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const { help, values } = parseCommandLine(spec, argv);
  if (help) {
    io.stdout.write(formatHelp(spec));
    return EXIT_OK;
  }
  const home = resolveHome(io.env);
  const now = Date.now();
  const rows = listInstances(home).map((i) => ({ ...i, uptimeMs: Math.max(0, now - i.startedAt) }));
  if (values.json === true) {
    io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return EXIT_OK;
  }
  if (rows.length === 0) {
    io.stdout.write(`no ficta proxy is running (FICTA_HOME ${home})\n`);
    return EXIT_OK;
  }
  const table = [
    ['PID', 'MODE', 'URL', 'UPTIME', 'REQUESTS', 'BLOCKED', 'UPSTREAM ERRORS'],
    ...rows.map((r) => [String(r.pid), r.mode, r.url, formatUptime(r.uptimeMs), String(r.requests), String(r.blocks), String(r.upstreamErrors)]),
  ];
  const widths = (table[0] as string[]).map((_, c) => table.reduce((w, row) => Math.max(w, (row[c] as string).length), 0));
  for (const row of table) io.stdout.write(`${row.map((cell, c) => (c === row.length - 1 ? cell : cell.padEnd(widths[c] as number))).join('  ')}\n`);
  return EXIT_OK;
}

/** `3s`, `4m 05s`, `2h 03m`, `1d 04h`. */
export function formatUptime(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h ${String(m % 60).padStart(2, '0')}m`;
  return `${Math.floor(h / 24)}d ${String(h % 24).padStart(2, '0')}h`;
}
