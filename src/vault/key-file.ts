// 32-byte key files (64 hex characters and a newline, mode 0600): the vault's key file for CI and scripts,
// and the proxy's pre-vault `placeholder.key`, which `vault init` adopts so placeholders stay stable.

import { closeSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { err, ok, type Result } from '../util/result.ts';
import { vaultError } from './errors.ts';
import { KEY_BYTES, randomKeyBytes } from './seal.ts';

/** Where the proxy keeps its placeholder key until a vault holds it. */
export const PLACEHOLDER_KEY_FILE = 'placeholder.key';

const HEX_KEY = /^[0-9a-fA-F]{64}$/;

/** Reads a key file, refusing one that other users can read. */
export function readKeyFile(path: string): Result<Buffer> {
  let text: string;
  try {
    const mode = statSync(path).mode & 0o777;
    if ((mode & 0o077) !== 0) {
      return err(vaultError('FICTA_VAULT_KEY_FILE_INVALID', `key file ${path} is readable by other users (mode ${mode.toString(8)}); run chmod 600 ${path}`));
    }
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    return err(vaultError('FICTA_VAULT_KEY_FILE_INVALID', `cannot read key file ${path}: ${(cause as NodeJS.ErrnoException).code ?? 'error'}`, cause));
  }
  return parseHexKey(text, `key file ${path}`);
}

/** Creates a new random key file (fails if the path exists). */
export function createKeyFile(path: string): Result<Buffer> {
  const key = randomKeyBytes(KEY_BYTES);
  let fd: number | undefined;
  try {
    fd = openSync(path, 'wx', 0o600);
    writeSync(fd, `${key.toString('hex')}\n`);
  } catch (cause) {
    return err(vaultError('FICTA_VAULT_KEY_FILE_INVALID', `cannot create key file ${path}: ${(cause as NodeJS.ErrnoException).code ?? 'error'}`, cause));
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return ok(key);
}

/** The proxy's placeholder key from FICTA_HOME/placeholder.key, undefined when there is none. */
export function readPlaceholderKeyFile(home: string): Result<Buffer | undefined> {
  const path = join(home, PLACEHOLDER_KEY_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return ok(undefined);
    return err(vaultError('FICTA_VAULT_KEY_FILE_INVALID', `cannot read ${path}: ${(cause as NodeJS.ErrnoException).code ?? 'error'}`, cause));
  }
  // A damaged file is an error, not a reason for a fresh key: that would change every placeholder.
  return parseHexKey(text, path);
}

function parseHexKey(text: string, what: string): Result<Buffer> {
  const hex = text.trim();
  if (!HEX_KEY.test(hex)) return err(vaultError('FICTA_VAULT_KEY_FILE_INVALID', `${what} must hold 64 hexadecimal characters (32 bytes)`));
  return ok(Buffer.from(hex, 'hex'));
}
