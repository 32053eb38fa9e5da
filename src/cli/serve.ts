// `ficta serve`: run the redacting proxy. Prints exactly one line `ficta listening on http://H:P` on
// stdout when ready; SIGINT/SIGTERM stop accepting, let in-flight requests finish (10 s cap), exit 0.

import { parseArgs } from 'node:util';
import { loadConfig } from '../config/load.ts';
import { FictaError } from '../errors.ts';
import { createFicta } from '../index.ts';
import type { CliIo } from './io.ts';

const HELP = `usage: ficta serve [options]

  --host H                 address to bind (default 127.0.0.1; FICTA_HOST)
  --port P                 port, 0 for any free port (default 8787; FICTA_PORT)
  --env-file PATH          register every value of a dotenv file as a secret (repeatable)
  --secret-env NAME        register the value of environment variable NAME (repeatable)
  --anthropic-upstream URL Anthropic base URL (FICTA_ANTHROPIC_UPSTREAM)
  --openai-upstream URL    OpenAI base URL (FICTA_OPENAI_UPSTREAM)
  --config PATH            config file (default FICTA_HOME/config.toml)
  --log-level LEVEL        fatal|error|warn|info|debug|trace|silent (FICTA_LOG_LEVEL)
  --max-body-bytes N       largest request body accepted (default 32 MiB)
`;

/** Runs the proxy until SIGINT/SIGTERM. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      'env-file': { type: 'string', multiple: true },
      'secret-env': { type: 'string', multiple: true },
      'anthropic-upstream': { type: 'string' },
      'openai-upstream': { type: 'string' },
      config: { type: 'string' },
      'log-level': { type: 'string' },
      'max-body-bytes': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help === true) {
    io.stdout.write(HELP);
    return 0;
  }
  const flags: Record<string, unknown> = {};
  if (values.host !== undefined) flags.host = values.host;
  if (values.port !== undefined) flags.port = intFlag('--port', values.port);
  const upstreams: Record<string, string> = {};
  if (values['anthropic-upstream'] !== undefined) upstreams.anthropic = values['anthropic-upstream'];
  if (values['openai-upstream'] !== undefined) upstreams.openai = values['openai-upstream'];
  if (Object.keys(upstreams).length > 0) flags.upstreams = upstreams;
  const secrets: Record<string, unknown> = {};
  if (values['env-file'] !== undefined) secrets.envFiles = values['env-file'];
  if (values['secret-env'] !== undefined) secrets.env = values['secret-env'];
  if (Object.keys(secrets).length > 0) flags.secrets = secrets;
  if (values['log-level'] !== undefined) flags.log = { level: values['log-level'] };
  if (values['max-body-bytes'] !== undefined) flags.limits = { maxBodyBytes: intFlag('--max-body-bytes', values['max-body-bytes']) };

  const loaded = loadConfig({ flags, env: io.env, ...(values.config === undefined ? {} : { configFile: values.config }) });
  if (!loaded.ok) throw loaded.error;
  const config = loaded.value;

  const ficta = await createFicta({ config, env: io.env });
  let running;
  try {
    running = await ficta.listen();
  } catch (cause) {
    await ficta.close();
    const code = (cause as NodeJS.ErrnoException).code ?? 'error';
    throw new FictaError('FICTA_LISTEN_FAILED', `serve: cannot listen on ${config.host}:${config.port} (${code})`, { cause });
  }
  io.stdout.write(`ficta listening on ${running.url}\n`);

  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await ficta.close();
  return 0;
}

function intFlag(name: string, value: string): number {
  if (!/^\d+$/.test(value)) throw new FictaError('FICTA_USAGE', `usage: ${name} must be a whole number`);
  return Number(value);
}
