// Where the vault file lives in a ficta home, and whether there is one: kept apart from open.ts so that a
// command can ask without loading the vault's crypto (libsodium) and storage (better-sqlite3).

import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const VAULT_FILE = 'vault.db';

/** The vault file inside a ficta home. */
export function vaultPath(home: string): string {
  return join(home, VAULT_FILE);
}

/** True when FICTA_HOME holds a vault file (it may still be locked, damaged or foreign). */
export function vaultExists(home: string): boolean {
  return existsSync(vaultPath(home));
}
