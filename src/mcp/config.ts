// The `[mcp.servers.<name>]` tables of the main config (`url = "https://…"` or `local = true`), and the
// directory the proxy builds from them, with the servers the agent commands find in the agent's own
// configuration (a declaration of the same name in the config wins).

import { z } from '../config/zod.ts';
import { createMcpDirectory, localServer, remoteServer, type McpDirectory, type McpServer } from './servers.ts';

/** A server name as agents allow them; it becomes one path segment of `/mcp/<name>/` (percent-encoded). */
const serverName = z.string().min(1).max(128).refine((s) => !/[/\\\u0000-\u001f]/.test(s), { message: 'a server name may not hold "/", "\\" or control characters' });

const headerName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, { message: 'must be an HTTP header name' });

/** One server: remote (`url`, with `transport` "http" or "sse") or local (`local = true`). */
export const McpServerConfigSchema = z
  .object({
    /** The server's URL (http or https): its host is where its tools' arguments go. */
    url: z
      .string()
      .refine((s) => /^https?:\/\/[^/?#\s]+/i.test(s), { message: 'must be an http(s) URL' })
      .optional(),
    /** A process on this machine (stdio): its tools are tools that run. */
    local: z.boolean().optional(),
    /** `http` (Streamable HTTP, default) or `sse` (the older HTTP+SSE transport). */
    transport: z.enum(['http', 'sse']).default('http'),
    /** Headers that carry the server's credentials: forwarded untouched on `/mcp/<name>/` (Authorization, X-Api-Key and Cookie always are). */
    authHeaders: z.array(headerName).default([]),
  })
  .strict()
  .superRefine((s, ctx) => {
    if ((s.url === undefined) === (s.local !== true)) ctx.addIssue({ code: 'custom', message: 'give either url = "https://…" or local = true' });
  });

/** The `mcp` table. */
export const McpConfigSchema = z
  .object({
    servers: z.record(serverName, McpServerConfigSchema).default({}),
  })
  .strict();

export type McpConfig = z.infer<typeof McpConfigSchema>;
export type McpServerConfig = z.infer<typeof McpServerConfigSchema>;

/** The servers a validated `mcp` table declares. */
export function serversFromConfig(config: McpConfig): McpServer[] {
  const out: McpServer[] = [];
  for (const [name, s] of Object.entries(config.servers)) {
    if (s.url === undefined) out.push(localServer(name, 'config'));
    else {
      const remote = remoteServer(name, s.url, { transport: s.transport, authHeaders: s.authHeaders, source: 'config' });
      if (remote !== undefined) out.push(remote);
    }
  }
  return out;
}

/** The directory for a validated `mcp` table, plus servers found elsewhere (an agent's config) that it does not name. */
export function mcpDirectoryFor(config: McpConfig, found: readonly McpServer[] = []): McpDirectory {
  const declared = serversFromConfig(config);
  const names = new Set(declared.map((s) => s.name));
  return createMcpDirectory([...found.filter((s) => !names.has(s.name)), ...declared]);
}
