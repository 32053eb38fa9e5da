// FICTA_HOME: where the vault, keys, registry and config live; created 0700 on first use.

import { mkdirSync, chmodSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** The ficta home directory from FICTA_HOME, else ~/.ficta with ~ from the given environment's HOME (not created). */
export function resolveHome(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.FICTA_HOME;
  if (fromEnv !== undefined && fromEnv !== '') return resolve(fromEnv);
  return join(env.HOME !== undefined && env.HOME !== '' ? env.HOME : homedir(), '.ficta');
}

/** Creates the home directory (0700) if missing and tightens its mode if it is looser. */
export function ensureHome(home: string): void {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const mode = statSync(home).mode & 0o777;
  if ((mode & 0o077) !== 0) chmodSync(home, 0o700);
}
