// `ficta serve`: run the redacting proxy. Prints exactly one line `ficta listening on http://H:P` on
// stdout when ready; SIGINT/SIGTERM stop accepting, let in-flight requests finish (10 s cap), exit 0.

import { parseArgs } from 'node:util';
import type { CliIo } from './io.ts';
import { intFlag, PROXY_OPTIONS, PROXY_OPTIONS_HELP, proxyFlags } from './proxy-options.ts';
import { describeBlocks, EXIT_BLOCKED, startSession } from './proxy-session.ts';
import { generateToken } from '../server/access.ts';

const HELP = `usage: ficta serve [options]

  --host H                 address to bind (default 127.0.0.1; FICTA_HOST)
  --port P                 port, 0 for any free port (default 8787; FICTA_PORT)
  --token T|auto           require /t/T/ in every request path (FICTA_TOKEN); "auto" makes one up.
                           Mandatory when --host is not a loopback address.
  --ready-file PATH        once listening, write the base URLs there (KEY=VALUE lines); removed on exit
${PROXY_OPTIONS_HELP}`;

/** Runs the proxy until SIGINT/SIGTERM. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...PROXY_OPTIONS,
      host: { type: 'string' },
      port: { type: 'string' },
      token: { type: 'string' },
      'ready-file': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help === true) {
    io.stdout.write(HELP);
    return 0;
  }
  const { flags, configFile, keyFile } = proxyFlags(values);
  if (values.host !== undefined) flags.host = values.host;
  if (values.port !== undefined) flags.port = intFlag('--port', values.port);
  if (values.token !== undefined) flags.token = values.token === 'auto' ? generateToken() : values.token;

  const session = await startSession({ flags, configFile, keyFile, env: io.env, stdin: io.stdin, stderr: io.stderr, readyFile: values['ready-file'] });
  io.stdout.write(`ficta listening on ${session.url}\n`);
  if (session.config.token !== undefined) {
    // The base URLs carry the token; they go to stderr so stdout stays the one line above.
    io.stderr.write(`ficta: base URLs: ANTHROPIC_BASE_URL=${session.baseUrls.anthropic} OPENAI_BASE_URL=${session.baseUrls.openai} GOOGLE_GEMINI_BASE_URL=${session.baseUrls.gemini}\n`);
  }

  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  const report = await session.stop();
  if (session.config.failOnBlock && report.blocks > 0) {
    io.stderr.write(`ficta: report: ${describeBlocks(report)}\n`);
    return EXIT_BLOCKED;
  }
  return 0;
}

