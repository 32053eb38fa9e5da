// The agents ficta wraps, where to find them, and what each needs to send all its model traffic through
// the proxy (and none around it): Claude Code honours ANTHROPIC_BASE_URL; Codex needs a model-provider
// override that depends on its login; Gemini CLI honours GOOGLE_GEMINI_BASE_URL; opencode reads its
// provider base URLs from OPENCODE_CONFIG_CONTENT. Each also sends side traffic to its vendor unless told
// not to (see docs/agents.md). Remote MCP servers go through the proxy's /mcp/<name> route (docs/mcp.md).

import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { BaseUrls } from '../server/access.ts';
import { codexOverrides, detectCodexLogin } from './agent-codex.ts';
import { geminiEnv } from './agent-gemini.ts';
import { opencodeEnv } from './agent-opencode.ts';
import { baseUrlEnv, type WrapPlan } from './wrap.ts';
import type { FoundServer } from '../mcp/found.ts';
import { claudeOverlay, codexOverlay, opencodeOverlay } from '../mcp/overlay.ts';

export type AgentName = 'claude' | 'codex' | 'gemini' | 'opencode';

export const AGENTS: readonly AgentName[] = ['claude', 'codex', 'gemini', 'opencode'];

/** The executable each agent installs. */
const BINARY: Record<AgentName, string> = { claude: 'claude', codex: 'codex', gemini: 'gemini', opencode: 'opencode' };

/** True for a name `ficta <agent>` and `ficta doctor <agent>` accept. */
export function isAgentName(name: string): name is AgentName {
  return (AGENTS as readonly string[]).includes(name);
}

/** How to run an agent behind a proxy with these base URLs; `mcp`: its MCP servers, the remote ones carried through the proxy. */
export function agentPlan(agent: AgentName, bin: string, userArgs: string[], urls: BaseUrls, env: NodeJS.ProcessEnv, mcp: readonly FoundServer[] = []): WrapPlan {
  switch (agent) {
    case 'claude': {
      const overlay = claudeOverlay(urls.root, mcp);
      return {
        command: bin,
        args: [...(overlay?.args ?? []), ...userArgs],
        ...(overlay === undefined ? {} : { cleanup: overlay.cleanup }),
        env: {
          ...baseUrlEnv(urls),
          // Without it Claude Code opens ~6 connections per run (telemetry, metrics, bootstrap) that bypass the base URL.
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC ?? '1',
        },
      };
    }
    case 'codex':
      return { command: bin, args: [...codexOverrides(urls, detectCodexLogin(env)), ...codexOverlay(urls.root, mcp), ...userArgs], env: baseUrlEnv(urls) };
    case 'gemini':
      return { command: bin, args: userArgs, env: { ...baseUrlEnv(urls), ...geminiEnv(urls) } };
    case 'opencode':
      return { command: bin, args: userArgs, env: { ...baseUrlEnv(urls), ...opencodeEnv(urls, env, opencodeOverlay(urls.root, mcp)) } };
  }
}

/** The agent's executable: FICTA_<AGENT>_BIN, else the first on PATH; undefined if none. */
export function findAgent(agent: AgentName, env: NodeJS.ProcessEnv): string | undefined {
  const override = env[`FICTA_${agent.toUpperCase()}_BIN`];
  if (override !== undefined && override !== '') return override;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, BINARY[agent]);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}
