// What Claude Code and Codex need to send all their model traffic through ficta, and where to find
// them. Claude Code honours ANTHROPIC_BASE_URL (a path prefix is kept); Codex ignores OPENAI_BASE_URL
// and needs a model-provider override. Both send other traffic straight to their vendors unless told
// not to (see README "Agents").

import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { BaseUrls } from '../server/access.ts';
import { baseUrlEnv, type WrapPlan } from './wrap.ts';

export type AgentName = 'claude' | 'codex';

/** The provider name ficta registers in Codex. */
export const CODEX_PROVIDER = 'ficta';

/** Command-line overrides (`-c key=value`, values in TOML) that route Codex through ficta. */
export function codexOverrides(urls: BaseUrls, envKey = 'OPENAI_API_KEY'): string[] {
  const p = `model_providers.${CODEX_PROVIDER}`;
  const pairs = [
    `model_provider="${CODEX_PROVIDER}"`,
    `${p}.name="ficta"`,
    // Codex appends /responses to a base URL that ends in /v1.
    `${p}.base_url="${urls.openai}"`,
    `${p}.wire_api="responses"`,
    `${p}.env_key="${envKey}"`,
    // Codex would first try a WebSocket upgrade; ficta answers 426, this skips the attempts.
    `${p}.supports_websockets=false`,
    // Its other traffic (analytics, plugin fetches) goes straight to the vendor.
    'analytics.enabled=false',
    'features.plugins=false',
  ];
  return pairs.flatMap((kv) => ['-c', kv]);
}

/** How to run an agent behind a proxy with these base URLs. */
export function agentPlan(agent: AgentName, bin: string, userArgs: string[], urls: BaseUrls, env: NodeJS.ProcessEnv): WrapPlan {
  if (agent === 'claude') {
    return {
      command: bin,
      args: userArgs,
      env: {
        ...baseUrlEnv(urls),
        // Without it Claude Code opens ~6 connections per run (telemetry, metrics, bootstrap) that bypass the base URL.
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC ?? '1',
      },
    };
  }
  return { command: bin, args: [...codexOverrides(urls), ...userArgs], env: baseUrlEnv(urls) };
}

/** The agent's executable: FICTA_CLAUDE_BIN / FICTA_CODEX_BIN, else the first on PATH; undefined if none. */
export function findAgent(agent: AgentName, env: NodeJS.ProcessEnv): string | undefined {
  const override = agent === 'claude' ? env.FICTA_CLAUDE_BIN : env.FICTA_CODEX_BIN;
  if (override !== undefined && override !== '') return override;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, agent);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}
