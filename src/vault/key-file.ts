// The vault's key files for CI and scripts: 32 random bytes as 64 hex characters and a newline, mode 0600
// (the same format as the proxy's pre-vault placeholder.key).

import { closeSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { err, ok, type Result } from '../util/result.ts';
import { vaultError } from './errors.ts';
import { KEY_BYTES, randomKeyBytes } from './seal.ts';

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

function parseHexKey(text: string, what: string): Result<Buffer> {
  const hex = text.trim();
  if (!HEX_KEY.test(hex)) return err(vaultError('FICTA_VAULT_KEY_FILE_INVALID', `${what} must hold 64 hexadecimal characters (32 bytes)`));
  return ok(Buffer.from(hex, 'hex'));
}
