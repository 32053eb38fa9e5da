// A running proxy for a command: start it, refuse or warn when it would protect nothing, publish its
// base URLs (ready file) and its entry for `ficta status`, re-unlock the vault on demand, and on stop
// write the run report. Used by serve, run and the agent commands.

import { rmSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { loadConfig } from '../config/load.ts';
import type { Config } from '../config/schema.ts';
import { FictaError } from '../errors.ts';
import { createFicta, type BaseUrls, type Ficta, type RequestSummary, type RunReport } from '../index.ts';
import { logEvent, type Logger } from '../log/logger.ts';
import { maskToken } from '../server/access.ts';
import { writeAtomic } from '../util/atomic-file.ts';
import { createDetector } from '../detect/detector.ts';
import { createCredentialFinder } from '../detect/find.ts';
import { discoverSources, type DiscoveredSource } from '../secrets/discover.ts';
import type { SecretSource } from '../secrets/types.ts';
import { err, ok, type Result } from '../util/result.ts';
import { vaultExists } from '../vault/path.ts';
import type { VaultSecretSource } from '../vault/source.ts';
import { VERSION } from '../version.ts';
import type { McpServer } from '../mcp/servers.ts';
import { formatDiscoveryNotice } from './discovery-notice.ts';
import { publishInstance, publishUiKey } from './instances.ts';
import { createNotices, type Notices } from './notice.ts';
import { withVaultWayOut } from './vault-hints.ts';

export { EXIT_BLOCKED } from './exit-codes.ts';

export interface ProxySession {
  ficta: Ficta;
  config: Config;
  url: string;
  baseUrls: BaseUrls;
  /** ficta's own stderr lines, in the log's format (JSON with --log-format json). */
  notices: Notices;
  /** Unlocks the vault again with the credentials ficta started with (no prompt); the number of secrets after. */
  reunlock(): Promise<Result<number>>;
  /** Stops the proxy (graceful), writes the report file, removes the ready file and status entry; returns the report. */
  stop(): Promise<RunReport>;
}

export interface StartSessionOptions {
  flags: Record<string, unknown>;
  /** The command that starts the proxy, shown by `ficta status` (serve, run, claude, …). */
  mode: string;
  /** `--key-file` for a key-file vault (else FICTA_VAULT_KEY_FILE / FICTA_VAULT_PASSPHRASE / prompt). */
  keyFile?: string | undefined;
  /** Where an interactive vault prompt reads and writes (a TTY only). */
  stdin?: Readable;
  stderr: Writable;
  /** The command's defaults, under the config file. */
  defaults?: Record<string, unknown>;
  configFile: string | undefined;
  env: NodeJS.ProcessEnv;
  readyFile?: string | undefined;
  logger?: Logger;
  /** How a running proxy's vault is unlocked again after `vault passwd`/`rekey`/`restore` (in 503 messages). */
  reunlockHint?: string;
  /** Told about every finished request. */
  onRequest?: (summary: RequestSummary, notices: Notices) => void;
  /** Working directory discovery looks in (default: the process's). */
  cwd?: string;
  /** MCP servers found in the wrapped agent's configuration. */
  mcpServers?: readonly McpServer[];
}

/** Loads the config and starts a proxy. */
export async function startSession(options: StartSessionOptions): Promise<ProxySession> {
  const loaded = loadConfig({
    flags: options.flags,
    env: options.env,
    ...(options.defaults === undefined ? {} : { defaults: options.defaults }),
    ...(options.configFile === undefined ? {} : { configFile: options.configFile }),
  });
  if (!loaded.ok) throw loaded.error;
  const config = loaded.value;
  const notices = createNotices(options.stderr, config.log.format === 'json');
  const vault = await openVaultSource(config, options);
  let ficta: Ficta;
  try {
    const discovered = discover(config, options, vault !== undefined);
    const sources: SecretSource[] = [...(vault === undefined ? [] : [vault]), ...discovered.map((d) => d.source)];
    ficta = await createFicta({
      config,
      env: options.env,
      ...(options.logger === undefined ? {} : { logger: options.logger }),
      // The vault is one more secret source and holds the placeholder key.
      ...(sources.length === 0 ? {} : { sources }),
      ...(vault === undefined ? {} : { keyProvider: vault }),
      ...(options.onRequest === undefined ? {} : { onRequest: (s: RequestSummary) => options.onRequest?.(s, notices) }),
      mode: options.mode,
      ...(options.mcpServers === undefined ? {} : { mcpServers: options.mcpServers }),
    });
    // One start-up line per discovered source (a `discovered` JSON line with --log-format json): counts and
    // variable names, never values.
    const lines = formatDiscoveryNotice(discovered);
    discovered.forEach((d, i) => notices.info('discovered', lines[i] as string, { source: d.where, count: d.count, ...(d.names.length === 0 ? {} : { secrets: d.names }) }));
  } catch (error) {
    vault?.close();
    throw error;
  }
  const unprotected = nothingToProtect(ficta);
  // --require-secrets asks for registered secrets: detection alone (which only knows credential formats)
  // does not satisfy it.
  if (config.secrets.require && noSecretRegistered(ficta)) {
    await ficta.close();
    throw new FictaError('FICTA_SECRETS_NONE', 'secrets: no secret registered (none from --env-file, --secret-env, the vault or discovery) and secrets are required (--require-secrets); not starting');
  }
  let running;
  try {
    running = await ficta.listen();
  } catch (cause) {
    await ficta.close();
    const code = (cause as NodeJS.ErrnoException).code ?? 'error';
    throw new FictaError('FICTA_LISTEN_FAILED', `serve: cannot listen on ${config.host}:${config.port} (${code})`, { cause });
  }
  if (unprotected) {
    notices.warn('unprotected', 'nothing to protect: no secrets registered (no --env-file, --secret-env or vault entries) and detection is off, so requests pass through unredacted; add secrets, or use --require-secrets to refuse to start');
  } else if (noSecretRegistered(ficta)) {
    notices.warn('unregistered', 'no secrets registered (no --env-file, --secret-env, vault entries or discovered .env): only credentials that detection recognises are redacted; add secrets, or use --require-secrets to refuse to start');
  }
  const readyFile = options.readyFile ?? config.readyFile;
  if (readyFile !== undefined) writeAtomic(readyFile, formatReadyFile(running.url, running.baseUrls));
  const unpublish = publishInstance(
    config.home,
    { pid: process.pid, mode: options.mode, url: maskToken(running.baseUrls.root), host: running.host, port: running.port, startedAt: Date.now(), version: VERSION },
    () => ficta.report(),
  );
  const unpublishUi = ficta.dashboard === undefined ? () => {} : publishUiKey(config.home, process.pid, ficta.dashboard.linkKey);
  let stopped: Promise<RunReport> | undefined;
  return {
    ficta,
    config,
    url: running.url,
    baseUrls: running.baseUrls,
    notices,
    async reunlock() {
      if (vault === undefined) return err(new FictaError('FICTA_VAULT_NOT_FOUND', 'vault: this proxy does not use the vault'));
      const reopened = await vault.reopen({ env: options.env, keyFile: options.keyFile, stdin: options.stdin ?? process.stdin, stderr: options.stderr, mayPrompt: false });
      if (!reopened.ok) {
        logEvent(ficta.logger, 'warn', 'vault_reunlock_failed', { code: reopened.error.code, msg: reopened.error.message });
        return reopened;
      }
      const snap = await ficta.registry.reload();
      if (snap.kind === 'unavailable') return err(snap.error);
      logEvent(ficta.logger, 'info', 'vault_reunlocked', { count: snap.set.size });
      return ok(snap.set.size);
    },
    stop() {
      stopped ??= (async () => {
        unpublish();
        unpublishUi();
        await ficta.close();
        const report = ficta.report();
        if (config.reportFile !== undefined) writeAtomic(config.reportFile, `${JSON.stringify(report, null, 2)}\n`);
        if (readyFile !== undefined) rmSyncQuiet(readyFile);
        return report;
      })();
      return stopped;
    },
  };
}

/** True when the proxy would protect nothing: no registered secret from any source, and detection off. */
export function nothingToProtect(ficta: Ficta): boolean {
  const snap = ficta.registry.current();
  return snap.kind === 'ready' && snap.set.inert;
}

/** True when no source registered a secret (detection may still be on). */
function noSecretRegistered(ficta: Ficta): boolean {
  const snap = ficta.registry.current();
  return snap.kind === 'ready' && snap.set.size === 0;
}

/**
 * The vault as a secret source, per `secrets.vault`: "auto" uses it when FICTA_HOME/vault.db exists,
 * "on" requires it, "off" never opens it. Unlocking fails the start (never a silent unredacted run); a
 * damaged file says what to do next.
 */
async function openVaultSource(config: Config, options: StartSessionOptions): Promise<VaultSecretSource | undefined> {
  if (config.secrets.vault === 'off') return undefined;
  if (!vaultExists(config.home)) {
    if (config.secrets.vault === 'on') throw new FictaError('FICTA_VAULT_NOT_FOUND', `vault: no vault at ${config.home} (ficta vault init), and secrets.vault is "on"`);
    return undefined;
  }
  // Loaded only here: the vault's modules bring libsodium and better-sqlite3, which a start without a
  // vault never needs (they were ~20 ms of `ficta serve`'s start).
  const { unlockVaultSource } = await import('../vault/source.ts');
  const unlocked = await unlockVaultSource({
    home: config.home,
    env: options.env,
    keyFile: options.keyFile,
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
    stderr: options.stderr,
    ...(options.reunlockHint === undefined ? {} : { reunlockHint: options.reunlockHint }),
  });
  if (!unlocked.ok) throw withVaultWayOut(unlocked.error);
  return unlocked.value;
}

/**
 * Zero-config discovery per `secrets.discover`: "auto" only when no env file is named and no vault is
 * used, true always (`--discover`), false never (`--no-discover`).
 */
function discover(config: Config, options: StartSessionOptions, hasVault: boolean): DiscoveredSource[] {
  const mode = config.secrets.discover;
  if (mode === false) return [];
  if (mode === 'auto' && (config.secrets.envFiles.length > 0 || hasVault)) return [];
  const finder = config.detect.mode === 'off' ? undefined : createCredentialFinder(createDetector({ allow: config.detect.allow }));
  return discoverSources({ cwd: options.cwd ?? process.cwd(), env: options.env, ...(finder === undefined ? {} : { finder }) });
}

/** The ready file: shell/`$GITHUB_ENV`-friendly KEY=VALUE lines. */
export function formatReadyFile(url: string, urls: BaseUrls): string {
  return `FICTA_URL=${urls.root}\nANTHROPIC_BASE_URL=${urls.anthropic}\nOPENAI_BASE_URL=${urls.openai}\nGOOGLE_GEMINI_BASE_URL=${urls.gemini}\nFICTA_LISTEN=${url}\n`;
}

function rmSyncQuiet(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // Already gone, or not ours to remove.
  }
}
