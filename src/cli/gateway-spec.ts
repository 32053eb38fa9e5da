// The declaration of `ficta gateway` and its subcommands (help, completion and "did you mean" come from
// it), apart from gateway.ts so the subcommands' modules can read the options without an import cycle.

import type { CommandSpec, OptionsSpec } from './args.ts';
import { PROXY_OPTIONS } from './proxy-options.ts';

const CONFIG = {
  config: { type: 'string', value: 'PATH', complete: 'file', help: 'the gateway config (FICTA_CONFIG; default FICTA_HOME/config.toml)' },
} as const satisfies OptionsSpec;
const JSON_OUT = { json: { type: 'boolean', help: 'print the result as JSON' } } as const satisfies OptionsSpec;

/** `ficta gateway [options]`: the options of the running gateway. */
export const GATEWAY_OPTIONS = {
  ...CONFIG,
  host: { type: 'string', value: 'HOST', help: 'address of the public listener (default 0.0.0.0; FICTA_HOST)' },
  port: { type: 'string', value: 'PORT', help: 'port of the public listener, 0 for any (default 8787; FICTA_PORT)' },
  'admin-host': { type: 'string', value: 'HOST', help: 'address of the admin listener: /healthz /readyz /metrics (default 127.0.0.1)' },
  'admin-port': { type: 'string', value: 'PORT', help: 'port of the admin listener, 0 for any (default 9787)' },
  'ready-file': { type: 'string', value: 'PATH', complete: 'file', help: 'once listening, write FICTA_LISTEN= and FICTA_ADMIN= there; removed on exit' },
  'anthropic-upstream': PROXY_OPTIONS['anthropic-upstream'],
  'openai-upstream': PROXY_OPTIONS['openai-upstream'],
  'gemini-upstream': PROXY_OPTIONS['gemini-upstream'],
  'ollama-upstream': PROXY_OPTIONS['ollama-upstream'],
  'chatgpt-upstream': PROXY_OPTIONS['chatgpt-upstream'],
  upstream: PROXY_OPTIONS.upstream,
  'log-level': PROXY_OPTIONS['log-level'],
  'log-file': PROXY_OPTIONS['log-file'],
} as const satisfies OptionsSpec;

export const SUBCOMMAND_SPECS = {
  check: {
    name: 'gateway check',
    usage: 'gateway check [--config PATH] [--json]',
    summary: 'validate the config, the key, the token file and every source, without serving',
    description: 'Loads everything a gateway would (config, key file, token file, every [[sources]] entry) and says what is wrong,\none line per problem, exit 1; or one line "ok" with counts, exit 0. Like nginx -t.',
    options: { ...CONFIG, ...JSON_OUT },
  },
  init: {
    name: 'gateway init',
    usage: 'gateway init DIR',
    summary: 'write a starter config, a key file and an empty token file into DIR',
    description: 'Writes DIR/gateway.toml, DIR/gateway.key (0600; every instance shares it) and DIR/tokens.json; never over an existing file.',
    options: {},
    positionals: { name: 'DIR', min: 1, max: 1, complete: 'dir' },
  },
  token: {
    name: 'gateway token',
    usage: 'gateway token add NAME [--group G]… [--config PATH]\ngateway token list [--config PATH] [--json]\ngateway token revoke NAME [--config PATH]',
    summary: 'add, list or revoke tenants\' tokens',
    description: `add prints a new token once, exactly the token on stdout (one line), and stores only its SHA-256 in the
token file the config names; list shows names, groups, created and last used, never tokens; revoke stops a
token (running instances see the change within gateway.tokensPoll, or at once on SIGHUP).`,
    options: { ...CONFIG, group: { type: 'string', multiple: true, value: 'G', help: 'add: a group of the tenant (sources name the groups entitled to them)' }, ...JSON_OUT },
    positionals: { name: 'add NAME | list | revoke NAME', min: 1, max: 2 },
  },
} as const satisfies Record<string, CommandSpec>;

export const spec: CommandSpec = {
  name: 'gateway',
  usage: 'gateway [--config PATH] [options]\ngateway <command> [options]',
  summary: 'run ficta as an organisation\'s gateway: tenants, shared sources, admin listener',
  description: `Runs the proxy with the gateway's rules until SIGTERM: every request carries a tenant's token (…/t/<token>/… in the
base URL, or the x-ficta-token header); secrets come from the config's [[sources]]; placeholders are per
tenant and restored only for tenants entitled to their source. A public listener (default 0.0.0.0:8787) and
an admin listener (default 127.0.0.1:9787: /healthz, /readyz, /metrics). Request lines (the audit trail) are
JSON on stdout; other log lines JSON on stderr.
SIGTERM: /readyz answers 503 at once, requests are accepted for gateway.drainDelay, then the listener closes
and requests in flight get up to gateway.drainTimeout; exit 0. SIGHUP reloads the config, the token file
and every source (a changed config or token file is also seen by itself; [[sources]] added, removed or
changed apply live; config keys that cannot change live are named as needing a restart).`,
  options: GATEWAY_OPTIONS,
  subcommands: Object.values(SUBCOMMAND_SPECS),
  footer: 'Clients: ANTHROPIC_BASE_URL=https://GATEWAY/t/<token>/anthropic  OPENAI_BASE_URL=https://GATEWAY/t/<token>/openai/v1',
};
