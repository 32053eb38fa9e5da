/** @jsxImportSource hono/jsx */
// The dashboard at /_ficta/ (DESIGN §12): server-rendered pages (hono JSX), their data as JSON, the live
// events, the one script and stylesheet, the login by one-time link and the two actions. Loaded on the
// first /_ficta/ request, so a proxy nobody looks at never loads it.

import { readFileSync } from 'node:fs';
import { Hono, type Context } from 'hono';
import { setCookie } from 'hono/cookie';
import { lastResultsFile } from '../bench/last-results.ts';
import type { BenchReport } from '../bench/run.ts';
import { isFictaError } from '../errors.ts';
import { APP_CSS } from './assets/style.ts';
import { APP_JS } from './assets/script.ts';
import { SESSION_IDLE_MS, type DashboardAuth } from './auth.ts';
import { createEventStreams } from './events.ts';
import type { RequestFeed } from './feed.ts';
import { cookieName, ownHost, requireSession, sameOrigin, securityHeaders, type UiEnv } from './guard.ts';
import { BenchmarksPage } from './pages/benchmarks.tsx';
import { HealthPage } from './pages/health.tsx';
import { Layout, type PageName } from './pages/layout.tsx';
import { LivePage } from './pages/live.tsx';
import { RunsPage } from './pages/runs.tsx';
import { SecretsPage } from './pages/secrets.tsx';
import { WithheldPage } from './pages/withheld.tsx';
import { healthView, liveRow, runView, secretsView, withheldView, type LiveRow, type ViewSources } from './views.ts';

export interface DashboardDeps extends ViewSources {
  feed: RequestFeed;
  auth: DashboardAuth;
  home: string;
  /** True when the proxy requires `/t/<token>/` (the page then never prints a base URL: it would need the token). */
  tokenRequired: boolean;
  hasVault: boolean;
  /** One audit line: who (session label, address), what, when. */
  audit(event: 'ui_login' | 'ui_action', fields: Record<string, unknown>): void;
}

/** The bench report frame: no script at all, its own inline styles, framed by the dashboard only. */
const BENCH_FRAME_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'; sandbox";

export interface Dashboard {
  app: Hono<UiEnv>;
  /** Ends the open event streams (when the proxy stops). */
  closeStreams(): void;
}

export function createDashboard(deps: DashboardDeps): Dashboard {
  const app = new Hono<UiEnv>({ strict: false }).basePath('/_ficta');
  const streams = createEventStreams(deps.feed);
  app.use('*', securityHeaders, sameOrigin, requireSession(deps.auth));

  const page = (c: Context<UiEnv>, name: PageName, title: string, body: unknown, status: 200 = 200): Response | Promise<Response> =>
    c.html(`<!doctype html>${String(<Layout page={name} title={title} mode={deps.run().mode} csrf={c.get('session').csrf}>{body as never}</Layout>)}`, status);
  const remote = (c: Context<UiEnv>): string => c.env.incoming.socket.remoteAddress ?? 'unknown';

  // `ficta ui` asks for a one-time link with the proxy's key (read from its 0600 file in FICTA_HOME/run).
  app.post('/link', (c) => {
    if (!deps.auth.checkLinkKey(c.req.header('x-ficta-ui-key'))) return c.json({ error: 'ficta_ui_unauthorized', message: 'ui: a link needs this proxy key (ficta ui reads it)' }, 401);
    return c.json({ path: `/_ficta/login?code=${deps.auth.issueCode()}` });
  });
  app.get('/login', (c) => {
    const redeemed = deps.auth.redeem(c.req.query('code'));
    if (redeemed === undefined) {
      return c.html('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>ficta</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/_ficta/assets/app.css"></head><body><main><h1>ficta dashboard</h1><p>This link was already used or has expired (links last a minute and open once). Run <code>ficta ui</code> again.</p></main></body></html>', 401);
    }
    setCookie(c, cookieName(c), redeemed.secret, { path: '/_ficta', httpOnly: true, sameSite: 'Strict', maxAge: Math.floor(SESSION_IDLE_MS / 1000) });
    deps.audit('ui_login', { session: redeemed.session.label, remote: remote(c) });
    // A same-origin step (not a redirect from the link's navigation) so the SameSite=Strict cookie goes with it.
    return c.html('<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=/_ficta/"><title>ficta</title><link rel="icon" href="data:,"></head><body><p><a href="/_ficta/">Open the dashboard</a></p></body></html>');
  });

  app.get('/assets/app.js', (c) => c.body(APP_JS, 200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache' }));
  app.get('/assets/app.css', (c) => c.body(APP_CSS, 200, { 'content-type': 'text/css; charset=utf-8', 'cache-control': 'no-cache' }));

  const base = (c: Context<UiEnv>): string | undefined => (deps.tokenRequired ? undefined : `http://${ownHost(c) ?? '127.0.0.1'}`);
  app.get('/', (c) => page(c, 'live', 'Live', <LivePage base={base(c)} mode={deps.run().mode} />));
  app.get('/secrets', (c) => page(c, 'secrets', 'Secrets', <SecretsPage view={secretsView(deps)} />));
  app.get('/withheld', (c) => {
    const notice = withheldNotice(deps, c.req.query('grant'), c.req.query('undone'), c.req.query('error'));
    return page(c, 'withheld', 'Withheld', <WithheldPage view={withheldView(deps, deps.hasVault)} csrf={c.get('session').csrf} notice={notice} />);
  });
  app.get('/runs', (c) => page(c, 'runs', 'Runs', <RunsPage view={runView(deps)} />));
  app.get('/health', (c) => page(c, 'health', 'Health', <HealthPage view={healthView(deps)} />));
  app.get('/benchmarks', (c) => {
    const bench = readBench(deps.home);
    return page(c, 'benchmarks', 'Benchmarks', <BenchmarksPage report={bench.report} file={lastResultsFile(deps.home)} problem={bench.problem} />);
  });
  app.get('/benchmarks/report', async (c) => {
    const bench = readBench(deps.home);
    if (bench.report === undefined) return c.text('no benchmark results', 404);
    const { formatHtmlReport } = await import('../bench/html-report.ts');
    return c.html(formatHtmlReport(bench.report), 200, { 'content-security-policy': BENCH_FRAME_CSP, 'x-frame-options': 'SAMEORIGIN' });
  });

  app.get('/events', (c) => streams.handle(c));
  app.get('/api/requests', (c) => c.json({ last: deps.feed.last(), requests: latestRows(deps.feed) }));
  app.get('/api/secrets', (c) => c.json(secretsView(deps)));
  app.get('/api/withheld', (c) => c.json(withheldView(deps, deps.hasVault)));
  app.get('/api/health', (c) => c.json(healthView(deps)));
  app.get('/api/run', (c) => c.json(runView(deps)));
  app.get('/api/benchmarks', (c) => c.json(readBench(deps.home)));

  const wantsJson = (c: Context<UiEnv>): boolean => (c.req.header('accept') ?? '').includes('application/json');
  app.post('/withheld/allow', async (c) => {
    const form = await c.req.parseBody();
    const secret = typeof form.secret === 'string' ? form.secret : '';
    const host = typeof form.host === 'string' ? form.host : '';
    // Only a destination this proxy actually withheld for this secret: the page offers nothing else.
    const known = deps.tallies.update().withheld().some((g) => g.secret === secret && g.host === host);
    const session = c.get('session');
    const result = known ? await deps.grants.allow(secret, host, session.label) : undefined;
    if (result === undefined || !result.ok) {
      const code = result === undefined ? 'FICTA_UI_NOT_WITHHELD' : result.error.code;
      deps.audit('ui_action', { action: 'allow_host', outcome: 'refused', code, secret, session: session.label, remote: remote(c) });
      return wantsJson(c) ? c.json({ error: code }, 400) : c.redirect(`/_ficta/withheld?error=${encodeURIComponent(code)}`, 303);
    }
    return wantsJson(c) ? c.json({ grant: result.value }) : c.redirect(`/_ficta/withheld?grant=${result.value.id}`, 303);
  });
  app.post('/withheld/undo', async (c) => {
    const form = await c.req.parseBody();
    const id = Number(typeof form.id === 'string' ? form.id : 'NaN');
    const session = c.get('session');
    const result = await deps.grants.undo(id, session.label);
    if (!result.ok) {
      deps.audit('ui_action', { action: 'undo_allow_host', outcome: 'refused', code: result.error.code, session: session.label, remote: remote(c) });
      return wantsJson(c) ? c.json({ error: result.error.code }, 400) : c.redirect(`/_ficta/withheld?error=${encodeURIComponent(result.error.code)}`, 303);
    }
    return wantsJson(c) ? c.json({ grant: result.value }) : c.redirect(`/_ficta/withheld?undone=${result.value.id}`, 303);
  });

  app.all('*', (c) => c.json({ error: 'ficta_ui_not_found', message: 'no such dashboard page' }, 404));
  app.onError((error, c) => c.json({ error: 'ficta_ui_internal', message: isFictaError(error) ? error.code : 'internal error' }, 500));
  return { app, closeStreams: streams.closeAll };
}

/** The newest row per request (a start, replaced by its end), newest first. */
function latestRows(feed: RequestFeed): LiveRow[] {
  const byId = new Map<string, LiveRow>();
  for (const e of feed.since(0)) {
    const row = liveRow(e);
    byId.delete(row.id);
    byId.set(row.id, row);
  }
  return [...byId.values()].reverse();
}

const NOTICES: Record<string, string> = {
  FICTA_UI_NOT_WITHHELD: 'That host was not withheld for that secret: nothing changed.',
  FICTA_UI_ALREADY_UNDONE: 'That action was already undone.',
  FICTA_UI_NOT_FOUND: 'No such action.',
  FICTA_HOST_INVALID: 'That is not a host name ficta can allow.',
  FICTA_VAULT_NAME_UNKNOWN: 'The vault has no record of that name any more.',
};

function withheldNotice(deps: DashboardDeps, grant: string | undefined, undone: string | undefined, error: string | undefined): { kind: 'ok' | 'bad'; text: string } | undefined {
  const find = (id: string | undefined) => deps.grants.list().find((g) => String(g.id) === id);
  const g = find(grant);
  if (g !== undefined) return { kind: 'ok', text: `Allowed ${g.host} for ${g.secret}: the next request restores it there.` };
  const u = find(undone);
  if (u !== undefined) return { kind: 'ok', text: `Undone: ${u.host} is no longer allowed for ${u.secret} (unless it was before); the next request withholds again.` };
  if (error !== undefined) return { kind: 'bad', text: NOTICES[error] ?? 'The action failed; nothing changed.' };
  return undefined;
}

/** The last bench results, if any (a broken file is reported, not thrown). */
function readBench(home: string): { report?: BenchReport; problem?: string } {
  let text: string;
  try {
    text = readFileSync(lastResultsFile(home), 'utf8');
  } catch {
    return {};
  }
  try {
    const report = JSON.parse(text) as BenchReport;
    if (!Array.isArray(report.results) || typeof report.machine !== 'object') return { problem: 'the file is not a ficta bench --json report' };
    return { report };
  } catch {
    return { problem: 'the file is not JSON' };
  }
}
