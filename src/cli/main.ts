// The `ficta` command line: dispatches to one module per command and turns errors into exit codes
// (0 ok, 1 operational error with one line `ficta: <area>: <what>` on stderr, 2 usage).

import { isFictaError } from '../errors.ts';
import { processIo, type CliIo, type Command } from './io.ts';

const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: () => import('./serve.ts'),
  run: () => import('./run.ts'),
  claude: () => import('./claude.ts'),
  codex: () => import('./codex.ts'),
  report: () => import('./report.ts'),
  doctor: () => import('./doctor.ts'),
  vault: () => import('./vault.ts'),
  watermark: () => import('./watermark.ts'),
  attribute: () => import('./attribute.ts'),
  bench: () => import('./bench.ts'),
  scan: () => import('./scan.ts'),
};

const USAGE = `usage: ficta <command> [options]

commands:
  serve        run the redacting proxy (ficta serve --help)
  run          run a command behind a private proxy: ficta run -- CMD ARGS…
  claude       run Claude Code behind a private proxy: ficta claude [-- args]
  codex        run Codex behind a private proxy: ficta codex [-- args]
  report       print a run report written with --report-file
  doctor       check config, vault, upstreams, port and agent routing (ficta doctor [claude|codex])
  vault        manage the sealed secret vault (ficta vault --help)
  watermark    mark a document shared by hand, or read its marks (ficta watermark --help)
  attribute    say which session and request sent a leaked text (ficta attribute --help)
  bench        measure what ficta adds on this machine (ficta bench --help)
  scan         find credentials in files, the environment or git history (ficta scan --help)
`;

/** Runs the CLI with the given arguments and returns the exit code. */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? io.stderr : io.stdout).write(USAGE);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    io.stdout.write(`${await readVersion()}\n`);
    return 0;
  }
  const load = COMMANDS[name];
  if (load === undefined) {
    io.stderr.write(`ficta: usage: unknown command "${name}"\n${USAGE}`);
    return 2;
  }
  try {
    const command = await load();
    return await command.run(rest, io);
  } catch (error) {
    return reportError(error, io);
  }
}

/** Prints one line for an error and returns its exit code. */
export function reportError(error: unknown, io: CliIo): number {
  if (isFictaError(error)) {
    io.stderr.write(`ficta: ${oneLine(error.message)}\n`);
    return error.code === 'FICTA_USAGE' ? 2 : 1;
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
    io.stderr.write(`ficta: usage: ${oneLine((error as Error).message)}\n`);
    return 2;
  }
  io.stderr.write(`ficta: internal: ${oneLine(error instanceof Error ? error.message : String(error))}\n`);
  return 1;
}

function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, ' ').trim();
}

async function readVersion(): Promise<string> {
  const { VERSION } = await import('../version.ts');
  return VERSION;
}
