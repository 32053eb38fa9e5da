// `ficta gateway`: one ficta fleet for an organisation (DESIGN §11). Dispatches to the running gateway
// (gateway-serve.ts) and the subcommands (gateway-check.ts, gateway-init.ts, gateway-tokens.ts); the
// command and its options are declared in gateway-spec.ts.

import { findSubcommand, formatHelp, parseCommandLine } from './args.ts';
import { EXIT_OK } from './exit-codes.ts';
import { GATEWAY_OPTIONS, spec, SUBCOMMAND_SPECS } from './gateway-spec.ts';
import type { CliIo } from './io.ts';
import { wantsJson } from './proxy-options.ts';
import { reportError } from './report-error.ts';

export { spec };

/** Runs `ficta gateway …` and returns the exit code. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const json = wantsJson(argv, io.env, GATEWAY_OPTIONS);
  try {
    const [word, ...rest] = argv;
    if (word === undefined || word.startsWith('-')) {
      const { help, values } = parseCommandLine(spec, argv);
      if (help) {
        io.stdout.write(formatHelp(spec));
        return EXIT_OK;
      }
      return await (await import('./gateway-serve.ts')).serveGateway(values, io);
    }
    if (word === 'help') {
      io.stdout.write(formatHelp(spec));
      return EXIT_OK;
    }
    const sub = findSubcommand(spec, word);
    const parsed = parseCommandLine(sub, rest);
    if (parsed.help) {
      io.stdout.write(formatHelp(sub));
      return EXIT_OK;
    }
    const values = parsed.values as Record<string, string | boolean | string[] | undefined>;
    if (sub === SUBCOMMAND_SPECS.check) return await (await import('./gateway-check.ts')).runCheck(values, io);
    if (sub === SUBCOMMAND_SPECS.init) return (await import('./gateway-init.ts')).runInit(parsed.positionals[0] as string, io);
    return (await import('./gateway-tokens.ts')).runToken(parsed.positionals, values, io);
  } catch (error) {
    return reportError(error, io.stderr, json);
  }
}
