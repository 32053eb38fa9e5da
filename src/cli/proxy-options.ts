// Command-line options shared by every command that starts a proxy (serve, run, claude, codex), and
// their translation into config flags (flags beat FICTA_* variables, which beat the config file).

import type { ParseArgsConfig } from 'node:util';
import { FictaError } from '../errors.ts';

export const PROXY_OPTIONS = {
  'env-file': { type: 'string', multiple: true },
  'secret-env': { type: 'string', multiple: true },
  'anthropic-upstream': { type: 'string' },
  'openai-upstream': { type: 'string' },
  config: { type: 'string' },
  'log-level': { type: 'string' },
  'log-format': { type: 'string' },
  'log-file': { type: 'string' },
  'max-body-bytes': { type: 'string' },
  'report-file': { type: 'string' },
  'fail-on-block': { type: 'boolean' },
  'no-vault': { type: 'boolean' },
  'key-file': { type: 'string' },
  detect: { type: 'string' },
  discover: { type: 'boolean' },
  'no-discover': { type: 'boolean' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

export const PROXY_OPTIONS_HELP = `  --env-file PATH          register every value of a dotenv file as a secret (repeatable)
  --secret-env NAME        register the value of environment variable NAME (repeatable)
  --no-vault               do not use the sealed vault even if it exists
  --key-file PATH          unlock a key-file vault (FICTA_VAULT_KEY_FILE); else FICTA_VAULT_PASSPHRASE or a prompt
  --anthropic-upstream URL Anthropic base URL (FICTA_ANTHROPIC_UPSTREAM)
  --openai-upstream URL    OpenAI base URL (FICTA_OPENAI_UPSTREAM)
  --config PATH            config file (default FICTA_HOME/config.toml)
  --log-level LEVEL        fatal|error|warn|info|debug|trace|silent (FICTA_LOG_LEVEL)
  --log-format json|text   log line format (FICTA_LOG_FORMAT; default json)
  --log-file PATH          write logs to PATH instead of stderr
  --max-body-bytes N       largest request body accepted (default 32 MiB)
  --report-file PATH       write the run report (JSON, names and counts only) on exit
  --fail-on-block          exit 3 at the end if any request was blocked
  --detect redact|block|off  credentials nobody registered: placeholder (default), 403, or ignore
  --discover               also load .env, .env.local, .env.*.local and secret-looking environment
                           variables when an env file or the vault is used (they are loaded by default otherwise)
  --no-discover            load only the secrets named by --env-file, --secret-env and the vault
`;

type Values = { [K in keyof typeof PROXY_OPTIONS]?: (typeof PROXY_OPTIONS)[K] extends { multiple: true } ? string[] : (typeof PROXY_OPTIONS)[K] extends { type: 'boolean' } ? boolean : string };

/** Config flags (schema-shaped) from parsed proxy options. */
export function proxyFlags(values: Values): { flags: Record<string, unknown>; configFile: string | undefined; keyFile: string | undefined } {
  const flags: Record<string, unknown> = {};
  const upstreams: Record<string, string> = {};
  if (values['anthropic-upstream'] !== undefined) upstreams.anthropic = values['anthropic-upstream'];
  if (values['openai-upstream'] !== undefined) upstreams.openai = values['openai-upstream'];
  if (Object.keys(upstreams).length > 0) flags.upstreams = upstreams;
  const secrets: Record<string, unknown> = {};
  if (values['env-file'] !== undefined) secrets.envFiles = values['env-file'];
  if (values['secret-env'] !== undefined) secrets.env = values['secret-env'];
  if (values['no-vault'] === true) secrets.vault = 'off';
  if (values.discover === true && values['no-discover'] === true) throw new FictaError('FICTA_USAGE', 'usage: --discover and --no-discover exclude each other');
  if (values.discover === true) secrets.discover = true;
  if (values['no-discover'] === true) secrets.discover = false;
  if (Object.keys(secrets).length > 0) flags.secrets = secrets;
  const log: Record<string, unknown> = {};
  if (values['log-level'] !== undefined) log.level = values['log-level'];
  if (values['log-format'] !== undefined) log.format = values['log-format'];
  if (values['log-file'] !== undefined) log.file = values['log-file'];
  if (Object.keys(log).length > 0) flags.log = log;
  if (values['max-body-bytes'] !== undefined) flags.limits = { maxBodyBytes: intFlag('--max-body-bytes', values['max-body-bytes']) };
  if (values['report-file'] !== undefined) flags.reportFile = values['report-file'];
  if (values['fail-on-block'] === true) flags.failOnBlock = true;
  if (values.detect !== undefined) {
    if (values.detect !== 'redact' && values.detect !== 'block' && values.detect !== 'off') throw new FictaError('FICTA_USAGE', 'usage: --detect must be redact, block or off');
    flags.detect = { mode: values.detect };
  }
  return { flags, configFile: values.config, keyFile: values['key-file'] };
}

/** Parses a whole-number flag or throws a usage error. */
export function intFlag(name: string, value: string): number {
  if (!/^\d+$/.test(value)) throw new FictaError('FICTA_USAGE', `usage: ${name} must be a whole number`);
  return Number(value);
}
