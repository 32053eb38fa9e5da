// The route table of DESIGN §2: which upstream a request goes to, the path it is sent with, the error
// shape its client reads, and the wire-format adapter for its response stream (chosen from the path,
// whatever the upstream).

import { anthropicMessages } from './anthropic-messages.ts';
import type { ErrorShape } from './error-shapes.ts';
import { gemini, geminiStream } from './gemini.ts';
import { generic } from './generic.ts';
import { ollama } from './ollama.ts';
import { openaiChat } from './openai-chat.ts';
import { openaiResponses } from './openai-responses.ts';
import type { StreamAdapter } from './types.ts';
import { isGeminiPath, type BuiltInName, type UpstreamEntry, type UpstreamTable } from './upstreams.ts';
import { MCP_ROUTE, resolveMcp, type McpRoute } from '../mcp/route.ts';
import { EMPTY_MCP_DIRECTORY, type McpDirectory } from '../mcp/servers.ts';

export interface ResolvedRoute {
  upstream: UpstreamEntry;
  /** The upstream's name, for logs and the watermark registry. */
  provider: string;
  /** Path and query to send upstream (before the upstream's own base path is prepended). */
  target: string;
  /** Path without query, for adapter choice and logs. */
  pathname: string;
  adapter: StreamAdapter;
  errorShape: ErrorShape;
  /** Query parameters forwarded unredacted (the client's own credentials). */
  authQuery: ReadonlySet<string>;
  /** Set on `/mcp/<server>/…`: the remote MCP server the request goes to. */
  mcp?: McpRoute;
}

export interface Router {
  /** Resolves a raw request target (`/anthropic/v1/messages?beta=true`), or undefined when no route matches. */
  resolve(rawTarget: string): ResolvedRoute | undefined;
}

/** Prefixes that are stripped before forwarding, and the upstream each one names. */
const PREFIXED: ReadonlySet<string> = new Set<BuiltInName>(['anthropic', 'openai', 'gemini', 'ollama', 'chatgpt']);

/** Creates the router over an upstream table. */
export function createRouter(table: UpstreamTable, mcp: McpDirectory = EMPTY_MCP_DIRECTORY): Router {
  return {
    resolve(rawTarget) {
      const first = firstSegment(rawTarget);
      if (first === MCP_ROUTE) {
        const r = resolveMcp(mcp, rawTarget);
        if (r === undefined) return undefined;
        const pathname = pathOf(r.target);
        return { upstream: r.upstream, provider: r.upstream.name, target: r.target, pathname, adapter: generic, errorShape: r.upstream.errorShapeFor(pathname), authQuery: r.upstream.authQueryFor(pathname), mcp: r.mcp };
      }
      let upstream: UpstreamEntry | undefined;
      let target = rawTarget;
      if (PREFIXED.has(first)) {
        upstream = table.builtIn[first as BuiltInName];
        target = rawTarget.slice(first.length + 1);
      } else if (first === 'v1') {
        const p = pathOf(rawTarget);
        if (p === '/v1/messages' || p.startsWith('/v1/messages/') || p === '/v1/complete') upstream = table.builtIn.anthropic;
        // `models/{m}:generateContent` and its siblings exist only in Gemini's API (@google/genai 3 defaults to /v1).
        else if (isGeminiPath(p)) upstream = table.builtIn.gemini;
        else upstream = table.builtIn.openai;
      } else if (first === 'v1beta') {
        upstream = table.builtIn.gemini;
      } else {
        upstream = table.named.get(first);
        if (upstream === undefined) return undefined;
        target = rawTarget.slice(first.length + 1);
      }
      if (!target.startsWith('/')) target = `/${target}`;
      const pathname = pathOf(target);
      return {
        upstream,
        provider: upstream.name,
        target,
        pathname,
        adapter: adapterFor(pathname),
        errorShape: upstream.errorShapeFor(pathname),
        authQuery: upstream.authQueryFor(pathname),
      };
    },
  };
}

/** `anthropic` for `/anthropic/v1/…`, `/anthropic?x` and `/anthropic`; '' when the target has no segment. */
function firstSegment(target: string): string {
  if (!target.startsWith('/')) return '';
  let end = 1;
  while (end < target.length && target[end] !== '/' && target[end] !== '?') end++;
  return target.slice(1, end);
}

function pathOf(target: string): string {
  const q = target.indexOf('?');
  return q === -1 ? target : target.slice(0, q);
}

/**
 * The stream adapter for a path, whatever the upstream (DESIGN §2): OpenRouter's `/api/v1/chat/completions`,
 * Azure's `/openai/deployments/{d}/chat/completions` and Codex's `/backend-api/codex/responses` speak the
 * formats their last segments name; so do Gemini's `models/{m}:generateContent` and `:streamGenerateContent`
 * (Vertex AI's `…/publishers/google/models/{m}:…` too) and Ollama's `/api/chat` and `/api/generate`.
 */
function adapterFor(pathname: string): StreamAdapter {
  const p = pathname.replace(/\/+$/, '');
  if (p.endsWith('/v1/messages')) return anthropicMessages;
  if (p.endsWith('/chat/completions')) return openaiChat;
  if (p.endsWith('/responses')) return openaiResponses;
  if (p.endsWith(':generateContent')) return gemini;
  if (p.endsWith(':streamGenerateContent')) return geminiStream;
  if (p.endsWith('/api/chat') || p.endsWith('/api/generate')) return ollama;
  return generic;
}
