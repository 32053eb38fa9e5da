// `ficta run [options] [--] CMD [ARGS…]`: run any command behind a private proxy (see wrap.ts).

import { formatHelp, parseCommandLine, usageError, type CommandSpec } from './args.ts';
import { EXIT_OK, EXIT_RUN_FAILED } from './exit-codes.ts';
import type { CliIo } from './io.ts';
import { proxyFlags, wantsJson, WRAP_OPTIONS } from './proxy-options.ts';
import { reportError } from './report-error.ts';
import { baseUrlEnv, runWrapped } from './wrap.ts';

export const spec = {
  name: 'run',
  usage: 'run [options] [--] CMD [ARGS…]',
  summary: 'run a command behind a private proxy',
  description: `Starts the proxy on a free loopback port with a random access token, runs CMD with
ANTHROPIC_BASE_URL, OPENAI_BASE_URL and GOOGLE_GEMINI_BASE_URL (and FICTA_URL) pointing at it, and exits
with CMD's exit code. ficta's own options come before CMD (or before --). Its logs go to FICTA_HOME/run.log (warnings only
unless --log-level is given); when CMD ends, a summary goes to stderr (--quiet drops it).`,
  options: WRAP_OPTIONS,
  positionals: { name: 'CMD', complete: 'command' },
  footer: `Exit codes: CMD's own; 125 when ficta fails before CMD starts; 127 CMD not found, 126 not executable.`,
} satisfies CommandSpec;

/** Runs CMD behind the proxy. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const json = wantsJson(argv, io.env, WRAP_OPTIONS);
  let parsed;
  try {
    parsed = parseCommandLine(spec, argv, { stopAtPositional: true });
    if (!parsed.help && parsed.rest.length === 0) throw usageError(spec, 'expected a command to run (CMD)');
  } catch (error) {
    // Before CMD starts, ficta's failures use 125, which CMD's own exit codes cannot be confused with.
    reportError(error, io.stderr, json);
    return EXIT_RUN_FAILED;
  }
  if (parsed.help) {
    io.stdout.write(formatHelp(spec));
    return EXIT_OK;
  }
  const [cmd, ...args] = parsed.rest as [string, ...string[]];
  let flags;
  try {
    flags = proxyFlags(parsed.values, 'run');
  } catch (error) {
    reportError(error, io.stderr, json);
    return EXIT_RUN_FAILED;
  }
  return runWrapped({
    mode: 'run',
    ...flags,
    io,
    quiet: parsed.values.quiet === true,
    json,
    plan: (urls) => ({ command: cmd, args, env: baseUrlEnv(urls) }),
  });
}
