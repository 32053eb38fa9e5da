// The hono app: health check, provider routes (built-in prefixes, named upstreams and the unprefixed
// /v1 and /v1beta conveniences) and a 404 elsewhere. Proxy handlers write to the Node response themselves (streaming,
// no fetch() Response: @hono/node-server's read-ahead would add ≥1 ms per content-length response).

import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono } from 'hono';
import { openaiErrors } from '../providers/error-shapes.ts';
import type { Tenancy } from '../gateway/tenant.ts';
import type { SecretRegistry } from '../secrets/registry.ts';
import { VERSION } from '../version.ts';
import { checkToken } from './access.ts';
import { nextRequestId, proxyRequest, type ProxyDeps } from './proxy.ts';
import { logRefusedRequest, refusedRoute } from './request-log.ts';
import type { Outcome } from '../log/outcomes.ts';

/** The outcome a tenancy's refusal is logged with. */
const REFUSAL_OUTCOME: Record<401 | 429 | 503, Outcome> = { 401: 'unauthorized', 429: 'over_limit', 503: 'not_ready' };

export type AppEnv = { Bindings: HttpBindings };

export interface AppOptions {
  /** Required as `/t/<token>/…` on every provider route when set. */
  token?: string | undefined;
  /** The gateway's tenants (issue 21): every provider request is authenticated by it instead of `token`. */
  tenancy?: Tenancy | undefined;
  /** False until every `[[sources]]` source has loaded: provider requests get 503 `ficta_not_ready`, nothing forwarded. */
  ready?: (() => boolean) | undefined;
}

export interface AppHooks {
  /** Called when a proxied request starts and ends (for graceful shutdown). */
  onRequestStart?: () => void;
  onRequestEnd?: () => void;
}

/** Builds the app around the proxy dependencies. */
export function createApp(deps: ProxyDeps, hooks: AppHooks = {}, options: AppOptions = {}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/healthz', (c) => {
    const snap = deps.registry.current();
    if (snap.kind === 'unavailable') {
      return c.json({ status: 'unavailable', secrets: 0, version: VERSION, error: 'ficta_vault_unavailable' }, 503);
    }
    return c.json({ status: 'ok', secrets: snap.set.size, version: VERSION });
  });

  app.get('/readyz', (c) => {
    const snap = deps.registry.current();
    return snap.kind === 'ready' ? c.json({ status: 'ready' }) : c.json({ status: 'unavailable' }, 503);
  });

  /** Proxies one request on a provider route; undefined when no route matches (→ 404). */
  const proxyIncoming = async ({ incoming, outgoing }: HttpBindings): Promise<Response | undefined> => {
    const rawUrl = incoming.url ?? '/';
    if (options.ready !== undefined && !options.ready()) {
      const guess = deps.router.resolve(rawUrl.replace(/^\/t\/[^/?]*/, ''));
      if (guess === undefined) return undefined;
      const body = guess.errorShape.format(503, 'ficta_not_ready', 'ficta: not every secret source has loaded yet; nothing was forwarded');
      logRefused(incoming.method, rawUrl, 503, 'not_ready', body);
      return new Response(body, { status: 503, headers: { 'content-type': 'application/json', 'retry-after': '5' } });
    }
    if (options.tenancy !== undefined) return proxyTenant(options.tenancy, incoming, outgoing, rawUrl);
    const access = checkToken(rawUrl, options.token);
    if (!access.ok) {
      const guess = deps.router.resolve(rawUrl.replace(/^\/t\/[^/?]*/, ''));
      const body = (guess?.errorShape ?? openaiErrors).format(401, 'ficta_unauthorized', 'ficta: this proxy requires its access token in the base URL (…/t/<token>/…); nothing was forwarded');
      logRefused(incoming.method, incoming.url, 401, 'unauthorized', body);
      return new Response(body, { status: 401, headers: { 'content-type': 'application/json' } });
    }
    const route = deps.router.resolve(access.target);
    if (route === undefined) return undefined;
    hooks.onRequestStart?.();
    // The route's base as the client reaches it (host as it addressed us, token included).
    const host = incoming.headers.host;
    const publicBase = host === undefined ? undefined : `http://${host}${options.token === undefined ? '' : `/t/${options.token}`}/${route.provider}`;
    try {
      await proxyRequest(deps, route, incoming, outgoing, publicBase);
    } finally {
      hooks.onRequestEnd?.();
    }
    return RESPONSE_ALREADY_SENT;
  };
  /**
   * A gateway request: the tenancy decides who it is before anything is read (a refusal is answered
   * provider-shaped, logged, nothing forwarded); the tenant is carried through redaction and restore.
   */
  const proxyTenant = async (tenancy: Tenancy, incoming: HttpBindings['incoming'], outgoing: HttpBindings['outgoing'], rawUrl: string): Promise<Response | undefined> => {
    const auth = tenancy.authenticate(incoming, rawUrl);
    if (!auth.ok) {
      const guess = deps.router.resolve(rawUrl.replace(/^\/t\/[^/?]*/, ''));
      const body = (guess?.errorShape ?? openaiErrors).format(auth.status, auth.type, auth.message);
      logRefused(incoming.method, rawUrl, auth.status, REFUSAL_OUTCOME[auth.status], body);
      return new Response(body, { status: auth.status, headers: { ...auth.headers, 'content-type': 'application/json' } });
    }
    try {
      const route = deps.router.resolve(auth.target);
      if (route === undefined) return undefined;
      hooks.onRequestStart?.();
      // The token segment the client used (when it came in the path) stays in URLs handed back to it.
      const prefix = rawUrl.endsWith(auth.target) ? rawUrl.slice(0, rawUrl.length - auth.target.length) : '';
      const host = incoming.headers.host;
      const publicBase = host === undefined ? undefined : `http://${host}${prefix}/${route.provider}`;
      try {
        await proxyRequest(deps, route, incoming, outgoing, publicBase, auth.tenant);
      } finally {
        hooks.onRequestEnd?.();
      }
      return RESPONSE_ALREADY_SENT;
    } finally {
      auth.release?.();
    }
  };
  const proxy = async (c: import('hono').Context<AppEnv>): Promise<Response> => (await proxyIncoming(c.env)) ?? c.notFound();
  // Every other path: the router decides (built-in prefixes, named upstreams, /v1, /v1beta, /t/<token>).
  app.all('*', proxy);

  // Hono answers HEAD by running the GET route and re-wrapping its Response, which breaks a handler that
  // wrote the Node response itself; provider-route HEADs (Claude Code's connectivity check) go straight
  // to the proxy instead.
  const honoFetch = app.fetch;
  app.fetch = (request: Request, env?: unknown, ctx?: unknown): Response | Promise<Response> => {
    const bindings = env as HttpBindings | undefined;
    if (request.method !== 'HEAD' || bindings?.incoming === undefined) return honoFetch(request, env as never, ctx as never);
    return proxyIncoming(bindings).then((r) => r ?? honoFetch(request, env as never, ctx as never));
  };

  app.notFound((c) => {
    const body = openaiErrors.format(404, 'ficta_not_found', `ficta: no route for this path; use /anthropic/…, /openai/…, /gemini/…, /ollama/…, /chatgpt/…, /v1/…, /v1beta/… or a named upstream`);
    logRefused(c.req.method, c.env?.incoming?.url ?? c.req.path, 404, 'not_found', body);
    return c.body(body, 404, { 'content-type': 'application/json' });
  });

  /** 401 and 404 answers are logged and counted like any request, never with the token. */
  function logRefused(method: string | undefined, url: string | undefined, status: number, outcome: Outcome, body: string): void {
    const snap = deps.registry.current();
    const route = refusedRoute(url ?? '/', snap.kind === 'ready' ? snap.set : undefined);
    logRefusedRequest(deps, { id: nextRequestId(), method: method ?? 'GET', route, status, outcome, bytesOut: Buffer.byteLength(body) });
  }
  return app;
}

export type { SecretRegistry };
