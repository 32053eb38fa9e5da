// What the `ficta vault` subcommands share: their parsed arguments, unlocking with the usual credential
// sources (and the way out of a damaged vault), and printing a result as text or, with --json, as JSON.

import { statSync } from 'node:fs';
import { resolveHome } from '../config/home.ts';
import type { FictaError } from '../errors.ts';
import { unlockVaultAt } from '../vault/unlock.ts';
import { vaultPath } from '../vault/open.ts';
import type { VaultInfo } from '../vault/rows.ts';
import type { Vault } from '../vault/vault.ts';
import { listInstances } from './instances.ts';
import type { CliIo } from './io.ts';
import { withVaultWayOut } from './vault-hints.ts';

export type Flags = Readonly<Record<string, string | boolean | string[] | undefined>>;

/** A vault subcommand's parsed options and arguments. */
export interface VaultArgs {
  values: Flags;
  positionals: string[];
}

/** The value of a result, or its error thrown (a damaged vault's error says what to do next). */
export function must<T>(result: { ok: true; value: T } | { ok: false; error: FictaError }): T {
  if (!result.ok) throw withVaultWayOut(result.error, false);
  return result.value;
}

/** Opens and unlocks FICTA_HOME/vault.db: --key-file, FICTA_VAULT_KEY_FILE, FICTA_VAULT_PASSPHRASE or a prompt. */
export async function unlock(io: CliIo, flags: Flags, mayPrompt: boolean): Promise<Vault> {
  return must(await unlockVaultAt(vaultPath(resolveHome(io.env)), { env: io.env, keyFile: str(flags['key-file']), stdin: io.stdin, stderr: io.stderr, mayPrompt }));
}

/** Prints `text` (a line, newline added), or `json` as one JSON document with --json. */
export function output(io: CliIo, flags: Flags, json: unknown, text: string): void {
  io.stdout.write(flags.json === true ? `${JSON.stringify(json, null, 2)}\n` : `${text}\n`);
}

/** How the vault is unlocked, for messages. */
export function describeUnlock(info: VaultInfo, keyFile: string | undefined): string {
  if (info.kdf.kind === 'key-file') return keyFile === undefined ? 'key file' : `key file ${keyFile}`;
  return `passphrase, Argon2id ${info.kdf.preset}: ${info.kdf.ops} passes, ${Math.round(info.kdf.mem / 1048576)} MiB`;
}

/** A non-empty string option, else undefined. */
export function str(v: string | boolean | string[] | undefined): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** True when something exists at `path`. */
export function exists(path: string): boolean {
  try { statSync(path); return true; } catch { return false; }
}

/** The permission bits of `path` in octal (`600`), or `missing`. */
export function modeOf(path: string): string {
  try { return (statSync(path).mode & 0o777).toString(8); } catch { return 'missing'; }
}

/** An ISO time to the second. */
export function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * What the running proxies of this FICTA_HOME need once the vault's keys or file changed under them (a
 * restore; a rekey after a passwd): `serve` unlocks again on SIGHUP, the others (run, agents) on a
 * restart. Empty when none is running.
 */
export function runningProxiesHint(home: string): string {
  const running = listInstances(home);
  if (running.length === 0) return '';
  const serve = running.filter((i) => i.mode === 'serve').map((i) => i.pid);
  const other = running.filter((i) => i.mode !== 'serve').map((i) => `${i.mode} (pid ${i.pid})`);
  const parts: string[] = [];
  if (serve.length > 0) parts.push(`unlock the running ficta serve again with kill -HUP ${serve.join(' ')}`);
  if (other.length > 0) parts.push(`restart ${other.join(', ')}`);
  return `; if a running ficta answers 503 from now on: ${parts.join('; ')}`;
}
