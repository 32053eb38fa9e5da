// The MCP servers ficta knows (found in an agent's configuration, or declared in `[mcp.servers]`): which
// are remote (a URL: its host is where a tool call's arguments go) and which are local processes, and
// which server a tool name belongs to, in the forms the agents write MCP tool names.

import { normalizeHost } from '../sinks/hosts.ts';

/** One MCP server: remote (reached over HTTP at `url`) or local (a process on this machine, over stdio). */
export interface McpServer {
  readonly name: string;
  readonly kind: 'remote' | 'local';
  /** The server's URL (remote only). */
  readonly url?: string;
  /** The URL's host, normalised (remote only): the destination of its tools' arguments. */
  readonly host?: string;
  /** The older HTTP+SSE transport (`type: "sse"`), else Streamable HTTP (remote only). */
  readonly transport?: 'http' | 'sse';
  /** Headers the agent sends this server (lowercase names): its credentials, passed on untouched. */
  readonly authHeaders: readonly string[];
  /** Where it was found (`~/.claude.json (user)`, `.mcp.json`, `config.toml`, …), for `ficta doctor`. */
  readonly source?: string;
}

/** The server a tool call goes to: known remote or local, or named like an MCP tool of a server nobody declared. */
export interface McpTarget {
  readonly server: string;
  readonly kind: 'remote' | 'local' | 'unknown';
  readonly host?: string;
}

/** The withheld reason for a tool of `server` at `host` (`mcp:tracker@mcp.example.com`, `mcp:x@unknown`). */
export function mcpReason(server: string, host: string | undefined): string {
  return `mcp:${server}@${host ?? 'unknown'}`;
}

export interface McpDirectory {
  readonly servers: readonly McpServer[];
  /** The server by its configured name. */
  server(name: string): McpServer | undefined;
  /** The server a tool name belongs to, or undefined for a tool that is not an MCP tool. */
  resolveTool(name: string): McpTarget | undefined;
}

/** Claude Code (`Gl` in its cli) and Codex sanitise a server name this way before `mcp__<server>__`. */
const sanitizeClaude = (s: string): string => s.replace(/[^a-zA-Z0-9_-]/g, '_');
/** Gemini CLI 0.61 `generateValidName`: `mcp_<server>_<tool>`, other characters than these become `_`. */
const sanitizeGemini = (s: string): string => s.replace(/[^a-zA-Z0-9_\-.:]/g, '_');
/** opencode: `<server>_<tool>`, both sanitised like Claude Code's. */
const sanitizeOpencode = sanitizeClaude;

/** Builds a remote server entry from its URL; undefined when the URL is not http(s). */
export function remoteServer(name: string, url: string, options: { transport?: 'http' | 'sse'; authHeaders?: readonly string[]; source?: string } = {}): McpServer | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  return {
    name,
    kind: 'remote',
    url,
    host: normalizeHost(u.hostname),
    transport: options.transport ?? 'http',
    authHeaders: (options.authHeaders ?? []).map((h) => h.toLowerCase()),
    ...(options.source === undefined ? {} : { source: options.source }),
  };
}

/** A local (stdio) server entry. */
export function localServer(name: string, source?: string): McpServer {
  return { name, kind: 'local', authHeaders: [], ...(source === undefined ? {} : { source }) };
}

/**
 * A directory over servers. A tool name matches a server when it starts with that server's prefix in one
 * agent's form (`mcp__<s>__` Claude Code and Codex, `mcp_<s>_` Gemini CLI, `<s>_` opencode); the longest
 * prefix wins. `mcp__<x>__…` and `mcp_…` names of no known server are MCP tools of an unknown server.
 */
export function createMcpDirectory(servers: readonly McpServer[]): McpDirectory {
  const byName = new Map<string, McpServer>();
  for (const s of servers) byName.set(s.name, s);
  const prefixes: Array<{ prefix: string; server: McpServer }> = [];
  for (const s of byName.values()) {
    prefixes.push({ prefix: `mcp__${sanitizeClaude(s.name)}__`, server: s });
    prefixes.push({ prefix: `mcp_${sanitizeGemini(s.name)}_`, server: s });
    prefixes.push({ prefix: `${sanitizeOpencode(s.name)}_`, server: s });
  }
  prefixes.sort((a, b) => b.prefix.length - a.prefix.length);
  return {
    servers: [...byName.values()],
    server: (name) => byName.get(name),
    resolveTool(name) {
      for (const { prefix, server } of prefixes) {
        if (name.length > prefix.length && name.startsWith(prefix)) return targetOf(server);
      }
      if (name.startsWith('mcp__')) {
        const end = name.indexOf('__', 5);
        return { server: end === -1 ? name.slice(5) : name.slice(5, end), kind: 'unknown' };
      }
      if (name.startsWith('mcp_') && name.length > 4) {
        const end = name.indexOf('_', 4);
        return { server: end === -1 ? name.slice(4) : name.slice(4, end), kind: 'unknown' };
      }
      return undefined;
    },
  };
}

function targetOf(server: McpServer): McpTarget {
  return server.kind === 'remote' ? { server: server.name, kind: 'remote', ...(server.host === undefined ? {} : { host: server.host }) } : { server: server.name, kind: 'local' };
}

/** No server known: only the names that look like MCP tools are recognised (as unknown). */
export const EMPTY_MCP_DIRECTORY: McpDirectory = createMcpDirectory([]);
