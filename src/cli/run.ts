// `ficta run [options] [--] CMD [ARGS…]`: run any command behind a private proxy (see wrap.ts).

import { parseArgs } from 'node:util';
import { isFictaError } from '../errors.ts';
import { FictaError } from '../errors.ts';
import type { CliIo } from './io.ts';
import { PROXY_OPTIONS, PROXY_OPTIONS_HELP, proxyFlags } from './proxy-options.ts';
import { baseUrlEnv, runWrapped, splitCommand } from './wrap.ts';

const HELP = `usage: ficta run [options] [--] CMD [ARGS…]

Starts the proxy on a free loopback port with a random access token, runs CMD with
ANTHROPIC_BASE_URL and OPENAI_BASE_URL (and FICTA_URL) pointing at it, and exits with CMD's exit code.
ficta's own logs go to FICTA_HOME/run.log (warnings only unless --log-level is given).

${PROXY_OPTIONS_HELP}`;

/** Runs CMD behind the proxy. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  if (argv[0] === '--help' || argv[0] === '-h') {
    io.stdout.write(HELP);
    return 0;
  }
  const { own, command } = splitCommand(argv, PROXY_OPTIONS);
  const { values } = parseArgs({ args: own, options: PROXY_OPTIONS, strict: true, allowPositionals: false });
  const [cmd, ...args] = command;
  if (cmd === undefined) throw new FictaError('FICTA_USAGE', 'usage: ficta run [options] [--] CMD [ARGS…]');
  const { flags, configFile, keyFile } = proxyFlags(values);
  return runOrExitCode(() => runWrapped({ flags, configFile, keyFile, io, plan: (urls) => ({ command: cmd, args, env: baseUrlEnv(urls) }) }), io);
}

/** Maps "command not found" / "not executable" to the shell's 127 / 126. */
export async function runOrExitCode(start: () => Promise<number>, io: CliIo): Promise<number> {
  try {
    return await start();
  } catch (error) {
    if (isFictaError(error, 'FICTA_RUN_NOT_FOUND') || isFictaError(error, 'FICTA_RUN_NOT_EXECUTABLE')) {
      io.stderr.write(`ficta: ${error.message}\n`);
      return error.status ?? 127;
    }
    throw error;
  }
}
