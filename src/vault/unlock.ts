// Where a passphrase or key file comes from: --key-file, FICTA_VAULT_KEY_FILE, FICTA_VAULT_PASSPHRASE, or a
// hidden prompt on a terminal — for unlocking an existing vault and for choosing a new credential.

import { existsSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { err, ok, type Result } from '../util/result.ts';
import { vaultError } from './errors.ts';
import type { VaultCredential } from './kdf.ts';
import { createKeyFile, readKeyFile } from './key-file.ts';
import { canPrompt, promptHidden } from './prompt.ts';
import { openVault } from './open.ts';
import { type Vault } from './vault.ts';

/** Shortest passphrase accepted for a new vault; Argon2id slows guessing, it cannot save a 4-letter word. */
export const MIN_PASSPHRASE_LENGTH = 8;

export interface CredentialSources {
  env: NodeJS.ProcessEnv;
  /** `--key-file PATH` from the command line; beats FICTA_VAULT_KEY_FILE. */
  keyFile?: string | undefined;
  stdin: Readable;
  /** Where prompts are written. */
  stderr: Writable;
  /** False when stdin carries data (a piped value) and must not be used for a prompt. */
  mayPrompt?: boolean;
}

/** How many times a prompted passphrase may be typed before unlocking gives up. */
export const PROMPT_TRIES = 3;

/** The credential that unlocks a vault of the given kind. */
export async function resolveCredential(kind: VaultCredential['kind'], from: CredentialSources): Promise<Result<VaultCredential>> {
  const r = await resolveCredentialFrom(kind, from, 'vault passphrase: ');
  return r.ok ? ok(r.value.credential) : r;
}

async function resolveCredentialFrom(kind: VaultCredential['kind'], from: CredentialSources, question: string): Promise<Result<{ credential: VaultCredential; prompted: boolean }>> {
  const keyFile = nonEmpty(from.keyFile) ?? nonEmpty(from.env.FICTA_VAULT_KEY_FILE);
  if (kind === 'key-file') {
    if (keyFile === undefined) return err(vaultError('FICTA_VAULT_LOCKED', 'locked: this vault opens with a key file: pass --key-file PATH or set FICTA_VAULT_KEY_FILE'));
    const key = readKeyFile(keyFile);
    return key.ok ? ok({ credential: { kind: 'key-file', key: key.value, path: keyFile }, prompted: false }) : key;
  }
  const passphrase = nonEmpty(from.env.FICTA_VAULT_PASSPHRASE);
  if (passphrase !== undefined) return ok({ credential: { kind: 'passphrase', passphrase }, prompted: false });
  if (nonEmpty(from.keyFile) !== undefined || keyFile !== undefined) {
    return err(vaultError('FICTA_VAULT_LOCKED', 'locked: this vault opens with a passphrase, not a key file: set FICTA_VAULT_PASSPHRASE or run in a terminal'));
  }
  if (from.mayPrompt !== false && canPrompt(from.stdin)) {
    const answer = await promptHidden(question, from.stdin, from.stderr);
    return answer.ok ? ok({ credential: { kind: 'passphrase', passphrase: answer.value }, prompted: true }) : answer;
  }
  return err(vaultError('FICTA_VAULT_LOCKED', 'locked: set FICTA_VAULT_PASSPHRASE (or FICTA_VAULT_KEY_FILE for a key-file vault), or run in a terminal to be asked'));
}

export interface NewCredentialSources extends CredentialSources {
  /** The environment variable holding the new passphrase (FICTA_VAULT_PASSPHRASE for init). */
  passphraseVar: string;
}

/** A new credential: a key file (used, or created 0600 when missing) or a passphrase typed twice. */
export async function resolveNewCredential(from: NewCredentialSources): Promise<Result<{ credential: VaultCredential; createdKeyFile?: string }>> {
  const keyFile = nonEmpty(from.keyFile);
  if (keyFile !== undefined) {
    if (existsSync(keyFile)) {
      const key = readKeyFile(keyFile);
      return key.ok ? ok({ credential: { kind: 'key-file', key: key.value, path: keyFile } }) : key;
    }
    const key = createKeyFile(keyFile);
    return key.ok ? ok({ credential: { kind: 'key-file', key: key.value, path: keyFile }, createdKeyFile: keyFile }) : key;
  }
  let passphrase = nonEmpty(from.env[from.passphraseVar]);
  if (passphrase === undefined) {
    if (from.mayPrompt === false || !canPrompt(from.stdin)) {
      return err(vaultError('FICTA_VAULT_LOCKED', `no passphrase: set ${from.passphraseVar}, pass --key-file PATH, or run in a terminal to be asked`));
    }
    const first = await promptHidden('new vault passphrase: ', from.stdin, from.stderr);
    if (!first.ok) return first;
    const weak = checkPassphrase(first.value);
    if (!weak.ok) return weak;
    const second = await promptHidden('repeat the passphrase: ', from.stdin, from.stderr);
    if (!second.ok) return second;
    if (first.value !== second.value) return err(vaultError('FICTA_VAULT_PASSPHRASE_MISMATCH', 'the two passphrases differ; nothing was changed'));
    passphrase = first.value;
  }
  const checked = checkPassphrase(passphrase);
  return checked.ok ? ok({ credential: { kind: 'passphrase', passphrase } }) : checked;
}

function checkPassphrase(passphrase: string): Result<string> {
  if ([...passphrase].length < MIN_PASSPHRASE_LENGTH) {
    return err(vaultError('FICTA_VAULT_PASSPHRASE_WEAK', `the passphrase must have at least ${MIN_PASSPHRASE_LENGTH} characters`));
  }
  return ok(passphrase);
}

/**
 * Opens the vault at `path` and unlocks it with the credential its header asks for. A passphrase typed at
 * the prompt may be typed again after a wrong one, {@link PROMPT_TRIES} times in all.
 */
export async function unlockVaultAt(path: string, from: CredentialSources): Promise<Result<Vault>> {
  const locked = await openVault(path);
  if (!locked.ok) return locked;
  for (let attempt = 1; ; attempt++) {
    const resolved = await resolveCredentialFrom(locked.value.credentialKind, from, 'vault passphrase: ');
    if (!resolved.ok) { locked.value.close(); return resolved; }
    const vault = await locked.value.unlock(resolved.value.credential);
    if (vault.ok) return vault;
    const again = resolved.value.prompted && attempt < PROMPT_TRIES && vault.error.code === 'FICTA_VAULT_WRONG_PASSPHRASE';
    if (!again) { locked.value.close(); return vault; }
    const left = PROMPT_TRIES - attempt;
    from.stderr.write(`vault: wrong passphrase, try again (${left} ${left === 1 ? 'try' : 'tries'} left)\n`);
  }
}

function nonEmpty(s: string | undefined): string | undefined {
  return s === undefined || s === '' ? undefined : s;
}
