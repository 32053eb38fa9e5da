// `ficta doctor [claude|codex|gemini|opencode] [--online] [--json]`: checks the config, FICTA_HOME, secrets, vault,
// upstreams (DNS only unless --online), the port, and what routing an agent would get. Exits 1 when a
// check fails. Never prints a value: names, counts, paths and modes only.

import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { lookup } from 'node:dns/promises';
import { createServer } from 'node:net';
import { parseArgs } from 'node:util';
import { resolveHome } from '../config/home.ts';
import { loadConfig } from '../config/load.ts';
import type { Config } from '../config/schema.ts';
import { FictaError } from '../errors.ts';
import { BUILT_IN_UPSTREAMS } from '../providers/upstreams.ts';
import { baseUrls, isLoopbackHost } from '../server/access.ts';
import { createEnvFileSource } from '../secrets/env-sources.ts';
import { placeholderKeyPath } from '../secrets/placeholder-key-file.ts';
import { filterEntries } from '../secrets/registry.ts';
import { detectCodexLogin } from './agent-codex.ts';
import { geminiSelectedAuth } from './agent-gemini.ts';
import { AGENTS, agentPlan, findAgent, isAgentName, type AgentName } from './agents.ts';
import type { CliIo } from './io.ts';
import { checkVault } from './doctor-vault.ts';

export type CheckLevel = 'ok' | 'warn' | 'fail';
export interface Check {
  level: CheckLevel;
  area: string;
  message: string;
}

/** Runs every check and prints them. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { online: { type: 'boolean' }, json: { type: 'boolean' }, config: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
  });
  if (values.help === true) {
    io.stdout.write('usage: ficta doctor [claude|codex|gemini|opencode] [--online] [--json] [--config FILE]\n');
    return 0;
  }
  for (const a of positionals) if (!isAgentName(a)) throw new FictaError('FICTA_USAGE', `usage: ficta doctor [${AGENTS.join('|')}]: unknown agent "${a}"`);
  const agents = positionals as AgentName[];
  const checks = await runChecks({ env: io.env, agents, online: values.online === true, configFile: values.config });
  if (values.json === true) io.stdout.write(`${JSON.stringify({ ok: !checks.some((c) => c.level === 'fail'), checks })}\n`);
  else for (const c of checks) io.stdout.write(`${c.level.padEnd(5)} ${c.area.padEnd(10)} ${c.message}\n`);
  return checks.some((c) => c.level === 'fail') ? 1 : 0;
}

export interface DoctorOptions {
  env: NodeJS.ProcessEnv;
  agents: AgentName[];
  online: boolean;
  configFile?: string | undefined;
}

/** All checks, in order. */
export async function runChecks(options: DoctorOptions): Promise<Check[]> {
  const checks: Check[] = [];
  const add = (level: CheckLevel, area: string, message: string): void => {
    checks.push({ level, area, message });
  };
  const home = resolveHome(options.env);
  const loaded = loadConfig({ env: options.env, ...(options.configFile === undefined ? {} : { configFile: options.configFile }) });
  if (!loaded.ok) {
    add('fail', 'config', loaded.error.message);
    return checks;
  }
  const config = loaded.value;
  add('ok', 'config', 'valid (flags > FICTA_* environment > config file)');

  checkHome(home, add);
  await checkSecrets(config, add);
  for (const c of await checkVault(config, options.env)) add(c.level, c.area, c.message);
  await checkUpstreams(config, options.online, add);
  if (!isLoopbackHost(config.host) && config.token === undefined) add('fail', 'access', `host ${config.host} is not loopback and no token is set; serve will refuse to start`);
  else add('ok', 'access', config.token === undefined ? 'loopback only, no token (ficta run/claude/codex always use a per-run token)' : 'token required');
  await checkPort(config, add);
  for (const agent of options.agents) await checkAgent(agent, options.env, add);
  return checks;
}

type Add = (level: CheckLevel, area: string, message: string) => void;

function checkHome(home: string, add: Add): void {
  try {
    const mode = statSync(home).mode & 0o777;
    if ((mode & 0o077) !== 0) add('warn', 'home', `${home} is mode ${mode.toString(8)}; expected 700 (ficta tightens it on next write)`);
    else add('ok', 'home', `${home} (mode 700)`);
  } catch {
    add('ok', 'home', `${home} does not exist yet; it is created (mode 700) on first use`);
  }
  try {
    const mode = statSync(placeholderKeyPath(home)).mode & 0o777;
    add(mode === 0o600 ? 'ok' : 'warn', 'keys', `placeholder key present (mode ${mode.toString(8)})`);
  } catch {
    add('ok', 'keys', 'no placeholder key file (created on first start, or held by the vault)');
  }
}

async function checkSecrets(config: Config, add: Add): Promise<void> {
  let total = 0;
  for (const path of config.secrets.envFiles) {
    const r = await createEnvFileSource(path).load();
    if (!r.ok) {
      add('fail', 'secrets', r.error.message);
      continue;
    }
    const { kept, skipped } = filterEntries(r.value);
    total += kept.length;
    add('ok', 'secrets', `${path}: ${kept.length} secret(s)`);
    if (skipped.length > 0) add('warn', 'secrets', `${path}: refused (too short or empty): ${skipped.map((s) => s.name).join(', ')}`);
  }
  if (config.secrets.env.length > 0) add('ok', 'secrets', `--secret-env names configured: ${config.secrets.env.join(', ')}`);
  if (config.secrets.envFiles.length > 0) add('ok', 'secrets', `${total} secret(s) from env files`);
}

async function checkUpstreams(config: Config, online: boolean, add: Add): Promise<void> {
  for (const [name, value] of Object.entries(config.upstreams)) {
    const url = typeof value === 'string' ? value : value.url;
    const host = new URL(url).hostname;
    try {
      await lookup(host);
      add('ok', 'upstream', `${name}: ${url} resolves`);
    } catch (e) {
      // A default the user never chose (say, Gemini for someone who only uses Claude) is worth a warning, not a failure.
      const chosen = (BUILT_IN_UPSTREAMS as Record<string, string>)[name] !== url;
      const code = (e as NodeJS.ErrnoException).code ?? 'error';
      if (chosen) add('fail', 'upstream', `${name}: ${url} does not resolve (${code})`);
      else add('warn', 'upstream', `${name}: ${url} (default) does not resolve (${code}); requests on /${name}/ will fail`);
      continue;
    }
    if (!online) continue;
    try {
      const res = await fetch(new URL('/v1/models', url), { signal: AbortSignal.timeout(5000) });
      await res.body?.cancel();
      add('ok', 'upstream', `${name}: reachable (HTTP ${res.status} without credentials)`);
    } catch (e) {
      add('fail', 'upstream', `${name}: not reachable (${(e as Error).name})`);
    }
  }
}

async function checkPort(config: Config, add: Add): Promise<void> {
  if (config.port === 0) {
    add('ok', 'port', 'port 0: a free port is picked at start');
    return;
  }
  const free = await new Promise<boolean>((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(config.port, config.host, () => s.close(() => resolve(true)));
  });
  add(free ? 'ok' : 'fail', 'port', `${config.host}:${config.port} ${free ? 'is free' : 'is in use (another ficta?)'}`);
}

async function checkAgent(agent: AgentName, env: NodeJS.ProcessEnv, add: Add): Promise<void> {
  const bin = findAgent(agent, env);
  if (bin === undefined) {
    add('fail', agent, `not found on PATH (install it, or set FICTA_${agent.toUpperCase()}_BIN)`);
    return;
  }
  const version = await new Promise<string>((resolve) => {
    execFile(bin, ['--version'], { timeout: 10_000, env: { ...env, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' } }, (err, stdout) => resolve(err === null ? stdout.trim().split('\n')[0] ?? '' : 'version unknown'));
  });
  add('ok', agent, `${bin} (${version})`);
  const urls = baseUrls(`http://127.0.0.1:<port>`, '<per-run token>');
  let plan;
  try {
    plan = agentPlan(agent, bin, [], urls, env);
  } catch (error) {
    add('fail', agent, (error as Error).message);
    return;
  }
  const shown = (names: string[]): string => names.map((n) => `${n}=${plan.env[n] ?? ''}`).join(' ');
  if (agent === 'claude') add('ok', agent, `ficta claude routes it with: ${shown(['ANTHROPIC_BASE_URL', 'CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC'])}`);
  if (agent === 'codex') {
    const login = detectCodexLogin(env);
    add('ok', agent, `login mode: ${login.mode === 'chatgpt' ? 'ChatGPT account' : 'API key'} (${login.reason}; ${login.authFile})`);
    add('ok', agent, `ficta codex routes it with: ${plan.args.filter((a) => a !== '-c').join(' ')}`);
    if (login.mode === 'api-key' && env.OPENAI_API_KEY === undefined) add('warn', agent, 'OPENAI_API_KEY is not set: the ficta model provider reads the API key from it');
  }
  if (agent === 'gemini') {
    add('ok', agent, `ficta gemini routes it with: ${shown(['GOOGLE_GEMINI_BASE_URL', 'GEMINI_TELEMETRY_ENABLED', 'HTTPS_PROXY', 'NO_PROXY'])}`);
    add('ok', agent, 'HTTPS_PROXY is the proxy itself, which refuses every tunnel: usage statistics, update checks and web fetches cannot bypass it');
    if (env.GEMINI_API_KEY === undefined) add('warn', agent, 'GEMINI_API_KEY is not set: Gemini CLI sends it as x-goog-api-key through the proxy');
    const selected = geminiSelectedAuth(env);
    if (selected !== 'gemini-api-key') add('warn', agent, `Gemini CLI auth type is ${selected ?? 'not set'}: only "gemini-api-key" sends its model traffic to GOOGLE_GEMINI_BASE_URL in headless runs (gemini -p); choose "Use Gemini API key" once, or set security.auth.selectedType in ~/.gemini/settings.json`);
  }
  if (agent === 'opencode') {
    // Only ficta's part of OPENCODE_CONFIG_CONTENT: the user's own part may hold an apiKey.
    const providers = (JSON.parse(plan.env.OPENCODE_CONFIG_CONTENT ?? '{}') as { provider: Record<string, { options: { baseURL: string } }> }).provider;
    const bases = ['anthropic', 'openai', 'google'].map((p) => `provider.${p}.options.baseURL=${providers[p]?.options.baseURL ?? ''}`);
    add('ok', agent, `ficta opencode routes it with OPENCODE_CONFIG_CONTENT ${bases.join(' ')} ${shown(['OPENCODE_DISABLE_MODELS_FETCH', 'OPENCODE_DISABLE_AUTOUPDATE'])}`);
  }
  if (agent === 'claude' && env.ANTHROPIC_API_KEY === undefined && env.ANTHROPIC_AUTH_TOKEN === undefined) add('warn', agent, 'no ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN: Claude Code uses its stored login (API key or Claude subscription), which also works through the base URL');
}
