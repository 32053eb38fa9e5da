// What to do next when the vault cannot be used: the way out appended to the errors of a damaged,
// foreign or unreadable vault file, for every command that opens it.

import { FictaError, isFictaError } from '../errors.ts';

/** Vault errors meaning the file itself is damaged, foreign or from another version. */
const DAMAGED: ReadonlySet<string> = new Set([
  'FICTA_VAULT_CORRUPT',
  'FICTA_VAULT_TRUNCATED',
  'FICTA_VAULT_UNSUPPORTED_VERSION',
  'FICTA_VAULT_STATE_TAMPERED',
  'FICTA_VAULT_RECORD_TAMPERED',
  'FICTA_VAULT_RECORD_SWAPPED',
  'FICTA_VAULT_ROWS_DELETED',
  'FICTA_VAULT_ROWS_ADDED',
  'FICTA_VAULT_ROWS_ROLLED_BACK',
  'FICTA_VAULT_ROLLED_BACK',
]);

/** True when the error means the vault file is damaged or not a vault this ficta can read. */
export function isDamagedVault(error: unknown): boolean {
  return isFictaError(error) && DAMAGED.has(error.code);
}

/** A damaged or foreign vault: the same error with the way out appended; other errors unchanged. */
export function withVaultWayOut(error: FictaError, forProxy = true): FictaError {
  if (!isDamagedVault(error)) return error;
  const next = forProxy ? 'start without it with --no-vault, inspect it with ficta vault status, or ' : '';
  return new FictaError(error.code, `${error.message}; ${next}recover a backup with ficta vault restore FILE`, { cause: error });
}
