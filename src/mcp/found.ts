// What an agent's MCP configuration yields: each server with the entry it was read from (the overlay that
// points the agent at ficta starts from it), and what could not be read.

import type { McpServer } from './servers.ts';

export interface FoundServer {
  server: McpServer;
  /** The entry as the agent's file holds it (never shown: it may carry credentials). */
  entry: Record<string, unknown>;
  /**
   * False when the agent would not use it without the user's approval (a Claude Code .mcp.json server not
   * yet approved): ficta does not carry it, so it is not enabled behind the user's back.
   */
  approved: boolean;
}

export interface FoundServers {
  servers: FoundServer[];
  /** Files that exist but could not be read (named, never quoted). */
  problems: string[];
}
