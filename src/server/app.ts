// The hono app: health check, provider routes (prefixed and the unprefixed /v1 conveniences) and a
// provider-shaped 404 elsewhere. Proxy handlers write to the Node response themselves (streaming,
// no fetch() Response: @hono/node-server's read-ahead would add ≥1 ms per content-length response).

import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono } from 'hono';
import { resolveRoute } from '../providers/routes.ts';
import type { SecretRegistry } from '../secrets/registry.ts';
import { VERSION } from '../version.ts';
import { checkToken } from './access.ts';
import { formatErrorBody } from './error-response.ts';
import { proxyRequest, type ProxyDeps } from './proxy.ts';

export type AppEnv = { Bindings: HttpBindings };

export interface AppOptions {
  /** Required as `/t/<token>/…` on every provider route when set. */
  token?: string | undefined;
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
    const access = checkToken(incoming.url ?? '/', options.token);
    if (!access.ok) {
      const guess = resolveRoute((incoming.url ?? '/').replace(/^\/t\/[^/?]*/, ''));
      const body = formatErrorBody(guess?.provider ?? 'openai', 'ficta_unauthorized', 'ficta: this proxy requires its access token in the base URL (…/t/<token>/…); nothing was forwarded');
      return new Response(body, { status: 401, headers: { 'content-type': 'application/json' } });
    }
    const route = resolveRoute(access.target);
    if (route === undefined) return undefined;
    hooks.onRequestStart?.();
    try {
      await proxyRequest(deps, route, incoming, outgoing);
    } finally {
      hooks.onRequestEnd?.();
    }
    return RESPONSE_ALREADY_SENT;
  };
  const proxy = async (c: import('hono').Context<AppEnv>): Promise<Response> => (await proxyIncoming(c.env)) ?? c.notFound();
  app.all('/anthropic', proxy);
  app.all('/anthropic/*', proxy);
  app.all('/openai', proxy);
  app.all('/openai/*', proxy);
  app.all('/v1/*', proxy);
  app.all('/t/*', proxy);

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
    const body = formatErrorBody('openai', 'ficta_not_found', `ficta: no route for ${c.req.method} ${c.req.path}; use /anthropic/…, /openai/… or /v1/…`);
    return c.body(body, 404, { 'content-type': 'application/json' });
  });
  return app;
}

export type { SecretRegistry };
