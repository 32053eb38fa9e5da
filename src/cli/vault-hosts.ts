// `ficta vault hosts NAME [--add HOST]… [--rm HOST]…` and the `--host` option of `vault add`: the hosts a
// vault secret may be restored towards in tool calls (sink-aware restore, src/sinks/), sealed with its record.

import { parseHostPattern } from '../sinks/hosts.ts';
import { vaultError } from '../vault/errors.ts';
import { checkName } from '../vault/rules.ts';
import type { Vault } from '../vault/vault.ts';
import { usageError } from './args.ts';
import { EXIT_OK } from './exit-codes.ts';
import type { CliIo } from './io.ts';
import { must, output, unlock, type Flags, type VaultArgs } from './vault-common.ts';

/** `vault hosts NAME [--add HOST]… [--rm HOST]… [--json]`: shows, adds or removes a secret's hosts. */
export async function runHosts({ values, positionals }: VaultArgs, io: CliIo): Promise<number> {
  const name = positionals[0] as string;
  must(checkName(name));
  const add = hostsFlag('vault hosts', '--add', values.add);
  const remove = hostsFlag('vault hosts', '--rm', values.rm);
  const vault = await unlock(io, values, true);
  try {
    const hosts = add.length > 0 || remove.length > 0 ? must(vault.changeHosts(name, { add, remove })) : listedHosts(vault, name);
    output(io, values, { name, hosts }, `vault: ${name} may be restored towards ${describeHosts(hosts)}`);
  } finally {
    vault.close();
  }
  return EXIT_OK;
}

/** How a secret's hosts read in messages. */
export function describeHosts(hosts: readonly string[] | undefined): string {
  return hosts === undefined || hosts.length === 0 ? 'no host of its own (only restore.allowHosts / --allow-host)' : hosts.join(', ');
}

/** Validated `--host`/`--add`/`--rm` values (host names, `*.` wildcards, IP literals; never URLs), normalised. */
export function hostsFlag(command: string, flag: string, values: Flags[string]): string[] {
  const list = Array.isArray(values) ? values : typeof values === 'string' ? [values] : [];
  return list.map((h) => {
    const parsed = parseHostPattern(h);
    if (!parsed.ok) throw usageError({ name: command }, `${flag}: ${parsed.error.message}`);
    return parsed.value;
  });
}

function listedHosts(vault: Vault, name: string): string[] {
  const row = must(vault.list()).find((r) => r.name === name);
  if (row === undefined) throw vaultError('FICTA_VAULT_NAME_UNKNOWN', `no secret named ${name} in the vault`);
  return row.hosts ?? [];
}
