// What a secret is to the rest of ficta, and the interface every source of secrets implements.

import type { Result } from '../util/result.ts';

/** Values shorter than this are refused: they match too much ordinary text to be redacted safely. */
export const MIN_SECRET_LENGTH = 8;

export interface SecretEntry {
  /** Name shown in logs, errors and `vault list` (e.g. GITHUB_TOKEN); never the value. */
  name: string;
  value: string;
  /** Where it came from, e.g. "env-file:/path/.env", "env:NAME", "vault". */
  source: string;
  /** Hosts it may be restored towards in tool calls (normalised allow-list patterns), if any. */
  hosts?: readonly string[] | undefined;
  /** Gateway: the groups whose tenants may have it restored (`[[sources]]` groups; `*`: every tenant). */
  groups?: readonly string[] | undefined;
}

/** A source of secrets: env files, the environment, the sealed vault. */
export interface SecretSource {
  /** Short label for logs ("env-file", "env", "vault"). */
  readonly kind: string;
  /** Reads the current entries. An error means the source is unavailable (fail closed). */
  load(): Promise<Result<SecretEntry[]>>;
  /** Calls `onChange` when the entries may have changed; returns an unsubscribe function. */
  watch?(onChange: () => void): () => void;
  close?(): void | Promise<void>;
}

/** Supplies the persistent key placeholders are derived from. */
export interface PlaceholderKeyProvider {
  /** 32 bytes; the same key every call for the lifetime of the store. */
  getKey(): Promise<Result<Buffer>>;
}
