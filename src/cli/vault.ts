// `ficta vault init|add|import|list|rm|rekey|passwd|status`: manages FICTA_HOME/vault.db. Values come from a
// hidden prompt, piped stdin, --from-env or dotenv files — never from argv — and are never printed.

import { readFileSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { ensureHome, resolveHome } from '../config/home.ts';
import { FictaError } from '../errors.ts';
import { parseDotenv } from '../secrets/dotenv.ts';
import { parseHostPattern } from '../sinks/hosts.ts';
import { PLACEHOLDER_KEY_FILE, placeholderKeyPath, readPlaceholderKeyFile } from '../secrets/placeholder-key-file.ts';
import { vaultError } from '../vault/errors.ts';
import { USER_KDF_PRESETS, type KdfPreset } from '../vault/kdf.ts';
import { canPrompt, promptHidden } from '../vault/prompt.ts';
import { resolveNewCredential, unlockVaultAt } from '../vault/unlock.ts';
import { createVault, openVault, vaultPath } from '../vault/open.ts';
import { type VaultInfo } from '../vault/rows.ts';
import { MAX_VALUE_BYTES, checkName } from '../vault/rules.ts';
import type { ImportItem, Vault } from '../vault/vault.ts';
import type { CliIo } from './io.ts';

const USAGE = `usage: ficta vault <command> [options]

commands:
  init [--key-file PATH] [--kdf interactive|moderate|sensitive]
                      create FICTA_HOME/vault.db (passphrase typed twice, FICTA_VAULT_PASSPHRASE, or a key file)
  add NAME [--from-env VAR] [--replace] [--host HOST]…
                      store a secret; the value comes from a hidden prompt, piped stdin or --from-env;
                      --host: a host it may be restored towards in tool calls (*.example.com: subdomains)
  hosts NAME [--add HOST]… [--rm HOST]…
                      show, add or remove the hosts a secret may be restored towards in tool calls
  import FILE… [--replace]
                      store every entry of dotenv files, in one transaction
  list [--json]       names, lengths, sources and times — never values
  rm NAME             remove a secret
  rekey               new data key; every record re-sealed, in one transaction
  passwd [--new-key-file PATH] [--kdf PRESET]
                      new passphrase (prompt or FICTA_VAULT_NEW_PASSPHRASE) or key file
  status [--json] [--verify]
                      what the vault is and how it is protected; --verify unlocks and checks every record

unlocking: --key-file PATH or FICTA_VAULT_KEY_FILE (key-file vaults), FICTA_VAULT_PASSPHRASE, or a prompt
`;

type Flags = Record<string, string | boolean | string[] | undefined>;

/** Runs `ficta vault …` and returns the exit code. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === '--help' || sub === '-h' || sub === 'help') { io.stdout.write(USAGE); return 0; }
  if (sub === undefined) { io.stderr.write(USAGE); return 2; }
  const command = SUBCOMMANDS[sub];
  if (command === undefined) throw usage(`unknown vault command "${sub}"`);
  return command(rest, io);
}

const SUBCOMMANDS: Record<string, (argv: string[], io: CliIo) => Promise<number>> = {
  init: runInit,
  add: runAdd,
  hosts: runHosts,
  import: runImport,
  list: runList,
  rm: runRemove,
  rekey: runRekey,
  passwd: runPasswd,
  status: runStatus,
};

async function runInit(argv: string[], io: CliIo): Promise<number> {
  const { flags } = parse(argv, { 'key-file': { type: 'string' }, kdf: { type: 'string' } }, 0, 0);
  const kdf = presetFlag(flags.kdf);
  const home = resolveHome(io.env);
  ensureHome(home);
  const path = vaultPath(home);
  // Checked before asking for anything; createVault checks again, atomically.
  if (exists(path)) throw vaultError('FICTA_VAULT_EXISTS', `a vault already exists at ${path}; it was left untouched`);
  // Adopted, so placeholders stay the same; a damaged file stops init rather than silently changing them.
  const placeholder = must(readPlaceholderKeyFile(placeholderKeyPath(home)));
  const keyFile = str(flags['key-file']) ?? nonEmpty(io.env.FICTA_VAULT_KEY_FILE);
  if (keyFile !== undefined && kdf !== undefined) throw usage('--kdf applies to passphrases, not key files');
  const chosen = must(await resolveNewCredential({ env: io.env, keyFile, stdin: io.stdin, stderr: io.stderr, passphraseVar: 'FICTA_VAULT_PASSPHRASE' }));
  const created = await createVault(path, chosen.credential, { ...(kdf === undefined ? {} : { kdf }), ...(placeholder === undefined ? {} : { placeholderKey: placeholder }) });
  if (!created.ok) {
    if (chosen.createdKeyFile !== undefined) rmSync(chosen.createdKeyFile, { force: true });
    throw created.error;
  }
  const info = must(created.value.info());
  created.value.close();
  io.stdout.write(`vault: created ${path} (${describeUnlock(info, chosen.credential.kind === 'key-file' ? chosen.credential.path : undefined)})\n`);
  if (chosen.createdKeyFile !== undefined) {
    io.stdout.write(`vault: wrote a new key file ${chosen.createdKeyFile} (mode 0600); keep a copy somewhere safe: the vault cannot be opened without it\n`);
  }
  if (placeholder !== undefined) {
    unlinkSync(placeholderKeyPath(home));
    io.stdout.write(`vault: moved the placeholder key from ${PLACEHOLDER_KEY_FILE} into the vault (placeholders stay the same)\n`);
  }
  return 0;
}

async function runAdd(argv: string[], io: CliIo): Promise<number> {
  const { flags, positionals } = parse(argv, { 'from-env': { type: 'string' }, replace: { type: 'boolean' }, 'key-file': { type: 'string' }, host: { type: 'string', multiple: true } }, 1, 1);
  const name = positionals[0] as string;
  must(checkName(name));
  const hosts = hostsFlag(flags.host);
  const fromEnv = str(flags['from-env']);
  const piped = fromEnv === undefined && !canPrompt(io.stdin);
  let value: string | undefined;
  let source = 'prompt';
  if (fromEnv !== undefined) {
    value = io.env[fromEnv];
    if (value === undefined) throw vaultError('FICTA_VAULT_VALUE_INVALID', `${fromEnv} is not set in the environment`);
    source = `env:${fromEnv}`;
  } else if (piped) {
    value = await readValueFromStdin(io.stdin);
    source = 'stdin';
  }
  const vault = await unlock(io, flags, !piped);
  try {
    const replace = flags.replace === true;
    if (!replace && must(vault.has(name))) {
      // Asked before the value is typed; a piped value that turns out identical is simply unchanged.
      if (value === undefined) throw vaultError('FICTA_VAULT_NAME_EXISTS', `${name} is already in the vault (use --replace to change it)`);
    }
    if (value === undefined) value = must(await promptHidden(`value of ${name}: `, io.stdin, io.stderr));
    const outcome = must(vault.add(name, value, { replace, source, hosts }));
    io.stdout.write(outcome === 'unchanged' ? `vault: ${name} unchanged (same value)\n` : `vault: ${outcome} ${name}\n`);
    if (hosts.length > 0) io.stdout.write(`vault: ${name} may be restored towards ${describeHosts(must(vault.list()).find((r) => r.name === name)?.hosts)}\n`);
  } finally {
    vault.close();
  }
  return 0;
}

async function runHosts(argv: string[], io: CliIo): Promise<number> {
  const { flags, positionals } = parse(argv, { add: { type: 'string', multiple: true }, rm: { type: 'string', multiple: true }, json: { type: 'boolean' }, 'key-file': { type: 'string' } }, 1, 1);
  const name = positionals[0] as string;
  must(checkName(name));
  const add = hostsFlag(flags.add);
  const remove = hostsFlag(flags.rm);
  const vault = await unlock(io, flags, true);
  try {
    const hosts = add.length > 0 || remove.length > 0 ? must(vault.changeHosts(name, { add, remove })) : listedHosts(vault, name);
    if (flags.json === true) io.stdout.write(`${JSON.stringify({ name, hosts })}\n`);
    else io.stdout.write(`vault: ${name} may be restored towards ${describeHosts(hosts)}\n`);
  } finally {
    vault.close();
  }
  return 0;
}

function listedHosts(vault: Vault, name: string): string[] {
  const row = must(vault.list()).find((r) => r.name === name);
  if (row === undefined) throw vaultError('FICTA_VAULT_NAME_UNKNOWN', `no secret named ${name} in the vault`);
  return row.hosts ?? [];
}

function describeHosts(hosts: readonly string[] | undefined): string {
  return hosts === undefined || hosts.length === 0 ? 'no host of its own (only restore.allowHosts / --allow-host)' : hosts.join(', ');
}

/** Validates --host/--add/--rm values (host names, `*.` wildcards, IP literals; never URLs). */
function hostsFlag(values: Flags[string]): string[] {
  const list = Array.isArray(values) ? values : typeof values === 'string' ? [values] : [];
  return list.map((h) => {
    const parsed = parseHostPattern(h);
    if (!parsed.ok) throw usage(parsed.error.message);
    return parsed.value;
  });
}

async function runImport(argv: string[], io: CliIo): Promise<number> {
  const { flags, positionals } = parse(argv, { replace: { type: 'boolean' }, 'key-file': { type: 'string' } }, 1, Infinity);
  const items: ImportItem[] = [];
  for (const file of positionals) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (cause) {
      throw vaultError('FICTA_VAULT_IO', `import: cannot read ${file}: ${(cause as NodeJS.ErrnoException).code ?? 'error'}`, cause);
    }
    const parsed = must(parseDotenv(text, file));
    for (const e of parsed) items.push({ name: e.name, value: e.value, source: `file:${resolve(file)}` });
  }
  const vault = await unlock(io, flags, true);
  try {
    const report = must(vault.import(items, { replace: flags.replace === true }));
    for (const name of report.added) io.stdout.write(`added     ${name}\n`);
    for (const name of report.updated) io.stdout.write(`updated   ${name}\n`);
    for (const name of report.unchanged) io.stdout.write(`unchanged ${name}\n`);
    for (const s of report.skipped) io.stdout.write(`skipped   ${s.name} (${s.reason})\n`);
    io.stdout.write(`vault: imported ${positionals.length} file(s): ${report.added.length} added, ${report.updated.length} updated, `
      + `${report.unchanged.length} unchanged, ${report.skipped.length} skipped\n`);
  } finally {
    vault.close();
  }
  return 0;
}

async function runList(argv: string[], io: CliIo): Promise<number> {
  const { flags } = parse(argv, { json: { type: 'boolean' }, 'key-file': { type: 'string' } }, 0, 0);
  const vault = await unlock(io, flags, true);
  try {
    const rows = must(vault.list());
    if (flags.json === true) {
      const out = rows.map((r) => ({ name: r.name, length: r.length, source: r.source, addedAt: iso(r.addedAt), updatedAt: iso(r.updatedAt), hosts: r.hosts ?? [] }));
      io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
      return 0;
    }
    if (rows.length === 0) { io.stderr.write('vault: no secrets yet (ficta vault add NAME, or ficta vault import .env)\n'); return 0; }
    const withHosts = rows.some((r) => r.hosts !== undefined);
    const table = [
      ['NAME', 'LENGTH', 'SOURCE', 'ADDED', 'UPDATED', ...(withHosts ? ['HOSTS'] : [])],
      ...rows.map((r) => [r.name, String(r.length), r.source, iso(r.addedAt), iso(r.updatedAt), ...(withHosts ? [r.hosts?.join(',') ?? '-'] : [])]),
    ];
    const widths = (table[0] as string[]).map((_, c) => Math.max(...table.map((row) => (row[c] as string).length)));
    for (const row of table) io.stdout.write(`${row.map((cell, c) => (c === row.length - 1 ? cell : cell.padEnd(widths[c] as number))).join('  ')}\n`);
  } finally {
    vault.close();
  }
  return 0;
}

async function runRemove(argv: string[], io: CliIo): Promise<number> {
  const { flags, positionals } = parse(argv, { 'key-file': { type: 'string' } }, 1, 1);
  const name = positionals[0] as string;
  must(checkName(name));
  const vault = await unlock(io, flags, true);
  try {
    must(vault.remove(name));
    io.stdout.write(`vault: removed ${name}\n`);
  } finally {
    vault.close();
  }
  return 0;
}

async function runRekey(argv: string[], io: CliIo): Promise<number> {
  const { flags } = parse(argv, { 'key-file': { type: 'string' } }, 0, 0);
  const vault = await unlock(io, flags, true);
  try {
    const done = must(vault.rekey());
    io.stdout.write(`vault: rekeyed: ${done.records} record(s) re-sealed under data key ${done.keyId}\n`);
  } finally {
    vault.close();
  }
  return 0;
}

async function runPasswd(argv: string[], io: CliIo): Promise<number> {
  const { flags } = parse(argv, { 'key-file': { type: 'string' }, 'new-key-file': { type: 'string' }, kdf: { type: 'string' } }, 0, 0);
  const kdf = presetFlag(flags.kdf);
  const newKeyFile = str(flags['new-key-file']);
  if (newKeyFile !== undefined && kdf !== undefined) throw usage('--kdf applies to passphrases, not key files');
  const vault = await unlock(io, flags, true);
  try {
    const chosen = must(await resolveNewCredential({ env: io.env, keyFile: newKeyFile, stdin: io.stdin, stderr: io.stderr, passphraseVar: 'FICTA_VAULT_NEW_PASSPHRASE' }));
    const changed = await vault.passwd(chosen.credential, kdf === undefined ? {} : { kdf });
    if (!changed.ok) {
      if (chosen.createdKeyFile !== undefined) rmSync(chosen.createdKeyFile, { force: true });
      throw changed.error;
    }
    const info = must(vault.info());
    io.stdout.write(`vault: data keys re-wrapped; the vault now opens with ${describeUnlock(info, newKeyFile)}\n`);
    if (chosen.createdKeyFile !== undefined) io.stdout.write(`vault: wrote a new key file ${chosen.createdKeyFile} (mode 0600); keep a copy somewhere safe\n`);
  } finally {
    vault.close();
  }
  return 0;
}

async function runStatus(argv: string[], io: CliIo): Promise<number> {
  const { flags } = parse(argv, { json: { type: 'boolean' }, verify: { type: 'boolean' }, 'key-file': { type: 'string' } }, 0, 0);
  const home = resolveHome(io.env);
  const path = vaultPath(home);
  const locked = await openVault(path);
  if (!locked.ok) throw locked.error;
  const info = locked.value.info();
  locked.value.close();
  let verified: number | undefined;
  if (flags.verify === true) {
    const vault = await unlock(io, flags, true);
    try { verified = must(vault.verify()); } finally { vault.close(); }
  }
  const modes = { vault: modeOf(path), home: modeOf(home) };
  const leftover = exists(placeholderKeyPath(home));
  if (flags.json === true) {
    io.stdout.write(`${JSON.stringify({ ...info, createdAt: iso(info.createdAt), modes, placeholderKeyFileLeft: leftover, ...(verified === undefined ? {} : { verifiedRecords: verified }) }, null, 2)}\n`);
    return 0;
  }
  const lines = [
    `vault:    ${path}`,
    `format:   ${info.format}`,
    `unlock:   ${describeUnlock(info, undefined)}`,
    `records:  ${info.records}`,
    `created:  ${iso(info.createdAt)}`,
    `modes:    vault.db ${modes.vault}${modes.vault === '600' ? '' : ' (expected 600)'}, home ${modes.home}${modes.home === '700' ? '' : ' (expected 700)'}`,
    `header:   ${info.headerIntact ? 'intact' : 'DAMAGED (checksum mismatch)'}`,
  ];
  if (leftover) lines.push(`warning:  ${PLACEHOLDER_KEY_FILE} is still in ${home}; the vault holds the placeholder key, remove the file`);
  if (verified !== undefined) lines.push(`verified: ${verified} record(s) and the vault MAC authenticated`);
  io.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

// --- helpers ---

function parse(argv: string[], options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>, min: number, max: number): { flags: Flags; positionals: string[] } {
  const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: max > 0, strict: true });
  if (positionals.length < min) throw usage(min === 1 && max === 1 ? 'expected one NAME' : 'expected at least one FILE');
  if (positionals.length > max) throw usage(`unexpected argument "${positionals[max]}" (values are never taken from the command line)`);
  return { flags: values as Flags, positionals };
}

async function unlock(io: CliIo, flags: Flags, mayPrompt: boolean): Promise<Vault> {
  const home = resolveHome(io.env);
  return must(await unlockVaultAt(vaultPath(home), { env: io.env, keyFile: str(flags['key-file']), stdin: io.stdin, stderr: io.stderr, mayPrompt }));
}

/** Reads a piped value: everything on stdin, minus one trailing newline. */
async function readValueFromStdin(stdin: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += b.length;
    if (size > MAX_VALUE_BYTES + 2) throw vaultError('FICTA_VAULT_VALUE_INVALID', `the value on stdin is longer than ${MAX_VALUE_BYTES} bytes`);
    chunks.push(b);
  }
  let bytes = Buffer.concat(chunks);
  for (const c of chunks) c.fill(0);
  chunks.length = 0;
  if (bytes.at(-1) === 0x0a) bytes = bytes.subarray(0, bytes.at(-2) === 0x0d ? -2 : -1);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw vaultError('FICTA_VAULT_VALUE_INVALID', 'the value on stdin is not UTF-8 text');
  } finally {
    bytes.fill(0);
  }
}

function describeUnlock(info: VaultInfo, keyFile: string | undefined): string {
  if (info.kdf.kind === 'key-file') return keyFile === undefined ? 'key file' : `key file ${keyFile}`;
  return `passphrase, Argon2id ${info.kdf.preset}: ${info.kdf.ops} passes, ${Math.round(info.kdf.mem / 1048576)} MiB`;
}

function presetFlag(value: Flags[string]): KdfPreset | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(USER_KDF_PRESETS as readonly string[]).includes(value)) {
    throw usage(`--kdf must be one of ${USER_KDF_PRESETS.join(', ')}`);
  }
  return value as KdfPreset;
}

function must<T>(result: { ok: true; value: T } | { ok: false; error: FictaError }): T {
  if (!result.ok) throw result.error;
  return result.value;
}

function usage(what: string): FictaError {
  return new FictaError('FICTA_USAGE', `usage: vault: ${what} (ficta vault --help)`);
}

function str(v: Flags[string]): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function nonEmpty(s: string | undefined): string | undefined {
  return s === undefined || s === '' ? undefined : s;
}

function exists(path: string): boolean {
  try { statSync(path); return true; } catch { return false; }
}

function modeOf(path: string): string {
  try { return (statSync(path).mode & 0o777).toString(8); } catch { return 'missing'; }
}

function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
