// `ficta vault backup FILE` and `ficta vault restore FILE`: a consistent copy of the sealed vault taken
// while it may be in use (checked by opening it), and putting one back after checking that it unlocks.

import { resolve } from 'node:path';
import { ensureHome, resolveHome } from '../config/home.ts';
import { backupVault, restoreVault } from '../vault/backup.ts';
import { vaultPath } from '../vault/open.ts';
import { unlockVaultAt } from '../vault/unlock.ts';
import { EXIT_OK } from './exit-codes.ts';
import type { CliIo } from './io.ts';
import { must, output, runningProxiesHint, str, type VaultArgs } from './vault-common.ts';

/** `vault backup FILE`: no credential needed (the copy is as sealed as the vault). */
export async function runBackup({ values, positionals }: VaultArgs, io: CliIo): Promise<number> {
  const dest = resolve(positionals[0] as string);
  const info = must(await backupVault(vaultPath(resolveHome(io.env)), dest));
  output(io, values, { backup: dest, records: info.records, vaultId: info.vaultId }, `vault: backed up ${info.records} record(s) to ${dest} (mode 0600; checked: it opens as this vault). Restore it with ficta vault restore ${dest}`);
  return EXIT_OK;
}

/** `vault restore FILE`: unlocks FILE first (refusing one it cannot unlock), keeps the old vault.db aside. */
export async function runRestore({ values, positionals }: VaultArgs, io: CliIo): Promise<number> {
  const from = resolve(positionals[0] as string);
  const opened = must(await unlockVaultAt(from, { env: io.env, keyFile: str(values['key-file']), stdin: io.stdin, stderr: io.stderr }));
  const records = must(opened.verify());
  opened.close();
  const home = resolveHome(io.env);
  ensureHome(home);
  const path = vaultPath(home);
  const plan = must(await restoreVault(from, path));
  const kept = plan.keptAs === undefined ? '' : `; the previous vault is kept as ${plan.keptAs}`;
  output(
    io,
    values,
    { restored: path, from, records, previous: plan.keptAs ?? null },
    `vault: restored ${records} record(s) from ${from} into ${path}${kept}${runningProxiesHint(home)}`,
  );
  return EXIT_OK;
}
