// The vault's error codes and one constructor, so every failure of the vault has a stable, distinct code
// and a message of the form "vault: <what happened>" that never carries a secret value.

import { FictaError } from '../errors.ts';

/** Every code the vault can fail with; each names one situation the user can act on. */
export type VaultErrorCode =
  | 'FICTA_VAULT_NOT_FOUND' // no vault.db where one was expected
  | 'FICTA_VAULT_EXISTS' // init would overwrite a vault
  | 'FICTA_VAULT_CORRUPT' // not a ficta vault, damaged SQLite pages, or a damaged header
  | 'FICTA_VAULT_TRUNCATED' // the file is shorter than its own header says
  | 'FICTA_VAULT_UNSUPPORTED_VERSION' // written by a newer (or unknown) format
  | 'FICTA_VAULT_WRONG_PASSPHRASE'
  | 'FICTA_VAULT_WRONG_KEY' // the key file does not open this vault
  | 'FICTA_VAULT_LOCKED' // no passphrase or key file available, or keys changed under a running reader
  | 'FICTA_VAULT_STATE_TAMPERED' // the sealed vault state failed authentication
  | 'FICTA_VAULT_RECORD_TAMPERED' // a record failed authentication (flipped bit, edited column)
  | 'FICTA_VAULT_RECORD_SWAPPED' // a record's sealed data belongs to another row
  | 'FICTA_VAULT_ROWS_DELETED' // fewer records than the sealed state counts
  | 'FICTA_VAULT_ROWS_ADDED' // more records than the sealed state counts
  | 'FICTA_VAULT_ROWS_ROLLED_BACK' // same count, but some record is an older or foreign copy
  | 'FICTA_VAULT_ROLLED_BACK' // the whole file went back to an older generation while being read
  | 'FICTA_VAULT_NAME_INVALID'
  | 'FICTA_VAULT_NAME_EXISTS'
  | 'FICTA_VAULT_NAME_UNKNOWN'
  | 'FICTA_VAULT_DUPLICATE_NAME' // an import sets one name to different values
  | 'FICTA_VAULT_VALUE_INVALID' // empty, too short, too long or not UTF-8
  | 'FICTA_VAULT_HOSTS_INVALID' // a record's restore hosts: too many
  | 'FICTA_VAULT_PASSPHRASE_WEAK'
  | 'FICTA_VAULT_PASSPHRASE_MISMATCH'
  | 'FICTA_VAULT_KEY_FILE_INVALID'
  | 'FICTA_VAULT_PROMPT_ABORTED'
  | 'FICTA_VAULT_BUSY' // another process held the write lock past the busy timeout
  | 'FICTA_VAULT_IO'
  | 'FICTA_VAULT_KDF_FAILED'
  | 'FICTA_VAULT_UNAVAILABLE'; // removed or replaced while a reader had it open

/** A FictaError with a vault code; `what` is prefixed with "vault: ". */
export function vaultError(code: VaultErrorCode, what: string, cause?: unknown): FictaError {
  return new FictaError(code, `vault: ${what}`, cause === undefined ? {} : { cause });
}
