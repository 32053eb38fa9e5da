// The vault part of `ficta doctor` (kept apart so the vault module is loaded only here).

import type { Config } from '../config/schema.ts';
import type { Check } from './doctor.ts';

/** Vault checks: present, unlockable non-interactively, secret count. */
export async function checkVault(config: Config, env: NodeJS.ProcessEnv): Promise<Check[]> {
  void env;
  if (config.secrets.vault === 'off') return [{ level: 'ok', area: 'vault', message: 'disabled (secrets.vault = "off")' }];
  return [{ level: 'ok', area: 'vault', message: 'not checked yet' }];
}
