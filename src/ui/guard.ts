// The dashboard's front door, in front of every /_ficta/ path: security headers (a strict CSP with no
// inline script, no outside origin, no framing), the Host and Origin checks that keep DNS-rebinding and
// cross-site pages out (403), the session cookie (401 without it) and the CSRF token on every POST (403).

import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import type { AppEnv } from '../server/app.ts';
import type { DashboardAuth, UiSession } from './auth.ts';

export type UiEnv = AppEnv & { Variables: { session: UiSession } };

/** The policy of every dashboard response (the bench report frame sets its own, stricter for scripts). */
export const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-src 'self'; frame-ancestors 'none'";

/** Paths reachable without a session: the login link and `ficta ui`'s request for one (it has the key). */
const OPEN_PATHS = new Set(['/_ficta/login', '/_ficta/link']);

/** Largest POST body read (a form with a secret's name and a host). */
export const MAX_FORM_BYTES = 16 * 1024;

/** The cookie's name: per port, since cookies are not scoped by port and two proxies may share a host. */
export function cookieName<E extends AppEnv>(c: Context<E>): string {
  return `ficta_ui_${c.env.incoming.socket.localPort ?? 0}`;
}

/** The Host header when it names this proxy's own address (loopback names and the address the connection reached). */
export function ownHost<E extends AppEnv>(c: Context<E>): string | undefined {
  const host = c.req.header('host')?.toLowerCase();
  if (host === undefined) return undefined;
  const socket = c.env.incoming.socket;
  const port = socket.localPort;
  let addr = (socket.localAddress ?? '').toLowerCase();
  if (addr.startsWith('::ffff:')) addr = addr.slice(7);
  const names = ['127.0.0.1', 'localhost', '[::1]', addr.includes(':') ? `[${addr}]` : addr];
  return names.some((n) => n !== '' && host === `${n}:${port}`) ? host : undefined;
}

function deny<E extends AppEnv>(c: Context<E>, status: 401 | 403 | 413, what: string): Response {
  const api = c.req.path.startsWith('/_ficta/api/') || c.req.path === '/_ficta/events' || c.req.path === '/_ficta/link' || (c.req.header('accept') ?? '').includes('application/json');
  if (api) return c.json({ error: status === 401 ? 'ficta_ui_unauthorized' : status === 413 ? 'ficta_ui_too_large' : 'ficta_ui_forbidden', message: what }, status);
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>ficta</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/_ficta/assets/app.css"></head><body><main><h1>ficta dashboard</h1><p>${what}</p></main></body></html>`;
  return c.html(body, status);
}

/** Headers on every dashboard response. */
export const securityHeaders: MiddlewareHandler<UiEnv> = async (c, next) => {
  await next();
  const h = c.res.headers;
  if (!h.has('content-security-policy')) h.set('content-security-policy', CSP);
  if (!h.has('x-frame-options')) h.set('x-frame-options', 'DENY');
  h.set('x-content-type-options', 'nosniff');
  // same-origin, not no-referrer: with no-referrer Chromium sends `Origin: null` on form POSTs, which the Origin check refuses.
  h.set('referrer-policy', 'same-origin');
  h.set('cross-origin-opener-policy', 'same-origin');
  h.set('cross-origin-resource-policy', 'same-origin');
  if (!h.has('cache-control')) h.set('cache-control', 'no-store');
};

/** Host, Origin and fetch-metadata checks: 403 for anything that is not this proxy's own page. */
export const sameOrigin: MiddlewareHandler<UiEnv> = async (c, next) => {
  const host = ownHost(c);
  if (host === undefined) return deny(c, 403, 'This dashboard answers only at its own address (the Host header names another).');
  const origin = c.req.header('origin');
  if (origin !== undefined && origin !== `http://${host}`) return deny(c, 403, 'Requests from another origin are refused.');
  const site = c.req.header('sec-fetch-site');
  // A person may open the one-time link from anywhere (a terminal, a chat); nothing else comes from another site.
  if ((site === 'cross-site' || site === 'same-site') && c.req.path !== '/_ficta/login') return deny(c, 403, 'Requests from another site are refused.');
  if (c.req.method === 'POST' && c.req.path !== '/_ficta/link' && origin === undefined && site !== 'same-origin') return deny(c, 403, 'A POST must come from this dashboard (no Origin).');
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && c.req.method !== 'POST') return deny(c, 403, 'Only GET and POST.');
  return next();
};

/** The session cookie: 401 on every path but the open ones without it; then the CSRF token on every POST. */
export function requireSession(auth: DashboardAuth): MiddlewareHandler<UiEnv> {
  return async (c, next) => {
    if (OPEN_PATHS.has(c.req.path)) return next();
    const session = auth.session(getCookie(c, cookieName(c)));
    if (session === undefined) return deny(c, 401, 'Open the dashboard with <code>ficta ui</code>: it prints or opens a one-time link for this proxy.');
    c.set('session', session);
    if (c.req.method === 'POST') {
      const length = Number(c.req.header('content-length') ?? 'NaN');
      if (!(length <= MAX_FORM_BYTES)) return deny(c, 413, 'Request body too large or without a length.');
      let given = c.req.header('x-ficta-csrf');
      if (given === undefined) {
        const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
        const field = form.csrf;
        given = typeof field === 'string' ? field : undefined;
      }
      if (!auth.checkCsrf(session, given)) return deny(c, 403, 'Missing or wrong CSRF token: reload the page and try again.');
    }
    return next();
  };
}
