// `ficta doctor [claude|codex|gemini|opencode] [serve options] [--online] [--json]`: checks the exact
// command line you will run — config, FICTA_HOME, secrets (and whether anything would be protected),
// vault, upstreams (DNS only unless --online), the port, the token rule, and what routing an agent would
// get. Exits 1 when a check fails. Never prints a value: names, counts, paths and modes only.

import { loadConfig } from '../config/load.ts';
import { isLoopbackHost } from '../server/access.ts';
import { vaultExists } from '../vault/path.ts';
import { formatHelp, parseCommandLine, usageError, type CommandSpec } from './args.ts';
import { AGENTS, isAgentName, type AgentName } from './agents.ts';
import { checkAgent } from './doctor-agent.ts';
import { checkHome, checkPort, checkProtected, checkSecrets, checkUpstreams, type Check, type CheckLevel } from './doctor-checks.ts';
import { checkDetection, checkDiscovery } from './doctor-detect.ts';
import { checkVault } from './doctor-vault.ts';
import { EXIT_ERROR, EXIT_OK } from './exit-codes.ts';
import type { CliIo } from './io.ts';
import { proxyFlags, SERVE_OPTIONS } from './proxy-options.ts';

export const spec = {
  name: 'doctor',
  usage: 'doctor [claude|codex|gemini|opencode]… [serve options] [--online] [--json]',
  summary: 'check config, secrets, vault, upstreams, port and agent routing',
  description: `Checks what "ficta serve" (or an agent command: ficta claude, codex, gemini, opencode) would
do with the same options: the config, FICTA_HOME and key modes, the secrets (env files, --secret-env, the vault,
zero-config discovery), the detection mode and whether anything would be protected at all, the vault (unlocked for real when FICTA_VAULT_KEY_FILE or FICTA_VAULT_PASSPHRASE is
set), that the upstreams resolve, the port (free, or held by your own running ficta), the token rule, and
for each agent named: found, its version and the routing it would get. Exits 1 when a check fails.`,
  options: {
    ...SERVE_OPTIONS,
    online: { type: 'boolean', help: 'also send one unauthenticated request to each upstream' },
    json: { type: 'boolean', help: 'print {"ok":…,"checks":[…]} instead of a table' },
  },
  positionals: { name: 'AGENT', max: Infinity, complete: AGENTS },
} satisfies CommandSpec;

/** Runs every check and prints them. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const { help, values, positionals } = parseCommandLine(spec, argv);
  if (help) {
    io.stdout.write(formatHelp(spec));
    return EXIT_OK;
  }
  const agents: AgentName[] = [];
  for (const a of positionals) {
    if (!isAgentName(a)) throw usageError(spec, `unknown agent (${AGENTS.join(', ')})`);
    agents.push(a);
  }
  const { flags, configFile, keyFile } = proxyFlags(values, 'doctor');
  const checks = await runChecks({ env: io.env, cwd: io.cwd, agents, online: values.online === true, configFile, keyFile, flags });
  const failed = checks.some((c) => c.level === 'fail');
  if (values.json === true) io.stdout.write(`${JSON.stringify({ ok: !failed, checks })}\n`);
  else for (const c of checks) io.stdout.write(`${c.level.padEnd(5)} ${c.area.padEnd(10)} ${c.message}\n`);
  return failed ? EXIT_ERROR : EXIT_OK;
}

export interface DoctorOptions {
  env: NodeJS.ProcessEnv;
  agents: AgentName[];
  online: boolean;
  configFile?: string | undefined;
  /** The same flags serve would get. */
  flags?: Record<string, unknown>;
  /** `--key-file`, as serve would unlock the vault with it. */
  keyFile?: string | undefined;
  /** Where discovery would look; default process.cwd(). */
  cwd?: string | undefined;
}

/** All checks, in order. */
export async function runChecks(options: DoctorOptions): Promise<Check[]> {
  const checks: Check[] = [];
  const add = (level: CheckLevel, area: string, message: string): void => {
    checks.push({ level, area, message });
  };
  const loaded = loadConfig({ env: options.env, flags: options.flags ?? {}, ...(options.configFile === undefined ? {} : { configFile: options.configFile }) });
  if (!loaded.ok) {
    add('fail', 'config', loaded.error.message);
    return checks;
  }
  const config = loaded.value;
  add('ok', 'config', 'valid (flags > FICTA_* environment > config file)');

  checkHome(config.home, add);
  let total = await checkSecrets(config, options.env, add);
  const vault = await checkVault(config, options.env, options.keyFile);
  for (const c of vault.checks) add(c.level, c.area, c.message);
  total += vault.records;
  total += checkDiscovery(config, options.env, options.cwd ?? process.cwd(), config.secrets.vault !== 'off' && vaultExists(config.home), add);
  checkDetection(config, add);
  checkProtected(total, config.detect.mode !== 'off', add);
  await checkUpstreams(config, options.online, add);
  if (!isLoopbackHost(config.host) && config.token === undefined) add('fail', 'access', `host ${config.host} is not loopback and no token is set; serve will refuse to start`);
  else add('ok', 'access', config.token === undefined ? 'loopback only, no token (ficta run and the agent commands always use a per-run token)' : 'token required');
  await checkPort(config, add);
  for (const agent of options.agents) await checkAgent(agent, options.env, add);
  return checks;
}
