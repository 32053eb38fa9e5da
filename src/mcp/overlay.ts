// Points an agent's remote MCP servers at ficta's `/mcp/<name>` route through the agent's own override
// mechanism, never by editing its files: Claude Code gets a `--mcp-config` file of same-named servers (a
// --mcp-config server wins over every scope), Codex `-c mcp_servers.<name>.url=…` overrides, opencode the
// servers in OPENCODE_CONFIG_CONTENT (merged over its config files). Gemini CLI has no such mechanism.

import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FoundServer } from './found.ts';
import { MCP_ROUTE } from './route.ts';

/** The URL of `/mcp/<name>` under the proxy's root (`http://127.0.0.1:P/t/<token>`). */
export function mcpRouteUrl(root: string, name: string): string {
  return `${root}/${MCP_ROUTE}/${encodeURIComponent(name)}`;
}

/** The servers ficta carries: remote over HTTP (Streamable HTTP or HTTP+SSE), and in use without a prompt. */
export function carried(found: readonly FoundServer[]): FoundServer[] {
  return found.filter((f) => f.server.kind === 'remote' && f.server.transport !== undefined && f.approved);
}

/** Claude Code: a private file for `--mcp-config=<file>` (the same entries, each URL replaced), and its removal. */
export function claudeOverlay(root: string, found: readonly FoundServer[]): { args: string[]; cleanup: () => void } | undefined {
  const servers = carried(found);
  if (servers.length === 0) return undefined;
  const mcpServers: Record<string, unknown> = {};
  for (const f of servers) mcpServers[f.server.name] = { ...f.entry, type: f.server.transport, url: mcpRouteUrl(root, f.server.name) };
  // The entries may hold header values: the file is the user's own (0600, in a 0700 directory), removed after the run.
  const dir = mkdtempSync(join(tmpdir(), 'ficta-mcp-'));
  chmodSync(dir, 0o700);
  const file = join(dir, 'mcp.json');
  writeFileSync(file, JSON.stringify({ mcpServers }), { mode: 0o600 });
  return { args: [`--mcp-config=${file}`], cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Codex: `-c` overrides of each carried server's URL (the rest of its entry stays as configured). */
export function codexOverlay(root: string, found: readonly FoundServer[]): string[] {
  return carried(found).flatMap((f) => ['-c', `mcp_servers.${tomlKey(f.server.name)}.url=${JSON.stringify(mcpRouteUrl(root, f.server.name))}`]);
}

/** opencode: the `mcp` entries to merge into OPENCODE_CONFIG_CONTENT. */
export function opencodeOverlay(root: string, found: readonly FoundServer[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of carried(found)) out[f.server.name] = { ...f.entry, type: 'remote', url: mcpRouteUrl(root, f.server.name) };
  return out;
}

/** A TOML key: bare when it can be, else quoted. */
function tomlKey(name: string): string {
  return /^[A-Za-z0-9_-]+$/.test(name) ? name : JSON.stringify(name);
}
