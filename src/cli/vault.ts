// `ficta vault <command>`: manages FICTA_HOME/vault.db. This file is the one place where the vault
// subcommands and their options are declared (help, completion and "did you mean" come from it); the
// work is in vault-secrets.ts, vault-keys.ts and vault-backup.ts.

import { USER_KDF_PRESETS } from '../vault/kdf.ts';
import { findSubcommand, formatHelp, parseCommandLine, type CommandSpec, type OptionsSpec } from './args.ts';
import { EXIT_OK, EXIT_USAGE } from './exit-codes.ts';
import type { CliIo } from './io.ts';
import { runBackup, runRestore } from './vault-backup.ts';
import type { VaultArgs } from './vault-common.ts';
import { runInit, runPasswd, runRekey, runStatus } from './vault-keys.ts';
import { runHosts } from './vault-hosts.ts';
import { runAdd, runImport, runList, runRemove } from './vault-secrets.ts';

const KEY_FILE = {
  'key-file': { type: 'string', value: 'PATH', complete: 'file', help: 'unlock a key-file vault (FICTA_VAULT_KEY_FILE); else FICTA_VAULT_PASSPHRASE or a prompt' },
} as const satisfies OptionsSpec;
const JSON_OUT = { json: { type: 'boolean', help: 'print the result as JSON' } } as const satisfies OptionsSpec;
const KDF = { kdf: { type: 'string', value: 'PRESET', choices: USER_KDF_PRESETS, help: 'Argon2id cost for a passphrase (default moderate: 3 passes, 256 MiB)' } } as const satisfies OptionsSpec;
const NO_VALUES = 'values are never taken from the command line: pipe them, or use --from-env or a prompt';

interface Subcommand {
  spec: CommandSpec;
  run(args: VaultArgs, io: CliIo): Promise<number>;
}

const SUBCOMMANDS: readonly Subcommand[] = [
  {
    spec: {
      name: 'vault init',
      usage: 'vault init [--key-file PATH] [--kdf PRESET] [--json]',
      summary: 'create FICTA_HOME/vault.db',
      description: 'Creates the vault: a passphrase typed twice (or FICTA_VAULT_PASSPHRASE), or a key file (created 0600 when missing) for CI and scripts.',
      options: { 'key-file': { ...KEY_FILE['key-file'], help: 'protect the vault with this key file (created when missing) instead of a passphrase' }, ...KDF, ...JSON_OUT },
    },
    run: runInit,
  },
  {
    spec: {
      name: 'vault add',
      usage: 'vault add NAME [--from-env VAR] [--replace] [--host HOST]… [--term] [--json]',
      summary: 'store a secret (value from a hidden prompt, piped stdin or --from-env)',
      options: {
        'from-env': { type: 'string', value: 'VAR', help: 'take the value from environment variable VAR' },
        replace: { type: 'boolean', help: 'change the value of an existing NAME' },
        host: { type: 'string', multiple: true, value: 'HOST', help: 'a host it may be restored towards in tool calls (*.example.com: subdomains)' },
        term: { type: 'boolean', help: 'a word that must not leave (code name, customer, host): matched in any case\non word boundaries, at least 3 bytes' },
        ...KEY_FILE,
        ...JSON_OUT,
      },
      positionals: { name: 'NAME', min: 1, max: 1, extraHint: NO_VALUES },
      footer: 'The value is read from a hidden prompt on a terminal, from stdin when piped (printf %s "$TOKEN" | ficta vault add NAME), or --from-env VAR.',
    },
    run: runAdd,
  },
  {
    spec: {
      name: 'vault hosts',
      usage: 'vault hosts NAME [--add HOST]… [--rm HOST]… [--json]',
      summary: 'show, add or remove the hosts a secret may be restored towards in tool calls',
      description: `A placeholder in a tool call that reaches a network destination is restored only when every
destination is allowed for that secret: its own hosts here, or restore.allowHosts / --allow-host for all
secrets.`,
      options: {
        add: { type: 'string', multiple: true, value: 'HOST', help: 'allow HOST (*.example.com covers subdomains; no URLs)' },
        rm: { type: 'string', multiple: true, value: 'HOST', help: 'no longer allow HOST' },
        ...KEY_FILE,
        ...JSON_OUT,
      },
      positionals: { name: 'NAME', min: 1, max: 1, extraHint: NO_VALUES },
    },
    run: runHosts,
  },
  {
    spec: {
      name: 'vault import',
      usage: 'vault import FILE… [--replace] [--rename] [--json]',
      summary: 'store every entry of dotenv files, in one transaction',
      description: `A name set to different values (in two files, or twice in one) fails the whole import, naming it
and its files, unless --rename stores the later values as NAME_2, NAME_3, …`,
      options: {
        replace: { type: 'boolean', help: 'change names that already hold a different value' },
        rename: { type: 'boolean', help: 'store other values of a name set twice as NAME_2, NAME_3, … instead of failing' },
        ...KEY_FILE,
        ...JSON_OUT,
      },
      positionals: { name: 'FILE', min: 1, max: Infinity, complete: 'file' },
    },
    run: runImport,
  },
  {
    spec: { name: 'vault list', usage: 'vault list [--json]', summary: 'names, lengths, sources and times — never values', options: { ...KEY_FILE, ...JSON_OUT } },
    run: runList,
  },
  {
    spec: {
      name: 'vault rm',
      usage: 'vault rm NAME [--yes] [--json]',
      summary: 'remove a secret (asks first on a terminal)',
      options: { yes: { type: 'boolean', short: 'y', help: 'do not ask for confirmation' }, ...KEY_FILE, ...JSON_OUT },
      positionals: { name: 'NAME', min: 1, max: 1, extraHint: NO_VALUES },
    },
    run: runRemove,
  },
  {
    spec: { name: 'vault rekey', usage: 'vault rekey [--json]', summary: 'new data key; every record re-sealed, in one transaction', options: { ...KEY_FILE, ...JSON_OUT } },
    run: runRekey,
  },
  {
    spec: {
      name: 'vault passwd',
      usage: 'vault passwd [--new-key-file PATH] [--kdf PRESET] [--json]',
      summary: 'new passphrase (prompt or FICTA_VAULT_NEW_PASSPHRASE) or key file',
      options: { 'new-key-file': { type: 'string', value: 'PATH', complete: 'file', help: 'open the vault with this key file from now on (created when missing)' }, ...KDF, ...KEY_FILE, ...JSON_OUT },
    },
    run: runPasswd,
  },
  {
    spec: {
      name: 'vault status',
      usage: 'vault status [--json] [--verify]',
      summary: 'what the vault is and how it is protected (present: false when there is none)',
      options: { verify: { type: 'boolean', help: 'unlock it and check every record and the vault MAC' }, ...KEY_FILE, ...JSON_OUT },
    },
    run: runStatus,
  },
  {
    spec: {
      name: 'vault backup',
      usage: 'vault backup FILE [--json]',
      summary: 'a consistent copy of the vault, even while it is in use, checked by opening it',
      description: 'Writes a copy of the sealed vault to FILE (mode 0600; never over an existing file) and checks that it opens as this vault. No passphrase needed: the copy is as sealed as the vault.',
      options: { ...JSON_OUT },
      positionals: { name: 'FILE', min: 1, max: 1, complete: 'file' },
    },
    run: runBackup,
  },
  {
    spec: {
      name: 'vault restore',
      usage: 'vault restore FILE [--key-file PATH] [--json]',
      summary: 'put a backup back in place (only one that unlocks); the old vault.db is kept aside',
      description: `Unlocks FILE (refusing one it cannot unlock), then replaces FICTA_HOME/vault.db with a copy of it in
one rename; the previous vault.db is kept as vault.db.replaced-<time>. A running ficta serve picks it up
on SIGHUP (kill -HUP <pid>; ficta status lists them).`,
      options: { ...KEY_FILE, ...JSON_OUT },
      positionals: { name: 'FILE', min: 1, max: 1, complete: 'file' },
    },
    run: runRestore,
  },
];

export const spec: CommandSpec = {
  name: 'vault',
  usage: 'vault <command> [options]',
  summary: 'manage the sealed secret vault',
  description: `Keeps the secrets ficta redacts sealed in FICTA_HOME/vault.db. Values are never taken from the command
line and never printed.`,
  options: {},
  subcommands: SUBCOMMANDS.map((s) => s.spec),
  footer: 'Unlocking: --key-file PATH or FICTA_VAULT_KEY_FILE (key-file vaults), FICTA_VAULT_PASSPHRASE, or a prompt (3 tries).',
};

/** Runs `ficta vault …` and returns the exit code. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const [word, ...rest] = argv;
  if (word === '--help' || word === '-h' || word === 'help') {
    io.stdout.write(formatHelp(spec));
    return EXIT_OK;
  }
  if (word === undefined) {
    io.stderr.write(formatHelp(spec));
    return EXIT_USAGE;
  }
  const found = findSubcommand(spec, word);
  const sub = SUBCOMMANDS.find((s) => s.spec === found) as Subcommand;
  const { help, values, positionals } = parseCommandLine(sub.spec, rest);
  if (help) {
    io.stdout.write(formatHelp(sub.spec));
    return EXIT_OK;
  }
  return sub.run({ values, positionals }, io);
}
