// `ficta vault init|rekey|passwd|status`: creating the vault, its keys and credentials, and what it is.

import { rmSync, unlinkSync } from 'node:fs';
import { resolve } from 'node:path';
import { ensureHome, resolveHome } from '../config/home.ts';
import { PLACEHOLDER_KEY_FILE, placeholderKeyPath, readPlaceholderKeyFile } from '../secrets/placeholder-key-file.ts';
import { vaultError } from '../vault/errors.ts';
import { USER_KDF_PRESETS, type KdfPreset } from '../vault/kdf.ts';
import { createVault, openVault, vaultPath } from '../vault/open.ts';
import { resolveNewCredential } from '../vault/unlock.ts';
import { usageError } from './args.ts';
import { EXIT_OK } from './exit-codes.ts';
import type { CliIo } from './io.ts';
import { describeUnlock, exists, iso, modeOf, must, output, runningProxiesHint, str, unlock, type VaultArgs } from './vault-common.ts';

/** `vault init [--key-file PATH] [--kdf PRESET]` */
export async function runInit({ values }: VaultArgs, io: CliIo): Promise<number> {
  const kdf = presetFlag('vault init', values.kdf);
  const home = resolveHome(io.env);
  ensureHome(home);
  const path = vaultPath(home);
  // Checked before asking for anything; createVault checks again, atomically.
  if (exists(path)) throw vaultError('FICTA_VAULT_EXISTS', `a vault already exists at ${path}; it was left untouched`);
  // Adopted, so placeholders stay the same; a damaged file stops init rather than silently changing them.
  const placeholder = must(readPlaceholderKeyFile(placeholderKeyPath(home)));
  const keyFileFlag = str(values['key-file']);
  const keyFile = keyFileFlag ?? nonEmpty(io.env.FICTA_VAULT_KEY_FILE);
  if (keyFile !== undefined && kdf !== undefined) throw usageError({ name: 'vault init' }, '--kdf applies to passphrases, not key files');
  const chosen = must(await resolveNewCredential({ env: io.env, keyFile, stdin: io.stdin, stderr: io.stderr, passphraseVar: 'FICTA_VAULT_PASSPHRASE' }));
  const created = await createVault(path, chosen.credential, { ...(kdf === undefined ? {} : { kdf }), ...(placeholder === undefined ? {} : { placeholderKey: placeholder }) });
  if (!created.ok) {
    if (chosen.createdKeyFile !== undefined) rmSync(chosen.createdKeyFile, { force: true });
    throw created.error;
  }
  const info = must(created.value.info());
  created.value.close();
  const absKey = keyFile === undefined ? undefined : resolve(keyFile);
  if (placeholder !== undefined) unlinkSync(placeholderKeyPath(home));
  const lines = [`vault: created ${path} (${describeUnlock(info, absKey)})`];
  if (chosen.createdKeyFile !== undefined) lines.push(`vault: wrote a new key file ${absKey} (mode 0600); keep a copy somewhere safe: the vault cannot be opened without it`);
  // Later commands do not know where the key file is unless told: say how, once.
  if (absKey !== undefined && keyFileFlag !== undefined && io.env.FICTA_VAULT_KEY_FILE !== keyFileFlag) {
    lines.push(`vault: later commands need it: export FICTA_VAULT_KEY_FILE=${absKey} (or pass --key-file ${absKey})`);
  }
  if (placeholder !== undefined) lines.push(`vault: moved the placeholder key from ${PLACEHOLDER_KEY_FILE} into the vault (placeholders stay the same)`);
  output(io, values, { created: path, unlock: info.kdf, keyFile: absKey ?? null, keyFileCreated: chosen.createdKeyFile !== undefined, placeholderKeyAdopted: placeholder !== undefined }, lines.join('\n'));
  return EXIT_OK;
}

/** `vault rekey` */
export async function runRekey({ values }: VaultArgs, io: CliIo): Promise<number> {
  const vault = await unlock(io, values, true);
  try {
    const done = must(vault.rekey());
    // A running proxy unlocked before a passwd cannot open the new data key: it answers 503 until unlocked again.
    output(io, values, done, `vault: rekeyed: ${done.records} record(s) re-sealed under data key ${done.keyId}${runningProxiesHint(resolveHome(io.env))}`);
  } finally {
    vault.close();
  }
  return EXIT_OK;
}

/** `vault passwd [--new-key-file PATH] [--kdf PRESET]` */
export async function runPasswd({ values }: VaultArgs, io: CliIo): Promise<number> {
  const kdf = presetFlag('vault passwd', values.kdf);
  const newKeyFile = str(values['new-key-file']);
  if (newKeyFile !== undefined && kdf !== undefined) throw usageError({ name: 'vault passwd' }, '--kdf applies to passphrases, not key files');
  const vault = await unlock(io, values, true);
  try {
    const chosen = must(await resolveNewCredential({ env: io.env, keyFile: newKeyFile, stdin: io.stdin, stderr: io.stderr, passphraseVar: 'FICTA_VAULT_NEW_PASSPHRASE' }));
    const changed = await vault.passwd(chosen.credential, kdf === undefined ? {} : { kdf });
    if (!changed.ok) {
      if (chosen.createdKeyFile !== undefined) rmSync(chosen.createdKeyFile, { force: true });
      throw changed.error;
    }
    const info = must(vault.info());
    const lines = [`vault: data keys re-wrapped; the vault now opens with ${describeUnlock(info, newKeyFile)}${runningProxiesHint(resolveHome(io.env))}`];
    if (chosen.createdKeyFile !== undefined) lines.push(`vault: wrote a new key file ${chosen.createdKeyFile} (mode 0600); keep a copy somewhere safe`);
    output(io, values, { unlock: info.kdf, keyFile: newKeyFile ?? null, keyFileCreated: chosen.createdKeyFile !== undefined }, lines.join('\n'));
  } finally {
    vault.close();
  }
  return EXIT_OK;
}

/** `vault status [--json] [--verify]`: also when there is no vault (present: false, exit 0). */
export async function runStatus({ values }: VaultArgs, io: CliIo): Promise<number> {
  const home = resolveHome(io.env);
  const path = vaultPath(home);
  if (!exists(path)) {
    output(io, values, { present: false, path }, `vault: none at ${path} (ficta vault init to create one)`);
    return EXIT_OK;
  }
  const locked = await openVault(path);
  const info = must(locked).info();
  if (locked.ok) locked.value.close();
  let verified: number | undefined;
  if (values.verify === true) {
    const vault = await unlock(io, values, true);
    try { verified = must(vault.verify()); } finally { vault.close(); }
  }
  const modes = { vault: modeOf(path), home: modeOf(home) };
  const leftover = exists(placeholderKeyPath(home));
  if (values.json === true) {
    io.stdout.write(`${JSON.stringify({ present: true, ...info, createdAt: iso(info.createdAt), modes, placeholderKeyFileLeft: leftover, ...(verified === undefined ? {} : { verifiedRecords: verified }) }, null, 2)}\n`);
    return EXIT_OK;
  }
  const lines = [
    `vault:    ${path}`,
    `format:   ${info.format}`,
    `unlock:   ${describeUnlock(info, undefined)}`,
    `records:  ${info.records}`,
    `created:  ${iso(info.createdAt)}`,
    `modes:    vault.db ${modes.vault}${modes.vault === '600' ? '' : ' (expected 600)'}, home ${modes.home}${modes.home === '700' ? '' : ' (expected 700)'}`,
    `header:   ${info.headerIntact ? 'intact' : 'DAMAGED (checksum mismatch): ficta vault restore FILE brings back a backup'}`,
  ];
  if (leftover) lines.push(`warning:  ${PLACEHOLDER_KEY_FILE} is still in ${home}; the vault holds the placeholder key, remove the file`);
  if (verified !== undefined) lines.push(`verified: ${verified} record(s) and the vault MAC authenticated`);
  io.stdout.write(`${lines.join('\n')}\n`);
  return EXIT_OK;
}

function presetFlag(command: string, value: string | boolean | string[] | undefined): KdfPreset | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(USER_KDF_PRESETS as readonly string[]).includes(value)) {
    throw usageError({ name: command }, `--kdf must be one of ${USER_KDF_PRESETS.join(', ')}`);
  }
  return value as KdfPreset;
}

function nonEmpty(s: string | undefined): string | undefined {
  return s === undefined || s === '' ? undefined : s;
}
