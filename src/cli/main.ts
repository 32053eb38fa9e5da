// The `ficta` command line: finds the command in the table (commands.ts), runs it, and turns errors into
// exit codes (exit-codes.ts): 0 ok, 1 operational error with one line `ficta: <area>: <what>` on stderr,
// 2 usage, 3 blocked with --fail-on-*, 130 interrupted.

import { BUILTINS, COMMANDS } from './commands.ts';
import { isShowableWord, suggest } from './did-you-mean.ts';
import { EXIT_OK, EXIT_USAGE } from './exit-codes.ts';
import { processIo, type CliIo } from './io.ts';
import { reportError } from './report-error.ts';

/** The top-level help, from the command table. */
export function formatUsage(): string {
  const rows = [...Object.entries(COMMANDS).map(([name, c]) => [name, c.summary] as const), ...Object.entries(BUILTINS)];
  const width = Math.max(...rows.map(([n]) => n.length)) + 2;
  return [
    'usage: ficta <command> [options]',
    '',
    'commands:',
    ...rows.map(([n, s]) => `  ${n.padEnd(width)}${s}`),
    '',
    'Run "ficta <command> --help" for its options. ficta --version prints the version.',
    '',
  ].join('\n');
}

/** Runs the CLI with the given arguments and returns the exit code. */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  try {
    if (name === undefined) {
      io.stderr.write(formatUsage());
      return EXIT_USAGE;
    }
    if (name === '--help' || name === '-h' || name === 'help') {
      const topic = rest[0];
      if (topic === undefined || topic.startsWith('-')) {
        io.stdout.write(formatUsage());
        return EXIT_OK;
      }
      return await runCommand(topic, ['--help'], io);
    }
    if (name === '--version' || name === '-v' || name === 'version') {
      io.stdout.write(`${await readVersion()}\n`);
      return EXIT_OK;
    }
    if (name === 'completion') {
      const { runCompletion } = await import('./completion.ts');
      return await runCompletion(rest, io);
    }
    return await runCommand(name, rest, io);
  } catch (error) {
    return reportError(error, io.stderr);
  }
}

async function runCommand(name: string, argv: string[], io: CliIo): Promise<number> {
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (entry === undefined) {
    const close = suggest(name, [...Object.keys(COMMANDS), ...Object.keys(BUILTINS)]);
    // A mistyped command is repeated only when it looks like a word, never a pasted value.
    const shown = isShowableWord(name) ? ` "${name}"` : '';
    io.stderr.write(`ficta: usage: unknown command${shown}${close === undefined ? '' : ` (did you mean "${close}"?)`}; see ficta --help\n`);
    return EXIT_USAGE;
  }
  const command = await entry.load();
  return command.run(argv, io);
}

async function readVersion(): Promise<string> {
  const { VERSION } = await import('../version.ts');
  return VERSION;
}
