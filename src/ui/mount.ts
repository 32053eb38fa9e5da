// What a proxy builds for its dashboard at start (all small): the request feed the proxy appends to, the
// catalog of secret names, the login key, the live host tables the actions change, and the /_ficta/
// handler, which loads the dashboard itself on its first request.

import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from 'hono';
import { ensureHome } from '../config/home.ts';
import { logEvent, type Logger } from '../log/logger.ts';
import type { SecretRegistry } from '../secrets/registry.ts';
import type { SecretSource } from '../secrets/types.ts';
import type { AppEnv } from '../server/app.ts';
import type { RunReport } from '../server/stats.ts';
import type { RestoreConfig } from '../sinks/config.ts';
import { createDashboardAuth, type DashboardAuth } from './auth.ts';
import { createSecretCatalog, type SecretCatalog } from './catalog.ts';
import { createRequestFeed, type RequestFeed } from './feed.ts';
import { createHostGrants, type HostGrants } from './host-grants.ts';
import { createTallies } from './tallies.ts';
import type { RunInfo } from './views.ts';

export interface DashboardMountOptions {
  home: string;
  /** Requests the ring keeps (each takes a start and an end event). */
  requests: number;
  logger: Logger;
  tokenRequired: boolean;
  detect: { mode: string; allow: readonly string[] };
  upstreams: ReadonlyArray<{ name: string; origin: string }>;
  /** `[secrets.hosts]` as configured: copied, then changed by the actions. */
  secretHosts: Readonly<Record<string, readonly string[]>>;
  getRestore(): RestoreConfig;
  setRestore(config: RestoreConfig): void;
  mode: string;
  reportFile?: string | undefined;
}

export interface DashboardMount {
  feed: RequestFeed;
  catalog: SecretCatalog;
  auth: DashboardAuth;
  grants: HostGrants;
  /** The live `[secrets.hosts]` table, read by the sources at every load. */
  secretHosts(): Readonly<Record<string, readonly string[]>>;
  /** Connects what exists only once the proxy is built. */
  attach(parts: { registry: SecretRegistry; report: () => RunReport; sources: readonly SecretSource[] }): void;
  /** Tells the Runs page which command this proxy serves (the command's name, never its arguments). */
  setRun(info: { mode?: string; command?: string }): void;
  /** The /_ficta/ handler. */
  handle(c: Context<AppEnv>): Promise<Response>;
  /** Ends the dashboard's open event streams, so an open tab does not hold the proxy's shutdown. */
  close(): Promise<void>;
}

/** The audit file: one JSON line per login and action, next to the vault, mode 0600. */
export function auditFile(home: string): string {
  return join(home, 'ui-audit.log');
}

export function createDashboardMount(options: DashboardMountOptions): DashboardMount {
  const feed = createRequestFeed(options.requests * 2);
  const catalog = createSecretCatalog();
  const auth = createDashboardAuth();
  const runtimeHosts: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(options.secretHosts)) runtimeHosts[k] = [...v];
  let registry: SecretRegistry | undefined;
  let report: (() => RunReport) | undefined;
  let changeVaultHosts: SecretSource['changeHosts'];
  const run: RunInfo = { mode: options.mode, pid: process.pid, ...(options.reportFile === undefined ? {} : { reportFile: options.reportFile }) };
  const startedAt = Date.now();

  const audit = (event: 'ui_login' | 'ui_action', fields: Record<string, unknown>): void => {
    logEvent(options.logger, 'info', event, fields);
    try {
      ensureHome(options.home);
      appendFileSync(auditFile(options.home), `${JSON.stringify({ time: new Date().toISOString(), event, pid: process.pid, ...fields })}\n`, { mode: 0o600 });
    } catch {
      // The log line above still records it; a full disk never stops the action.
    }
  };
  const grants = createHostGrants({
    catalog,
    get changeVaultHosts() {
      return changeVaultHosts;
    },
    runtimeHosts,
    getRestore: options.getRestore,
    setRestore: options.setRestore,
    async reload() {
      await registry?.reload();
    },
    audit(action, grant, by) {
      audit('ui_action', { action, secret: grant.secret, host: grant.host, where: grant.parts.map((p) => `${p.name}:${p.place}${p.added ? '' : ' (already)'}`), session: by, grant: grant.id });
    },
  });

  let dashboard: Promise<{ app: { fetch: (request: Request, env: AppEnv['Bindings']) => Response | Promise<Response> }; closeStreams(): void }> | undefined;
  const load = () =>
    import('./dashboard.tsx').then(({ createDashboard }) =>
      createDashboard({
        feed,
        auth,
        home: options.home,
        tokenRequired: options.tokenRequired,
        hasVault: changeVaultHosts !== undefined,
        audit,
        tallies: createTallies(feed),
        catalog,
        grants,
        registry: registry as SecretRegistry,
        report: () => (report as () => RunReport)(),
        getRestore: options.getRestore,
        detect: options.detect,
        upstreams: options.upstreams,
        run: () => run,
        startedAt,
      }),
    );

  return {
    feed,
    catalog,
    auth,
    grants,
    secretHosts: () => runtimeHosts,
    attach(parts) {
      registry = parts.registry;
      report = parts.report;
      const vault = parts.sources.find((s) => s.kind === 'vault' && s.changeHosts !== undefined);
      changeVaultHosts = vault?.changeHosts?.bind(vault);
    },
    setRun(info) {
      if (info.mode !== undefined) run.mode = info.mode;
      if (info.command !== undefined) run.command = info.command;
    },
    async handle(c) {
      dashboard ??= load();
      return (await dashboard).app.fetch(c.req.raw, c.env);
    },
    async close() {
      if (dashboard !== undefined) (await dashboard).closeStreams();
    },
  };
}
