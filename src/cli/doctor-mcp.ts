// The MCP part of `ficta doctor <agent>`: each server the agent's configuration names, its kind and host,
// and whether `ficta <agent>` carries its traffic. Names, kinds, hosts and files only: never a URL's path
// or query, a header value or a command line (they may hold credentials).

import { readAgentMcp, type McpAgent } from '../mcp/agent-servers.ts';
import { carried } from '../mcp/overlay.ts';
import type { AddCheck } from './doctor-checks.ts';

/** Lists the agent's MCP servers as checks under `<agent> mcp`. */
export function checkAgentMcp(agent: McpAgent, env: NodeJS.ProcessEnv, cwd: string, add: AddCheck): void {
  const area = `${agent} mcp`;
  const found = readAgentMcp(agent, env, cwd);
  for (const p of found.problems) add('warn', area, `${p}: its MCP servers are not known to ficta`);
  if (found.servers.length === 0) {
    add('ok', area, 'no MCP servers configured');
    return;
  }
  const through = new Set(carried(found.servers).map((f) => f.server.name));
  for (const { server, approved } of found.servers) {
    if (server.kind === 'local') {
      add('ok', area, `${server.name}: local (stdio process; its tools are tools that run; what it sends by itself is not seen) — ${server.source ?? ''}`);
      continue;
    }
    const how = through.has(server.name) && agent !== 'gemini'
      ? `carried through ficta at /mcp/${encodeURIComponent(server.name)} (${server.transport === 'sse' ? 'HTTP+SSE' : 'Streamable HTTP'})`
      : agent === 'gemini'
        ? `not carried (Gemini CLI has no override ficta can use): ${server.url?.startsWith('https:') === true ? "reached directly, or refused if its MCP client honours the HTTPS_PROXY ficta gemini sets (ficta, which opens no tunnel)" : 'reached directly'}; its tools still count as calls to this host`
        : server.transport === undefined
          ? 'not over HTTP: reached directly; its tools still count as calls to this host'
          : approved
            ? 'reached directly'
            : 'not yet approved in Claude Code: carried in -p runs (which approve it by themselves), in interactive runs once approved';
    add(through.has(server.name) && agent !== 'gemini' ? 'ok' : 'warn', area, `${server.name}: remote, host ${server.host ?? '?'}: ${how} — ${server.source ?? ''}`);
  }
}
