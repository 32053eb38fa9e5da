// The MCP servers of the agent `ficta <agent>` runs, read from that agent's own configuration.

import type { FoundServers } from './found.ts';
import { readClaudeMcp } from './read-claude.ts';
import { readCodexMcp } from './read-codex.ts';
import { readGeminiMcp } from './read-gemini.ts';
import { readOpencodeMcp } from './read-opencode.ts';

export type McpAgent = 'claude' | 'codex' | 'gemini' | 'opencode';

/** Reads `agent`'s MCP configuration as it would for a run in `cwd` with `args`. */
export function readAgentMcp(agent: McpAgent, env: NodeJS.ProcessEnv, cwd: string, args: readonly string[] = []): FoundServers {
  switch (agent) {
    case 'claude':
      return readClaudeMcp({ env, cwd, args });
    case 'codex':
      return readCodexMcp({ env, cwd });
    case 'gemini':
      return readGeminiMcp({ env, cwd });
    case 'opencode':
      return readOpencodeMcp({ env, cwd });
  }
}
