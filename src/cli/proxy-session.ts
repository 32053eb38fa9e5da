// A running proxy for a command: start it, publish its base URLs (ready file), and on stop write the
// run report and tell whether any request was blocked. Used by serve, run, claude and codex.

import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { loadConfig } from '../config/load.ts';
import type { Config } from '../config/schema.ts';
import { FictaError } from '../errors.ts';
import { createFicta, type BaseUrls, type Ficta, type RunReport } from '../index.ts';
import type { Logger } from '../log/logger.ts';
import type { Readable, Writable } from 'node:stream';
import { unlockVaultSource, vaultExists, type VaultSecretSource } from '../vault/source.ts';
import { createDetector } from '../detect/detector.ts';
import { createCredentialFinder } from '../detect/find.ts';
import { discoverSources, type DiscoveredSource } from '../secrets/discover.ts';
import type { SecretSource } from '../secrets/types.ts';
import { formatDiscoveryNotice } from './discovery-notice.ts';

/** Exit code when --fail-on-block is set and a request was blocked. */
export const EXIT_BLOCKED = 3;

export interface ProxySession {
  ficta: Ficta;
  config: Config;
  url: string;
  baseUrls: BaseUrls;
  /** Stops the proxy (graceful), writes the report file, removes the ready file; returns the report. */
  stop(): Promise<RunReport>;
}

export interface StartSessionOptions {
  flags: Record<string, unknown>;
  /** `--key-file` for a key-file vault (else FICTA_VAULT_KEY_FILE / FICTA_VAULT_PASSPHRASE / prompt). */
  keyFile?: string | undefined;
  /** Where an interactive vault prompt reads and writes (a TTY only). */
  stdin?: Readable;
  stderr?: Writable;
  /** The command's defaults, under the config file. */
  defaults?: Record<string, unknown>;
  configFile: string | undefined;
  env: NodeJS.ProcessEnv;
  readyFile?: string | undefined;
  logger?: Logger;
  /** Working directory discovery looks in (default: the process's). */
  cwd?: string;
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
    });
    for (const line of formatDiscoveryNotice(discovered)) options.stderr?.write(`${line}\n`);
  } catch (error) {
    vault?.close();
    throw error;
  }
  let running;
  try {
    running = await ficta.listen();
  } catch (cause) {
    await ficta.close();
    const code = (cause as NodeJS.ErrnoException).code ?? 'error';
    throw new FictaError('FICTA_LISTEN_FAILED', `serve: cannot listen on ${config.host}:${config.port} (${code})`, { cause });
  }
  const readyFile = options.readyFile ?? config.readyFile;
  if (readyFile !== undefined) writeAtomic(readyFile, formatReadyFile(running.url, running.baseUrls));
  let stopped: Promise<RunReport> | undefined;
  return {
    ficta,
    config,
    url: running.url,
    baseUrls: running.baseUrls,
    stop() {
      stopped ??= (async () => {
        await ficta.close();
        const report = ficta.report();
        if (config.reportFile !== undefined) writeAtomic(config.reportFile, `${JSON.stringify(report, null, 2)}\n`);
        if (readyFile !== undefined) rmSync(readyFile, { force: true });
        return report;
      })();
      return stopped;
    },
  };
}

/**
 * The vault as a secret source, per `secrets.vault`: "auto" uses it when FICTA_HOME/vault.db exists,
 * "on" requires it, "off" never opens it. Unlocking fails the start (never a silent unredacted run).
 */
async function openVaultSource(config: Config, options: StartSessionOptions): Promise<VaultSecretSource | undefined> {
  if (config.secrets.vault === 'off') return undefined;
  if (!vaultExists(config.home)) {
    if (config.secrets.vault === 'on') throw new FictaError('FICTA_VAULT_NOT_FOUND', `vault: no vault at ${config.home} (ficta vault init), and secrets.vault is "on"`);
    return undefined;
  }
  const unlocked = await unlockVaultSource({
    home: config.home,
    env: options.env,
    keyFile: options.keyFile,
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
    ...(options.stderr === undefined ? {} : { stderr: options.stderr }),
  });
  if (!unlocked.ok) throw unlocked.error;
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
  return `FICTA_URL=${urls.root}\nANTHROPIC_BASE_URL=${urls.anthropic}\nOPENAI_BASE_URL=${urls.openai}\nFICTA_LISTEN=${url}\n`;
}

/** Writes a file whole (temp + rename), mode 0600: readers never see half of it. */
export function writeAtomic(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(tmp, text, { mode: 0o600 });
    renameSync(tmp, path);
  } catch (cause) {
    rmSync(tmp, { force: true });
    throw new FictaError('FICTA_FILE_WRITE', `files: cannot write ${path}: ${(cause as NodeJS.ErrnoException).code ?? 'error'}`, { cause });
  }
}

/** One line naming what was blocked, for stderr. */
export function describeBlocks(report: RunReport): string {
  const names = Object.entries(report.blockedBySecret)
    .map(([n, c]) => `${n} ×${c}`)
    .join(', ');
  return `${report.blocks} request(s) blocked (${names})`;
}
