// The route `/mcp/<server>[/…]` to a remote MCP server: `/mcp/<server>` (and `?query`) is the server's
// URL itself; `/mcp/<server>/<path>` is `<path>` on the server's origin (where the older HTTP+SSE
// transport's `endpoint` event sends the client). The server's host decides which values may reach it.

import { jsonRpcErrors } from '../providers/error-shapes.ts';
import type { UpstreamEntry } from '../providers/upstreams.ts';
import type { McpDirectory, McpServer } from './servers.ts';

/** The first path segment of MCP routes. */
export const MCP_ROUTE = 'mcp';

/** What the proxy needs of an MCP route beyond its upstream. */
export interface McpRoute {
  server: McpServer;
  /** The server's host (normalised): values allowed there are not redacted on the way to it. */
  host: string;
  /** Headers forwarded untouched besides the usual auth headers: the ones the agent's config sets for this server. */
  authHeaders: ReadonlySet<string>;
  /** The server's URL. */
  url: URL;
  /** `mcp/<encoded name>`: the route's prefix after the token. */
  prefix: string;
  /** What the request log shows as its route: `/mcp/<name>` and the client's own path below it, never the server URL's path (it may hold a key). */
  logPath: string;
}

export interface McpResolved {
  upstream: UpstreamEntry;
  target: string;
  mcp: McpRoute;
}

const NONE: ReadonlySet<string> = new Set();

/** Resolves `/mcp/<name>…` (the `mcp` segment already matched); undefined when no remote server has that name. */
export function resolveMcp(directory: McpDirectory, rawTarget: string): McpResolved | undefined {
  const rest = rawTarget.slice(MCP_ROUTE.length + 2);
  let end = 0;
  while (end < rest.length && rest[end] !== '/' && rest[end] !== '?') end++;
  let name: string;
  try {
    name = decodeURIComponent(rest.slice(0, end));
  } catch {
    return undefined;
  }
  const server = directory.server(name);
  if (server?.kind !== 'remote' || server.url === undefined || server.host === undefined) return undefined;
  const url = new URL(server.url);
  const tail = rest.slice(end);
  // The bare route is the server's URL, query included; a path below it is a path on the server's origin.
  const target = tail === '' ? `${url.pathname}${url.search}` : tail.startsWith('?') ? `${url.pathname}${tail}` : tail;
  const upstream: UpstreamEntry = {
    name: `mcp:${server.name}`,
    origin: url.origin,
    basePath: '',
    named: true,
    errorShapeFor: () => jsonRpcErrors,
    authQueryFor: () => NONE,
    isFileBody: () => false,
    urlHeaders: NONE,
  };
  return {
    upstream,
    target,
    mcp: {
      server,
      host: server.host,
      authHeaders: new Set(server.authHeaders),
      url,
      prefix: `${MCP_ROUTE}/${encodeURIComponent(server.name)}`,
      logPath: `/${MCP_ROUTE}/${encodeURIComponent(server.name)}${tail.startsWith('/') ? tail.split('?', 1)[0] : ''}`,
    },
  };
}
