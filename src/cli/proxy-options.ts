// Command-line options shared by every command that starts a proxy (serve, run, the agent commands)
// and by doctor, which checks the same command line; and their translation into config flags (flags
// beat FICTA_* variables, which beat the config file).

import type { OptionsSpec, OptionValues } from './args.ts';
import { usageError } from './args.ts';
import { namedUpstreamProblem, routeName } from '../providers/upstreams.ts';
import { generateToken } from '../server/access.ts';
import { parseHostPattern } from '../sinks/hosts.ts';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const DETECT_MODES = ['redact', 'block', 'off'] as const;

/** Secrets, upstreams, logs and limits: every proxy command takes these. */
export const PROXY_OPTIONS = {
  'env-file': { type: 'string', multiple: true, value: 'PATH', complete: 'file', help: 'register every value of a dotenv file as a secret' },
  'secret-env': { type: 'string', multiple: true, value: 'NAME', help: 'register the value of environment variable NAME (an error when unset)' },
  'allow-missing': { type: 'boolean', help: 'start even when a --secret-env variable is not set (secrets.allowMissing)' },
  'require-secrets': { type: 'boolean', help: 'refuse to start when nothing would be protected (secrets.require)' },
  'no-vault': { type: 'boolean', help: 'do not use the sealed vault even if it exists (secrets.vault = "off")' },
  'key-file': { type: 'string', value: 'PATH', complete: 'file', help: 'unlock a key-file vault (FICTA_VAULT_KEY_FILE); else FICTA_VAULT_PASSPHRASE or a prompt' },
  'anthropic-upstream': { type: 'string', value: 'URL', help: 'Anthropic base URL (FICTA_ANTHROPIC_UPSTREAM)' },
  'openai-upstream': { type: 'string', value: 'URL', help: 'OpenAI base URL (FICTA_OPENAI_UPSTREAM)' },
  'gemini-upstream': { type: 'string', value: 'URL', help: 'Gemini base URL (FICTA_GEMINI_UPSTREAM)' },
  'ollama-upstream': { type: 'string', value: 'URL', help: 'Ollama base URL (FICTA_OLLAMA_UPSTREAM; default http://127.0.0.1:11434)' },
  'chatgpt-upstream': { type: 'string', value: 'URL', help: 'ChatGPT backend for Codex signed in with ChatGPT (FICTA_CHATGPT_UPSTREAM)' },
  upstream: { type: 'string', multiple: true, value: 'NAME=URL', help: 'a named upstream, routed at /NAME/… (FICTA_UPSTREAM_<NAME>=URL)' },
  config: { type: 'string', value: 'PATH', complete: 'file', help: 'config file (default FICTA_HOME/config.toml)' },
  'log-level': { type: 'string', value: 'LEVEL', choices: LOG_LEVELS, help: `${LOG_LEVELS.join('|')} (FICTA_LOG_LEVEL)` },
  'log-format': {
    type: 'string',
    value: 'FORMAT',
    choices: ['auto', 'json', 'text'],
    help: 'auto|json|text (FICTA_LOG_FORMAT). auto: readable, coloured lines on a terminal,\nJSON otherwise; json: every line ficta writes to stderr is JSON',
  },
  'log-file': { type: 'string', value: 'PATH', complete: 'file', help: 'write logs to PATH instead of stderr' },
  'max-body-bytes': { type: 'string', value: 'N', help: 'largest request body accepted (default 32 MiB)' },
  'report-file': { type: 'string', value: 'PATH', complete: 'file', help: 'write the run report (JSON, names and counts only) on exit' },
  'fail-on-block': { type: 'boolean', help: 'exit 3 at the end if any request was blocked' },
  'allow-host': {
    type: 'string',
    multiple: true,
    value: 'HOST',
    help: 'let every secret be restored into tool calls that reach HOST\n(*.example.com covers subdomains; restore.allowHosts)',
  },
  detect: {
    type: 'string',
    value: 'MODE',
    choices: DETECT_MODES,
    help: 'credentials nobody registered: redact (a placeholder, the default), block (403)\nor off (FICTA_DETECT; detect.mode)',
  },
  term: {
    type: 'string',
    multiple: true,
    value: 'WORD|NAME=WORD',
    help: 'a word that must not leave (code name, customer, host), in any case on word\nboundaries; redacted and restored like a secret (secrets.terms)',
  },
  discover: {
    type: 'boolean',
    help: 'also register .env, .env.local, .env.*.local and secret-looking environment variables\nwhen an env file or the vault is used (they are by default otherwise; secrets.discover)',
  },
  'no-discover': { type: 'boolean', help: 'register only what --env-file, --secret-env and the vault name (secrets.discover = false)' },
  'no-ui': { type: 'boolean', help: 'serve no dashboard at /_ficta/ (ui.enabled = false; ficta ui opens it otherwise)' },
} as const satisfies OptionsSpec;

/** Where and how `ficta serve` listens; doctor takes them too. */
export const LISTEN_OPTIONS = {
  host: { type: 'string', value: 'HOST', help: 'address to bind (default 127.0.0.1; FICTA_HOST)' },
  port: { type: 'string', value: 'PORT', help: 'port, 0 for any free port (default 8787; FICTA_PORT)' },
  token: {
    type: 'string',
    value: 'T|auto',
    help: 'require /t/T/ in every request path (FICTA_TOKEN); "auto" makes one up.\nMandatory when --host is not a loopback address',
  },
  'ready-file': { type: 'string', value: 'PATH', complete: 'file', help: 'once listening, write the base URLs there (KEY=VALUE lines); removed on exit' },
  'show-token': { type: 'boolean', help: 'print the base URLs with the whole token (masked by default)' },
} as const satisfies OptionsSpec;

/** Every option of `ficta serve` (doctor accepts the same command line). */
export const SERVE_OPTIONS = { ...LISTEN_OPTIONS, ...PROXY_OPTIONS } as const satisfies OptionsSpec;

/** `ficta run` and the agent commands. */
export const WRAP_OPTIONS = {
  ...PROXY_OPTIONS,
  quiet: { type: 'boolean', short: 'q', help: 'no summary on stderr after the command ends' },
} as const satisfies OptionsSpec;

type ServeValues = OptionValues<typeof SERVE_OPTIONS>;

/** Config flags (schema-shaped) from parsed options. */
export function proxyFlags(values: Partial<ServeValues>, command = 'serve'): { flags: Record<string, unknown>; configFile: string | undefined; keyFile: string | undefined } {
  const flags: Record<string, unknown> = {};
  const upstreams: Record<string, unknown> = {};
  if (values['anthropic-upstream'] !== undefined) upstreams.anthropic = values['anthropic-upstream'];
  if (values['openai-upstream'] !== undefined) upstreams.openai = values['openai-upstream'];
  if (values['gemini-upstream'] !== undefined) upstreams.gemini = values['gemini-upstream'];
  if (values['ollama-upstream'] !== undefined) upstreams.ollama = values['ollama-upstream'];
  if (values['chatgpt-upstream'] !== undefined) upstreams.chatgpt = values['chatgpt-upstream'];
  for (const named of values.upstream ?? []) {
    const eq = named.indexOf('=');
    const name = eq === -1 ? '' : named.slice(0, eq);
    if (eq <= 0 || eq === named.length - 1) throw usageError({ name: command }, '--upstream takes NAME=URL (e.g. --upstream openrouter=https://openrouter.ai)');
    const problem = namedUpstreamProblem(name);
    if (problem !== undefined) throw usageError({ name: command }, `--upstream: ${problem}`);
    upstreams[routeName(name)] = { url: named.slice(eq + 1) };
  }
  if (Object.keys(upstreams).length > 0) flags.upstreams = upstreams;
  const secrets: Record<string, unknown> = {};
  if (values['env-file'] !== undefined) secrets.envFiles = values['env-file'];
  if (values['secret-env'] !== undefined) secrets.env = values['secret-env'];
  if (values['no-vault'] === true) secrets.vault = 'off';
  if (values['allow-missing'] === true) secrets.allowMissing = true;
  if (values['require-secrets'] === true) secrets.require = true;
  if (values.discover === true && values['no-discover'] === true) throw usageError({ name: command }, '--discover and --no-discover exclude each other');
  if (values.discover === true) secrets.discover = true;
  if (values['no-discover'] === true) secrets.discover = false;
  if (values.term !== undefined) secrets.terms = values.term;
  if (Object.keys(secrets).length > 0) flags.secrets = secrets;
  const log: Record<string, unknown> = {};
  if (values['log-level'] !== undefined) log.level = values['log-level'];
  if (values['log-format'] !== undefined) log.format = values['log-format'];
  if (values['log-file'] !== undefined) log.file = values['log-file'];
  if (Object.keys(log).length > 0) flags.log = log;
  if (values['max-body-bytes'] !== undefined) flags.limits = { maxBodyBytes: intFlag(command, '--max-body-bytes', values['max-body-bytes']) };
  if (values['report-file'] !== undefined) flags.reportFile = values['report-file'];
  if (values['fail-on-block'] === true) flags.failOnBlock = true;
  if (values.host !== undefined) flags.host = values.host;
  if (values.port !== undefined) flags.port = intFlag(command, '--port', values.port);
  if (values.token !== undefined) flags.token = values.token === 'auto' ? generateToken() : values.token;
  if (values['allow-host'] !== undefined) {
    flags.restore = {
      allowHosts: values['allow-host'].map((h) => {
        const parsed = parseHostPattern(h);
        if (!parsed.ok) throw usageError({ name: command }, `--allow-host: ${parsed.error.message}`);
        return parsed.value;
      }),
    };
  }
  if (values.detect !== undefined) flags.detect = { mode: values.detect };
  if (values['no-ui'] === true) flags.ui = { enabled: false };
  return { flags, configFile: values.config, keyFile: values['key-file'] };
}

/** Parses a whole-number flag or throws a usage error (the value itself is not repeated). */
export function intFlag(command: string, name: string, value: string): number {
  if (!/^\d+$/.test(value)) throw usageError({ name: command }, `${name} must be a whole number`);
  return Number(value);
}

/**
 * Whether ficta's own stderr lines should be JSON, read from the arguments before they are parsed (so
 * even a usage error is JSON): `--log-format json` among ficta's own options (before `--` or the command
 * to run), or FICTA_LOG_FORMAT=json.
 */
export function wantsJson(argv: readonly string[], env: NodeJS.ProcessEnv, options: OptionsSpec = SERVE_OPTIONS): boolean {
  let format = env.FICTA_LOG_FORMAT;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--' || !a.startsWith('-')) break;
    if (a === '--log-format') format = argv[++i];
    else if (a.startsWith('--log-format=')) format = a.slice('--log-format='.length);
    else if (!a.includes('=') && options[a.replace(/^--?/, '')]?.type === 'string') i++;
  }
  return format === 'json';
}
