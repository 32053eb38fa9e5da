// The vault part of `ficta doctor`: present, intact header, record count without unlocking, and — when
// FICTA_VAULT_KEY_FILE or FICTA_VAULT_PASSPHRASE is set — a real unlock (Argon2id included).

import type { Config } from '../config/schema.ts';
import { openVault, vaultPath } from '../vault/open.ts';
import { unlockVaultSource, vaultExists } from '../vault/source.ts';
import { withVaultWayOut } from './vault-hints.ts';
import type { Check } from './doctor-checks.ts';

/** Vault checks (present, unlockable non-interactively) and the number of records it would give. */
export async function checkVault(config: Config, env: NodeJS.ProcessEnv, keyFile?: string): Promise<{ checks: Check[]; records: number }> {
  const none = (check: Check): { checks: Check[]; records: number } => ({ checks: [check], records: 0 });
  if (config.secrets.vault === 'off') return none({ level: 'ok', area: 'vault', message: 'disabled (secrets.vault = "off")' });
  const path = vaultPath(config.home);
  if (!vaultExists(config.home)) {
    return none(
      config.secrets.vault === 'on'
        ? { level: 'fail', area: 'vault', message: `${path} does not exist and secrets.vault is "on" (ficta vault init)` }
        : { level: 'ok', area: 'vault', message: 'no vault (ficta vault init to create one); secrets come from env files and --secret-env' },
    );
  }
  const locked = await openVault(path);
  if (!locked.ok) return none({ level: 'fail', area: 'vault', message: withVaultWayOut(locked.error).message });
  const info = locked.value.info();
  const kind = locked.value.credentialKind;
  locked.value.close();
  const checks: Check[] = [
    { level: info.headerIntact ? 'ok' : 'fail', area: 'vault', message: `${path}: format ${info.format}, ${info.records} record(s), ${kind === 'key-file' ? 'key file' : `passphrase (Argon2id ${info.kdf.preset})`}` },
  ];
  const hasCredential = keyFile !== undefined || env.FICTA_VAULT_KEY_FILE !== undefined || env.FICTA_VAULT_PASSPHRASE !== undefined;
  if (!hasCredential) {
    checks.push({ level: 'warn', area: 'vault', message: 'locked: serve prompts on a terminal; set FICTA_VAULT_KEY_FILE or FICTA_VAULT_PASSPHRASE for CI and scripts' });
    return { checks, records: info.records };
  }
  const unlocked = await unlockVaultSource({ home: config.home, env, keyFile });
  if (!unlocked.ok) {
    checks.push({ level: 'fail', area: 'vault', message: `cannot unlock: ${withVaultWayOut(unlocked.error).message}` });
    return { checks, records: 0 };
  }
  const loaded = await unlocked.value.load();
  unlocked.value.close();
  checks.push(loaded.ok ? { level: 'ok', area: 'vault', message: `unlocks; ${loaded.value.length} secret(s) verified` } : { level: 'fail', area: 'vault', message: loaded.error.message });
  return { checks, records: loaded.ok ? loaded.value.length : 0 };
}
