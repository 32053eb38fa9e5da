// One gateway instance: the engine (createFicta) with the token-file tenancy, the admin listener and its
// metrics, the token file watched for changes, reload (SIGHUP) and the drain sequence (DESIGN §11): not
// ready at once, keep accepting for `drainDelay`, stop accepting, let requests in flight finish within
// `drainTimeout`, end the rest.

import type { Config } from '../config/schema.ts';
import { FictaError } from '../errors.ts';
import { createFicta, type Ficta, type RequestSummary } from '../index.ts';
import { createLogger, logEvent, type Logger } from '../log/logger.ts';
import { startAdmin, type AdminServer } from './admin.ts';
import { gatewayConfigOf } from './config.ts';
import { diffConfig } from './config-reload.ts';
import type { SourcesChange } from './sources.ts';
import { readGatewayKey } from './key.ts';
import { createGatewayMetrics, type GatewayMetrics, type RequestFacts } from './metrics.ts';
import { LAST_USED_FLUSH_MS, mergeLastUsed } from './last-used.ts';
import { createTenancy, type GatewayTenancy } from './tenancy.ts';
import { createTokenStore, fileStamp, type TokenStore } from './tokens.ts';

export interface GatewayOptions {
  config: Config;
  env?: NodeJS.ProcessEnv;
  /** Defaults to JSON lines: request lines (the audit trail) on stdout, the rest on stderr or `log.file`. */
  logger?: Logger;
  /** The config file, watched for changes (with `reloadConfig`). */
  configFile?: string | undefined;
  /** Reads and validates the config again (throws a FictaError naming the key when it is invalid). */
  reloadConfig?: () => Config;
}

export interface Gateway {
  ficta: Ficta;
  logger: Logger;
  url: string;
  adminUrl: string;
  /** Ready: every source loaded once, and not draining. */
  ready(): boolean;
  /** Reads the token file and every source again (SIGHUP); a failed part keeps its last good state. */
  reload(): Promise<void>;
  /** The drain sequence; resolves when the instance has stopped (idempotent). */
  drain(options?: { delayMs?: number }): Promise<void>;
}

/** Starts one gateway instance: public listener, admin listener, token watch. */
export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const gw = gatewayConfigOf(options.config, undefined);
  // In flight at SIGTERM: the engine's graceful close waits `drainTimeout`, then ends what remains.
  const config: Config = { ...options.config, limits: { ...options.config.limits, shutdownGraceMs: gw.drainTimeout } };
  const logger =
    options.logger ??
    createLogger({ level: config.log.level, format: 'json', requestDestination: 1, ...(config.log.file === undefined ? {} : { destination: config.log.file }) });
  const key = readGatewayKey(gw.keyFile);
  const tokensResult = createTokenStore(gw.tokensFile);
  if (!tokensResult.ok) throw tokensResult.error;
  let tokens: TokenStore = tokensResult.value;

  let draining = false;
  let ficta: Ficta | undefined;
  const ready = (): boolean => !draining && ficta !== undefined && ficta.ready();
  const engineReady = (): boolean => ficta !== undefined && ficta.ready();
  let metrics: GatewayMetrics | undefined;
  const tenancy: GatewayTenancy = createTenancy({ tokens, key, maxConcurrent: gw.maxConcurrent, ready: engineReady });
  ficta = await createFicta({
    // The public listener serves tenants only: no dashboard there (its admin listener serves readiness and
    // metrics, nothing else; a dashboard across tenants is not built yet, docs/ui.md).
    config: { ...config, ui: { ...config.ui, enabled: false } },
    ...(options.env === undefined ? {} : { env: options.env }),
    logger,
    tenancy,
    retainMs: gw.retain,
    onRequest: (s) => metrics?.observe(factsOf(s)),
  });
  const engine = ficta;
  metrics = createGatewayMetrics({
    tenantLabels: gw.metrics.tenantLabels,
    sources: () => engine.sources(),
    inFlight: () => engine.inFlight(),
    tokens: () => tokens.counts(),
    ready,
    secretSet: () => {
      const snap = engine.registry.current();
      return snap.kind === 'ready' ? { version: snap.version, values: snap.set.size } : undefined;
    },
  });
  const m = metrics;

  let running: Awaited<ReturnType<Ficta['listen']>>;
  try {
    running = await engine.listen();
  } catch (cause) {
    await engine.close();
    throw new FictaError('FICTA_LISTEN_FAILED', `gateway: cannot listen on ${config.host}:${config.port} (${(cause as NodeJS.ErrnoException).code ?? 'error'})`, { cause });
  }
  let admin: AdminServer;
  try {
    admin = await startAdmin({
      host: gw.adminHost,
      port: gw.adminPort,
      // Names only: a ready instance lists a source added later that has not loaded yet (`pending`).
      ready: () => {
        const pending = engine.pendingSources();
        if (draining) return { ready: false, reason: 'draining' };
        if (!engineReady()) return { ready: false, reason: 'sources not loaded', pending };
        return pending.length === 0 ? { ready: true } : { ready: true, pending };
      },
      metrics: () => m.render(),
    });
  } catch (cause) {
    await engine.close();
    throw new FictaError('FICTA_LISTEN_FAILED', `gateway: cannot listen on ${gw.adminHost}:${gw.adminPort} for the admin listener (${(cause as NodeJS.ErrnoException).code ?? 'error'})`, { cause });
  }
  logEvent(logger, 'info', 'gateway_listening', { url: running.url, admin: admin.url, tenants: tokens.counts().active, ready: engineReady() });

  const reloadTokens = (result: ReturnType<TokenStore['reload']> | undefined): void => {
    if (result === undefined) return;
    if (!result.ok) {
      m.reloadFailed('tokens');
      logEvent(logger, 'error', 'tokens_reload_failed', { code: result.error.code, error: result.error.message });
    } else if (result.value.changed) logEvent(logger, 'info', 'tokens_loaded', { active: result.value.active, revoked: result.value.revoked });
  };
  // The config as it runs, and what a changed file means for it (config-reload.ts).
  let current = options.config;
  let configStamp = options.configFile === undefined ? undefined : fileStamp(options.configFile);
  /** `reloadSources` false: the caller reloads every source next (SIGHUP), so added ones are read then. */
  const applyConfigNow = async (why: 'signal' | 'file', reloadSources: boolean): Promise<void> => {
    if (options.reloadConfig === undefined) return;
    let next: Config;
    try {
      next = options.reloadConfig();
    } catch (error) {
      m.reloadFailed('config');
      logEvent(logger, 'error', 'gateway_config_invalid', { code: (error as FictaError).code, error: (error as Error).message, msg: 'the changed config is not valid; running on with the previous one' });
      return;
    }
    const change = diffConfig(current, next);
    if (change.tokensFile !== undefined) {
      const store = createTokenStore(change.tokensFile);
      if (store.ok) {
        tokens = store.value;
        tenancy.setTokens(tokens);
      } else {
        reloadTokens(store);
        change.restartNeeded.push('gateway.tokensFile');
      }
    }
    if (change.maxConcurrent !== undefined) tenancy.setMaxConcurrent(change.maxConcurrent);
    if (change.tokensPoll !== undefined) schedulePoll(change.tokensPoll);
    current = next;
    let sources: SourcesChange | undefined;
    if (change.sources !== undefined) {
      try {
        // Added sources are read and join the set once loaded; removed ones retire their values (retain).
        sources = await engine.setSources(change.sources, { reload: reloadSources });
      } catch (error) {
        m.reloadFailed('config');
        change.restartNeeded.push('sources');
        logEvent(logger, 'error', 'gateway_config_invalid', { code: (error as FictaError).code, error: (error as Error).message, msg: 'the changed [[sources]] could not be applied' });
      }
    }
    logEvent(logger, change.restartNeeded.length === 0 ? 'info' : 'warn', 'gateway_config_changed', {
      trigger: why,
      applied: [
        ...(sources === undefined ? [] : ['sources']),
        ...(change.maxConcurrent === undefined ? [] : ['gateway.maxConcurrent']),
        ...(change.tokensFile === undefined ? [] : ['gateway.tokensFile']),
        ...(change.tokensPoll === undefined ? [] : ['gateway.tokensPoll']),
      ],
      // On SIGHUP the added sources are read just after this line (with every other source): no `pending` yet.
      ...(sources === undefined ? {} : { sources: reloadSources ? { ...sources, pending: engine.pendingSources() } : sources }),
      restartNeeded: change.restartNeeded,
      ...(change.restartNeeded.length === 0 ? {} : { msg: `config changed: ${change.restartNeeded.join(', ')} take effect on a restart (a rolling restart of the fleet)` }),
    });
  };
  // One change at a time, in the order they were seen.
  let applying: Promise<void> = Promise.resolve();
  const applyConfig = (why: 'signal' | 'file', reloadSources = true): Promise<void> => {
    applying = applying.then(() => applyConfigNow(why, reloadSources)).catch((error: unknown) => {
      logEvent(logger, 'error', 'gateway_config_invalid', { error: (error as Error).message, msg: 'the changed config could not be applied' });
    });
    return applying;
  };
  // Polled, not watched: a rename over the file or a Kubernetes `..data` swap is seen the same way.
  const check = (): void => {
    reloadTokens(tokens.reloadIfChanged());
    if (options.configFile === undefined) return;
    const stamp = fileStamp(options.configFile);
    if (stamp !== undefined && stamp !== configStamp) {
      configStamp = stamp;
      void applyConfig('file');
    }
  };
  let poll: NodeJS.Timeout | undefined;
  const schedulePoll = (ms: number): void => {
    clearInterval(poll);
    poll = setInterval(check, ms);
    poll.unref();
  };
  schedulePoll(gw.tokensPoll);
  const lastUsedFile = gw.lastUsedFile;
  const flushLastUsed = (): void => {
    if (lastUsedFile !== undefined && !mergeLastUsed(lastUsedFile, tokens.lastUsed())) logEvent(logger, 'warn', 'last_used_write_failed', { error: `gateway: cannot write ${lastUsedFile} (last-used times)` });
  };
  const lastUsedTimer = lastUsedFile === undefined ? undefined : setInterval(flushLastUsed, LAST_USED_FLUSH_MS);
  lastUsedTimer?.unref();

  let stopped: Promise<void> | undefined;
  return {
    ficta: engine,
    logger,
    url: running.url,
    adminUrl: admin.url,
    ready,
    async reload() {
      if (options.configFile !== undefined) configStamp = fileStamp(options.configFile);
      await applyConfig('signal', false);
      reloadTokens(tokens.reload());
      await engine.reload();
    },
    drain(drainOptions = {}) {
      stopped ??= (async () => {
        draining = true;
        const delayMs = drainOptions.delayMs ?? gw.drainDelay;
        logEvent(logger, 'info', 'gateway_draining', { delayMs, timeoutMs: gw.drainTimeout, inFlight: engine.inFlight() });
        if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
        clearInterval(poll);
        await engine.close();
        clearInterval(lastUsedTimer);
        flushLastUsed();
        await admin.close();
      })();
      return stopped;
    },
  };
}

/** The engine's request summary as the metrics read it. */
function factsOf(s: RequestSummary): RequestFacts {
  return {
    outcome: s.outcome,
    status: s.status,
    provider: s.provider,
    adapter: s.adapter,
    tenant: s.tenant,
    groups: s.groups,
    redactionsBySource: s.redactionsBySource,
    restoresBySource: s.restoresBySource,
    detections: detectionsOf(s.redactions),
    withheld: s.withheld,
    blocked: s.blocked,
    addedMs: s.ms === undefined ? undefined : s.upstreamMs === undefined ? s.ms : Math.max(0, s.ms - s.upstreamMs),
    upstreamMs: s.upstreamMs,
  };
}

/** Detected credentials are counted under `detected:<kind>` names among the redactions. */
function detectionsOf(redactions: Record<string, number>): Record<string, number> | undefined {
  let out: Record<string, number> | undefined;
  for (const [name, n] of Object.entries(redactions)) {
    if (!name.startsWith('detected:')) continue;
    out ??= {};
    const kind = name.slice('detected:'.length);
    out[kind] = (out[kind] ?? 0) + n;
  }
  return out;
}
