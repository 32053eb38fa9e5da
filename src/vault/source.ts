// The vault as the proxy's live secret source and placeholder-key provider: loads verified snapshots,
// notices commits by other processes (`ficta vault add/rm/import`) by polling, and fails closed.

import { statSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { isFictaError } from '../errors.ts';
import type { PlaceholderKeyProvider, SecretEntry, SecretSource } from '../secrets/types.ts';
import { err, ok, type Result } from '../util/result.ts';
import { vaultError } from './errors.ts';
import { unlockVaultAt, type CredentialSources } from './unlock.ts';
import { vaultPath } from './path.ts';
import { type Vault } from './vault.ts';

/**
 * How often a running proxy looks for changes made by other processes. One poll (PRAGMA data_version and a
 * stat) measured ~7 µs here, so 250 ms costs nothing and makes a new secret live within a quarter second.
 */
export const POLL_INTERVAL_MS = 250;

/** The vault seen by the proxy: a SecretSource (kind "vault") and the PlaceholderKeyProvider. */
export interface VaultSecretSource extends SecretSource, PlaceholderKeyProvider {
  readonly kind: 'vault';
  readonly path: string;
  /**
   * Unlocks the vault file again (after `vault passwd`, `rekey` or `restore`) without prompting, swaps it in
   * and tells the watchers; the old one stays in use when this fails.
   */
  reopen(from: CredentialSources): Promise<Result<void>>;
  close(): void;
}

export interface VaultSourceOptions {
  pollIntervalMs?: number;
  /** Appended to "locked" and "replaced" errors: how to unlock the running proxy again (SIGHUP, or a restart). */
  reunlockHint?: string;
}

/** What a proxy that cannot re-unlock in place says: restart it. */
export const RESTART_HINT = 'restart ficta to unlock it again';

export { vaultExists } from './path.ts';

/** Wraps an unlocked vault as the proxy's secret source; the source owns the vault from then on. */
export function createVaultSecretSource(unlocked: Vault, options: VaultSourceOptions = {}): VaultSecretSource {
  const interval = options.pollIntervalMs ?? POLL_INTERVAL_MS;
  const hint = options.reunlockHint ?? RESTART_HINT;
  let vault = unlocked;
  const path = vault.path;
  let opened = fileIdentity(path);
  const listeners = new Set<() => void>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let lastSeen = signature();

  function signature(): string {
    try {
      return `${fileIdentity(path) ?? 'missing'}#${vault.dataVersion()}`;
    } catch {
      return 'unreadable';
    }
  }

  function poll(): void {
    const now = signature();
    if (now === lastSeen) return;
    lastSeen = now;
    for (const listener of listeners) {
      try {
        listener();
      } catch {
        // A listener's failure must not stop the others or the polling.
      }
    }
  }

  return {
    kind: 'vault',
    path,
    async load(): Promise<Result<SecretEntry[]>> {
      if (closed) return err(vaultError('FICTA_VAULT_UNAVAILABLE', 'the vault source is closed'));
      const now = fileIdentity(path);
      if (now === undefined) return err(vaultError('FICTA_VAULT_UNAVAILABLE', `${path} was removed while ficta was running`));
      if (now !== opened) return err(vaultError('FICTA_VAULT_UNAVAILABLE', `${path} was replaced while ficta was running; ${hint}`));
      const entries = vault.entries();
      // Keys changed under the running proxy (vault passwd or rekey): say how to unlock it again.
      if (!entries.ok && isFictaError(entries.error, 'FICTA_VAULT_LOCKED')) return err(vaultError('FICTA_VAULT_LOCKED', `${entries.error.message.replace(/^vault: /, '')}; ${hint}`, entries.error));
      return entries;
    },
    async reopen(from: CredentialSources): Promise<Result<void>> {
      if (closed) return err(vaultError('FICTA_VAULT_UNAVAILABLE', 'the vault source is closed'));
      const next = await unlockVaultAt(path, { ...from, mayPrompt: false });
      if (!next.ok) return next;
      const old = vault;
      vault = next.value;
      opened = fileIdentity(path);
      lastSeen = signature();
      old.close();
      for (const listener of listeners) {
        try {
          listener();
        } catch {
          // As in poll(): one listener's failure does not stop the others.
        }
      }
      return ok(undefined);
    },
    watch(onChange: () => void): () => void {
      listeners.add(onChange);
      if (timer === undefined && !closed) {
        lastSeen = signature();
        timer = setInterval(poll, interval);
        timer.unref();
      }
      return () => {
        listeners.delete(onChange);
        if (listeners.size === 0 && timer !== undefined) { clearInterval(timer); timer = undefined; }
      };
    },
    changeHosts(name, change) {
      if (closed) return err(vaultError('FICTA_VAULT_UNAVAILABLE', 'the vault source is closed'));
      return vault.changeHosts(name, change);
    },
    async getKey(): Promise<Result<Buffer>> {
      if (closed) return err(vaultError('FICTA_VAULT_UNAVAILABLE', 'the vault source is closed'));
      return ok(vault.placeholderKey());
    },
    close(): void {
      if (closed) return;
      closed = true;
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      listeners.clear();
      vault.close();
    },
  };
}

export interface UnlockVaultSourceOptions {
  home: string;
  env?: NodeJS.ProcessEnv;
  /** `--key-file PATH` of `ficta serve`. */
  keyFile?: string | undefined;
  /** For the TTY prompt when neither FICTA_VAULT_PASSPHRASE nor a key file is given. */
  stdin?: Readable;
  stderr?: Writable;
  pollIntervalMs?: number;
  reunlockHint?: string;
}

/**
 * Unlocks FICTA_HOME/vault.db for `ficta serve`: key file (--key-file, FICTA_VAULT_KEY_FILE) or
 * FICTA_VAULT_PASSPHRASE without asking, else a hidden prompt when stdin is a terminal.
 */
export async function unlockVaultSource(options: UnlockVaultSourceOptions): Promise<Result<VaultSecretSource>> {
  const vault = await unlockVaultAt(vaultPath(options.home), {
    env: options.env ?? process.env,
    keyFile: options.keyFile,
    stdin: options.stdin ?? process.stdin,
    stderr: options.stderr ?? process.stderr,
  });
  if (!vault.ok) return vault;
  return ok(createVaultSecretSource(vault.value, {
    ...(options.pollIntervalMs === undefined ? {} : { pollIntervalMs: options.pollIntervalMs }),
    ...(options.reunlockHint === undefined ? {} : { reunlockHint: options.reunlockHint }),
  }));
}

function fileIdentity(path: string): string | undefined {
  try {
    const st = statSync(path);
    return `${st.dev}:${st.ino}`;
  } catch {
    return undefined;
  }
}
