// Programmatic API: createFicta(config) builds the registry, upstream client and app; listen() starts
// the proxy. The CLI's `serve` is a thin wrapper around this.

import type { Hono } from 'hono';
import type { Tenancy } from './gateway/tenant.ts';
import type { SourceStatus, SourcesChange } from './gateway/sources.ts';
import type { SourceConfig } from './gateway/sources-config.ts';
import { ok } from './util/result.ts';
import type { Config } from './config/schema.ts';
import { FictaError } from './errors.ts';
import { createLogger, logEvent, type Logger } from './log/logger.ts';
import { createApp, type AppEnv } from './server/app.ts';
import { baseUrls, isLoopbackHost, type BaseUrls } from './server/access.ts';
import { createInFlight, listen, type RefusedAtListener, type RunningServer } from './server/listen.ts';
import { createRunStats, type RequestSummary, type RunReport } from './server/stats.ts';
import { nextRequestId, type ProxyDeps } from './server/proxy.ts';
import { createDashboardMount } from './ui/mount.ts';
import { logRefusedRequest, refusedRoute, tunnelRoute, type RequestLogDeps } from './server/request-log.ts';
import { createUpstreamClient } from './server/upstream.ts';
import { openaiErrors } from './providers/error-shapes.ts';
import { createRouter } from './providers/routes.ts';
import { mcpDirectoryFor } from './mcp/config.ts';
import type { McpServer } from './mcp/servers.ts';
import { createUpstreamTable } from './providers/upstreams.ts';
import { createEnvFileSource, createEnvVarSource } from './secrets/env-sources.ts';
import { createFilePlaceholderKeyProvider } from './secrets/placeholder-key-file.ts';
import { createSecretRegistry, type SecretRegistry } from './secrets/registry.ts';
import { withConfiguredHosts } from './sinks/config-hosts.ts';
import { createWatermarker } from './watermark/watermarker.ts';
import { createDetectionFor } from './detect/from-config.ts';
import type { Detection } from './redact/secret-set.ts';
import { MIN_SECRET_LENGTH, type PlaceholderKeyProvider, type SecretSource } from './secrets/types.ts';

export type { Config } from './config/schema.ts';
export type { SecretEntry, SecretSource, PlaceholderKeyProvider } from './secrets/types.ts';
export type { RunningServer } from './server/listen.ts';
export type { BaseUrls } from './server/access.ts';
export type { RequestSummary, RunReport } from './server/stats.ts';
export type { Tenant, Tenancy, AuthResult } from './gateway/tenant.ts';
export type { SourceStatus } from './gateway/sources.ts';

export interface FictaOptions {
  config: Config;
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  /** Extra secret sources (the vault), added to those the config names. */
  sources?: SecretSource[];
  /** Where the placeholder key lives; FICTA_HOME/placeholder.key by default. */
  keyProvider?: PlaceholderKeyProvider;
  /** Told about every finished request (names and counts, as in the run report). */
  onRequest?: (summary: RequestSummary) => void;
  /** The command this proxy serves (serve, run, claude, …), shown by the dashboard. */
  mode?: string;
  /** MCP servers found in an agent's configuration (`ficta <agent>`); `[mcp.servers]` of the same name win. */
  mcpServers?: readonly McpServer[];
  /**
   * The gateway's tenants (issue 21): every provider request is authenticated by it, placeholders are
   * per tenant under its key, and restore follows each source's `groups`.
   */
  tenancy?: Tenancy;
  /** How long a value removed from or replaced in a `[[sources]]` source stays protected (`[gateway] retain`; default 7 days). */
  retainMs?: number;
}

/** The dashboard's handle on a running proxy (present unless `ui.enabled` is false). */
export interface FictaDashboard {
  /** The key `ficta ui` presents to ask for a one-time link (the CLI keeps it in a 0600 file; never shown). */
  readonly linkKey: string;
  /** Names the wrapped command for the Runs page (its name only, never its arguments). */
  setRun(info: { mode?: string; command?: string }): void;
}

export interface Ficta {
  app: Hono<AppEnv>;
  registry: SecretRegistry;
  logger: Logger;
  /** Starts listening on the configured host and port. */
  listen(): Promise<RunningServer & { baseUrls: BaseUrls }>;
  /** Totals so far: requests, redactions, restores and blocks by secret name. */
  report(): RunReport;
  /** The dashboard at /_ficta/, unless disabled. */
  dashboard: FictaDashboard | undefined;
  /** Stops the server (graceful) and releases every resource. */
  close(): Promise<void>;
  /** Every source has loaded at least once (the gateway's readiness). */
  ready(): boolean;
  /** The `[[sources]]` and how their last loads went (names, counts and times, never values). */
  sources(): SourceStatus[];
  /** Loads every source again (SIGHUP) and swaps the new set in; requests in flight keep theirs. */
  reload(): Promise<void>;
  /** `[[sources]]` not yet loaded under their current definition (names only). */
  pendingSources(): string[];
  /**
   * Applies a changed `[[sources]]` list (gateway/sources.ts `apply`), then, unless `reload` is false (the
   * caller reloads next), reads the added and changed sources and swaps the new set in.
   */
  setSources(sources: readonly SourceConfig[], options?: { reload?: boolean }): Promise<SourcesChange>;
  /** Provider requests in flight. */
  inFlight(): number;
  /** Resolves when no provider request is in flight. */
  drain(): Promise<void>;
}

/** Builds a proxy from a validated config; throws FictaError when the secrets cannot be loaded. */
export async function createFicta(options: FictaOptions): Promise<Ficta> {
  const { config } = options;
  const env = options.env ?? process.env;
  if (!isLoopbackHost(config.host) && config.token === undefined && options.tenancy === undefined) {
    throw new FictaError('FICTA_CONFIG_INVALID', `serve: refusing to bind ${config.host} without an access token: anyone who can reach the proxy could have secrets restored (set --token or FICTA_TOKEN)`);
  }
  const logger =
    options.logger ?? createLogger({ level: config.log.level, format: config.log.format, ...(config.log.file === undefined ? {} : { destination: config.log.file }) });

  const sources: SecretSource[] = [
    ...config.secrets.envFiles.map((p) => createEnvFileSource(p)),
    ...(config.secrets.env.length > 0
      ? [
          createEnvVarSource(
            config.secrets.env,
            env,
            config.secrets.allowMissing ? (name) => logEvent(logger, 'warn', 'secrets_skipped', { secret: name, reason: 'not-set', source: 'env', msg: `secret ${name} not registered: the environment variable is not set` }) : undefined,
          ),
        ]
      : []),
    ...(options.sources ?? []),
  ];
  // `[[sources]]`: read once here (a failure leaves the instance not ready, never without the source's values).
  // A gateway always has them (its config may add the first one later, applied live).
  const org =
    config.sources.length === 0 && options.tenancy === undefined
      ? undefined
      : // Loaded only when a config names sources (a gateway, or serve with `[[sources]]`): not on every start.
        await (await import('./gateway/sources.ts')).createOrgSources(config.sources, {
          env,
          ...(options.retainMs === undefined ? {} : { retainMs: options.retainMs }),
          onResult: (source, error, values, loaded) =>
            error === undefined
              ? logEvent(logger, 'debug', 'source_loaded', { source, values })
              : logEvent(logger, 'warn', 'source_load_failed', {
                  source,
                  code: error.code,
                  error: error.message,
                  kept: values,
                  msg: loaded
                    ? `source ${source} failed to load; keeping its last good values (${values})`
                    : `source ${source} failed to load; its values join the secret set once it loads (retried on its refresh schedule and on SIGHUP)`,
                }),
        });
  if (org !== undefined) sources.push(org.source);
  const { anthropic, openai, gemini, ollama, chatgpt, ...named } = config.upstreams;
  const table = createUpstreamTable({ anthropic, openai, gemini, ollama, chatgpt }, Object.fromEntries(Object.entries(named).map(([n, u]) => [n, u.url])));
  if (!table.ok) throw table.error;
  // Detection for the terms the sources hold (vault `--term` records); `detection` is the latest, for the report.
  // A gateway's placeholders come from its key and each tenant's name (src/gateway/tenant-placeholder.ts).
  const scheme = options.tenancy === undefined ? undefined : (await import('./gateway/tenant-placeholder.ts')).createGatewayKeys(options.tenancy.key);
  const detectionFor = createDetectionFor(config, scheme === undefined ? undefined : (v) => scheme.fingerprint(v));
  let detection: Detection | undefined;
  let restore = config.restore;
  const ui = config.ui.enabled
    ? createDashboardMount({
        home: config.home,
        requests: config.ui.requests,
        logger,
        tokenRequired: config.token !== undefined,
        detect: config.detect,
        upstreams: Object.entries(config.upstreams).map(([name, u]) => ({ name, origin: originOf(typeof u === 'string' ? u : u.url) })),
        secretHosts: config.secrets.hosts,
        getRestore: () => restore,
        setRestore: (next) => {
          restore = next;
          deps.restore = next;
        },
        mode: options.mode ?? 'serve',
        reportFile: config.reportFile,
      })
    : undefined;
  const registryResult = await createSecretRegistry({
    sources: ui === undefined ? withConfiguredHosts(sources, config.secrets.hosts) : ui.catalog.wrap(withConfiguredHosts(sources, ui.secretHosts)),
    detectionFor: (terms) => (detection = detectionFor(terms)),
    ...(scheme === undefined ? {} : { scheme, offThread: true }),
    keyProvider: scheme !== undefined ? gatewayKeyProvider(options.tenancy as Tenancy) : (options.keyProvider ?? createFilePlaceholderKeyProvider(config.home)),
    onSkipped: (skipped) => {
      for (const s of skipped) {
        const why = s.reason === 'empty' ? 'it is empty' : `it is shorter than ${MIN_SECRET_LENGTH} characters and would match ordinary text`;
        logEvent(logger, 'warn', 'secrets_skipped', { secret: s.name, source: s.source, reason: s.reason, msg: `secret ${s.name} refused: ${why}` });
      }
    },
    onLoaded: (info) => {
      org?.built(info.version);
      logEvent(logger, 'info', 'secrets_loaded', { count: info.count, version: info.version, buildMs: Math.round(info.buildMs) });
    },
    onError: (error) => logEvent(logger, 'error', 'secrets_reload_failed', { code: error.code, error: error.message }),
  });
  if (!registryResult.ok) throw registryResult.error;
  const registry = registryResult.value;

  const upstream = createUpstreamClient(config.limits);
  const mcp = mcpDirectoryFor(config.mcp, options.mcpServers);
  const router = createRouter(table.value, mcp);
  const inFlight = createInFlight();
  const onRequest = options.onRequest;
  // The dashboard's ring gets each summary first: one push, nothing else on the request's path.
  const stats = createRunStats(ui === undefined ? onRequest : onRequest === undefined ? ui.feed.end : (s) => (ui.feed.end(s), onRequest(s)), ui?.feed.start);
  const watermarker = config.watermark.enabled ? createWatermarker({ config: config.watermark, home: config.home, logger }) : undefined;
  const deps: ProxyDeps = {
    registry,
    upstream,
    router,
    logger,
    limits: config.limits,
    restore,
    mcp,
    stats,
    ...(watermarker === undefined ? {} : { watermarker }),
  };
  const app = createApp(deps, { onRequestStart: inFlight.start, onRequestEnd: inFlight.end }, { token: config.token, tenancy: options.tenancy, ...(org === undefined ? {} : { ready: org.ready }), mount: ui === undefined ? undefined : { prefix: '/_ficta', handle: ui.handle } });
  const report = (): RunReport => ({ ...stats.snapshot(), ...(detection === undefined ? {} : { detectedStore: detection.store.stats() }) });
  ui?.attach({ registry, report, sources });

  let running: RunningServer | undefined;
  return {
    app,
    registry,
    logger,
    async listen() {
      const logDeps: RequestLogDeps = { logger, stats };
      running = await listen(app, config.host, config.port, inFlight, logger, {
        errorShapeFor: (rawUrl) => router.resolve(withoutTokenSegment(rawUrl))?.errorShape ?? openaiErrors,
        onRefused: (r) => logRefusedAtListener(logDeps, registry, r),
        onTunnelRefused: (target, bytesOut) => logRefusedTunnel(logDeps, registry, target, bytesOut),
      });
      // The automaton is compiled just after the ready line rather than before it; a request that comes
      // sooner compiles it itself (scanSecrets reads set.matcher), so nothing passes unscanned.
      // The upstream client's HTTP stack likewise.
      setImmediate(() => {
        const snap = registry.current();
        if (snap.kind === 'ready') void snap.set.matcher;
        upstream.warm();
      });
      // The token is a credential: logged only as "set", never in the URL.
      logEvent(logger, 'info', 'listening', { url: running.url, token: config.token === undefined ? 'none' : 'required' });
      return { ...running, baseUrls: baseUrls(running.url, config.token) };
    },
    report,
    dashboard: ui === undefined ? undefined : { linkKey: ui.auth.linkKey, setRun: ui.setRun },
    ready: () => registry.current().kind === 'ready' && (org?.ready() ?? true),
    sources: () => org?.status(registry.current().version) ?? [],
    pendingSources: () => org?.pending() ?? [],
    async reload() {
      // Sources first (quietly), then one rebuild of the set with everything they read.
      if (org !== undefined) await org.refreshAll({ quiet: true });
      await registry.reload();
    },
    async setSources(next, setOptions = {}) {
      if (org === undefined) throw new FictaError('FICTA_CONFIG_INVALID', 'sources: this proxy was started without [[sources]]; adding them needs a restart');
      const change = await org.apply(next, { read: setOptions.reload !== false });
      if (setOptions.reload !== false) await registry.reload();
      return change;
    },
    inFlight: () => inFlight.count,
    drain: () => (inFlight.count === 0 ? Promise.resolve() : new Promise<void>((resolve) => inFlight.idle.push(resolve))),
    async close() {
      await ui?.close();
      if (running !== undefined) await running.close(config.limits.shutdownGraceMs);
      org?.close();
      await registry.close();
      await upstream.close();
      await watermarker?.close();
      logEvent(logger, 'info', 'shutdown', {});
      logger.flush();
    },
  };
}

/**
 * A refused CONNECT tunnel (`ficta gemini` makes ficta Gemini CLI's HTTPS proxy, so whatever would bypass
 * the base URL ends here): one request line with outcome `egress_refused`, counted like any request.
 */
function logRefusedTunnel(deps: RequestLogDeps, registry: SecretRegistry, target: string, bytesOut: number): void {
  const snap = registry.current();
  const { route, blocked } = tunnelRoute(target, snap.kind === 'ready' ? snap.set : undefined);
  logRefusedRequest(deps, { id: nextRequestId(), method: 'CONNECT', route, status: 403, outcome: 'egress_refused', bytesOut, blocked });
}

/**
 * A request the server refused before routing (a dot segment, a WebSocket upgrade): one request line, its
 * route without the `/t/<token>` segment or the query and with every registered value redacted.
 */
function logRefusedAtListener(deps: RequestLogDeps, registry: SecretRegistry, r: RefusedAtListener): void {
  const snap = registry.current();
  const route = refusedRoute(r.rawUrl, snap.kind === 'ready' ? snap.set : undefined);
  logRefusedRequest(deps, { id: nextRequestId(), method: r.method, route, status: r.status, outcome: r.outcome, bytesOut: r.bytesOut });
}

/** The gateway key stands in for the placeholder key (a gateway set has no placeholders of its own). */
function gatewayKeyProvider(tenancy: Tenancy): PlaceholderKeyProvider {
  return { getKey: async () => ok(Buffer.from(tenancy.key)) };
}

/** A raw target without its `/t/<token>` segment (to guess the route whose error shape a refusal takes). */
function withoutTokenSegment(rawUrl: string): string {
  return rawUrl.replace(/^\/t\/[^/?]*/, '');
}

/** An upstream URL's origin only (never a path or credentials in it). */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'invalid';
  }
}
