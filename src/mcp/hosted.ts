// Provider-hosted MCP servers a model request declares: OpenAI Responses `tools: [{type: "mcp",
// server_label, server_url}]` and Anthropic's MCP connector `mcp_servers: [{type: "url", name, url}]`.
// The provider calls them itself with the model's arguments; the response's `mcp_call` / `mcp_tool_use`
// items are restored for the client only where the server's host is allowed.

import { normalizeHost } from '../sinks/hosts.ts';

/**
 * Label → host of each hosted server a Responses or Anthropic Messages request declares (empty for most
 * requests: no JSON is parsed unless the body holds the key that declares one).
 */
export function hostedMcpServers(body: Buffer, format: 'openai-responses' | 'anthropic-messages'): Map<string, string> {
  const out = new Map<string, string>();
  if (body.length === 0 || !body.includes(format === 'openai-responses' ? 'server_url' : 'mcp_servers')) return out;
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString('utf8'));
  } catch {
    return out;
  }
  if (typeof doc !== 'object' || doc === null) return out;
  const d = doc as Record<string, unknown>;
  if (Array.isArray(d.tools)) {
    for (const t of d.tools as unknown[]) {
      const tool = t as Record<string, unknown> | null;
      if (tool?.type === 'mcp' && typeof tool.server_label === 'string') add(out, tool.server_label, tool.server_url);
    }
  }
  if (Array.isArray(d.mcp_servers)) {
    for (const s of d.mcp_servers as unknown[]) {
      const server = s as Record<string, unknown> | null;
      if (typeof server?.name === 'string') add(out, server.name, server.url);
    }
  }
  return out;
}

function add(out: Map<string, string>, label: string, url: unknown): void {
  if (typeof url !== 'string') return;
  try {
    const u = new URL(url);
    if (u.protocol === 'https:' || u.protocol === 'http:') out.set(label, normalizeHost(u.hostname));
  } catch {
    // Not a URL: the server stays undeclared, and its calls are withheld.
  }
}
