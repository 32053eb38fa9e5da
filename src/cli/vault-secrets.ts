// `ficta vault add|import|list|rm`: the secrets in the vault (and, with `add --host`, where each may be restored to). Values come from a hidden prompt, piped stdin,
// --from-env or dotenv files — never from argv — and are never printed.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { parseDotenv } from '../secrets/dotenv.ts';
import { vaultError } from '../vault/errors.ts';
import { canPrompt, confirm, promptHidden } from '../vault/prompt.ts';
import { MAX_VALUE_BYTES, checkName } from '../vault/rules.ts';
import type { ImportItem } from '../vault/vault.ts';
import { EXIT_OK } from './exit-codes.ts';
import type { CliIo } from './io.ts';
import { iso, must, output, str, unlock, type VaultArgs } from './vault-common.ts';
import { describeHosts, hostsFlag } from './vault-hosts.ts';

/** `vault add NAME [--from-env VAR] [--replace] [--host HOST]… [--term]` */
export async function runAdd({ values, positionals }: VaultArgs, io: CliIo): Promise<number> {
  const name = positionals[0] as string;
  must(checkName(name));
  const hosts = hostsFlag('vault add', '--host', values.host);
  const fromEnv = str(values['from-env']);
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
  const vault = await unlock(io, values, !piped);
  try {
    const replace = values.replace === true;
    if (!replace && must(vault.has(name))) {
      // Asked before the value is typed; a piped value that turns out identical is simply unchanged.
      if (value === undefined) throw vaultError('FICTA_VAULT_NAME_EXISTS', `${name} is already in the vault (use --replace to change it)`);
    }
    if (value === undefined) value = must(await promptHidden(`value of ${name}: `, io.stdin, io.stderr));
    const term = values.term === true;
    const outcome = must(vault.add(name, value, { replace, source, hosts, term }));
    const lines = [outcome === 'unchanged' ? `vault: ${name} unchanged (same value)` : `vault: ${outcome} ${name}${term ? ' (a term: matched in any case on word boundaries)' : ''}`];
    const all = hosts.length === 0 ? undefined : (must(vault.list()).find((r) => r.name === name)?.hosts ?? []);
    if (all !== undefined) lines.push(`vault: ${name} may be restored towards ${describeHosts(all)}`);
    output(io, values, { name, outcome, source, ...(all === undefined ? {} : { hosts: all }), ...(term ? { term } : {}) }, lines.join('\n'));
  } finally {
    vault.close();
  }
  return EXIT_OK;
}

/** `vault import FILE… [--replace] [--rename]` */
export async function runImport({ values, positionals }: VaultArgs, io: CliIo): Promise<number> {
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
  const vault = await unlock(io, values, true);
  try {
    const report = must(vault.import(items, { replace: values.replace === true, rename: values.rename === true }));
    const lines = [
      ...report.renamed.map((r) => `renamed   ${r.name} -> ${r.as} (another value of ${r.name}, from ${r.source})`),
      ...report.added.map((n) => `added     ${n}`),
      ...report.updated.map((n) => `updated   ${n}`),
      ...report.unchanged.map((n) => `unchanged ${n}`),
      ...report.skipped.map((s) => `skipped   ${s.name} (${s.reason})`),
      `vault: imported ${positionals.length} file(s): ${report.added.length} added, ${report.updated.length} updated, ${report.unchanged.length} unchanged, ${report.skipped.length} skipped`,
    ];
    output(io, values, { files: positionals.length, ...report }, lines.join('\n'));
  } finally {
    vault.close();
  }
  return EXIT_OK;
}

/** `vault list [--json]` */
export async function runList({ values }: VaultArgs, io: CliIo): Promise<number> {
  const vault = await unlock(io, values, true);
  try {
    const rows = must(vault.list());
    if (values.json === true) {
      const out = rows.map((r) => ({ name: r.name, length: r.length, source: r.source, addedAt: iso(r.addedAt), updatedAt: iso(r.updatedAt), hosts: r.hosts ?? [], ...(r.term === true ? { term: true } : {}) }));
      io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
      return EXIT_OK;
    }
    if (rows.length === 0) {
      io.stderr.write('vault: no secrets yet (ficta vault add NAME, or ficta vault import .env)\n');
      return EXIT_OK;
    }
    // A HOSTS column only once some secret has hosts of its own (sink-aware restore).
    const withHosts = rows.some((r) => r.hosts !== undefined);
    const table = [
      ['NAME', 'LENGTH', 'SOURCE', 'ADDED', 'UPDATED', ...(withHosts ? ['HOSTS'] : [])],
      ...rows.map((r) => [r.term === true ? `${r.name} (term)` : r.name, String(r.length), r.source, iso(r.addedAt), iso(r.updatedAt), ...(withHosts ? [r.hosts?.join(',') ?? '-'] : [])]),
    ];
    const widths = (table[0] as string[]).map((_, c) => table.reduce((w, row) => Math.max(w, (row[c] as string).length), 0));
    for (const row of table) io.stdout.write(`${row.map((cell, c) => (c === row.length - 1 ? cell : cell.padEnd(widths[c] as number))).join('  ')}\n`);
  } finally {
    vault.close();
  }
  return EXIT_OK;
}

/** `vault rm NAME [--yes]`: asks first on a terminal. */
export async function runRemove({ values, positionals }: VaultArgs, io: CliIo): Promise<number> {
  const name = positionals[0] as string;
  must(checkName(name));
  const vault = await unlock(io, values, true);
  try {
    if (!must(vault.has(name))) throw vaultError('FICTA_VAULT_NAME_UNKNOWN', `no secret named ${name} in the vault`);
    if (values.yes !== true && canPrompt(io.stdin)) {
      const sure = must(await confirm(`remove ${name} from the vault?`, io.stdin, io.stderr));
      if (!sure) {
        output(io, values, { name, removed: false }, `vault: ${name} kept`);
        return EXIT_OK;
      }
    }
    must(vault.remove(name));
    output(io, values, { name, removed: true }, `vault: removed ${name}`);
  } finally {
    vault.close();
  }
  return EXIT_OK;
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
