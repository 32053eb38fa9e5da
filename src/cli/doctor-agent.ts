// The agent checks of `ficta doctor claude|codex|gemini|opencode`: the agent is installed, its version,
// and the exact routing `ficta <agent>` would give it (Codex's login mode, Gemini CLI's auth type). Never
// a value: only ficta's own part of an agent's configuration is shown, and its MCP servers by name, kind and host.

import { execFile } from 'node:child_process';
import { baseUrls } from '../server/access.ts';
import { detectCodexLogin } from './agent-codex.ts';
import { geminiSelectedAuth } from './agent-gemini.ts';
import { agentPlan, findAgent, type AgentName } from './agents.ts';
import type { AddCheck } from './doctor-checks.ts';
import type { WrapPlan } from './wrap.ts';
import { checkAgentMcp } from './doctor-mcp.ts';

/** The agent is installed, its version, and the routing `ficta <agent>` would give it. */
export async function checkAgent(agent: AgentName, env: NodeJS.ProcessEnv, add: AddCheck): Promise<void> {
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
  let plan: WrapPlan;
  try {
    plan = agentPlan(agent, bin, [], urls, env);
  } catch (error) {
    add('fail', agent, (error as Error).message);
    return;
  }
  checkAgentMcp(agent, env, process.cwd(), add);
  const shown = (names: string[]): string => names.map((n) => `${n}=${plan.env[n] ?? ''}`).join(' ');
  switch (agent) {
    case 'claude':
      add('ok', agent, `ficta claude routes it with: ${shown(['ANTHROPIC_BASE_URL', 'CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC'])}`);
      if (env.ANTHROPIC_API_KEY === undefined && env.ANTHROPIC_AUTH_TOKEN === undefined) {
        add('warn', agent, 'no ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN: Claude Code uses its stored login (API key or Claude subscription), which also works through the base URL');
      }
      return;
    case 'codex': {
      const login = detectCodexLogin(env);
      add('ok', agent, `login mode: ${login.mode === 'chatgpt' ? 'ChatGPT account' : 'API key'} (${login.reason}; ${login.authFile})`);
      add('ok', agent, `ficta codex routes it with: ${plan.args.filter((a) => a !== '-c').join(' ')}`);
      if (login.mode === 'api-key' && env.OPENAI_API_KEY === undefined) add('warn', agent, 'OPENAI_API_KEY is not set: the ficta model provider reads the API key from it');
      return;
    }
    case 'gemini': {
      add('ok', agent, `ficta gemini routes it with: ${shown(['GOOGLE_GEMINI_BASE_URL', 'GEMINI_TELEMETRY_ENABLED', 'HTTPS_PROXY', 'NO_PROXY'])}`);
      add('ok', agent, 'HTTPS_PROXY is the proxy itself, which refuses every tunnel: usage statistics, update checks and web fetches cannot bypass it');
      if (env.GEMINI_API_KEY === undefined) add('warn', agent, 'GEMINI_API_KEY is not set: Gemini CLI sends it as x-goog-api-key through the proxy');
      const selected = geminiSelectedAuth(env);
      if (selected !== 'gemini-api-key') {
        add(
          'warn',
          agent,
          `Gemini CLI auth type is ${selected ?? 'not set'}: only "gemini-api-key" sends its model traffic to GOOGLE_GEMINI_BASE_URL in headless runs (gemini -p); choose "Use Gemini API key" once, or set security.auth.selectedType in ~/.gemini/settings.json`,
        );
      }
      return;
    }
    case 'opencode': {
      // Only ficta's part of OPENCODE_CONFIG_CONTENT: the user's own part may hold an apiKey.
      const providers = (JSON.parse(plan.env.OPENCODE_CONFIG_CONTENT ?? '{}') as { provider: Record<string, { options: { baseURL: string } }> }).provider;
      const bases = ['anthropic', 'openai', 'google'].map((p) => `provider.${p}.options.baseURL=${providers[p]?.options.baseURL ?? ''}`);
      add('ok', agent, `ficta opencode routes it with OPENCODE_CONFIG_CONTENT ${bases.join(' ')} ${shown(['OPENCODE_DISABLE_MODELS_FETCH', 'OPENCODE_DISABLE_AUTOUPDATE'])}`);
      return;
    }
  }
}
