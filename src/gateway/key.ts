// The gateway key: 32 random bytes as 64 hex characters (the format of FICTA_HOME/placeholder.key), one
// file every instance shares (a Kubernetes Secret). Per-tenant placeholder keys derive from it.

import { randomBytes } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';
import { FictaError } from '../errors.ts';
import { readPlaceholderKeyFile } from '../secrets/placeholder-key-file.ts';

/** Reads the shared gateway key. */
export function readGatewayKey(path: string): Uint8Array {
  const read = readPlaceholderKeyFile(path);
  if (!read.ok) throw new FictaError('FICTA_KEY_UNREADABLE', read.error.message.replace(/^keys: /, 'gateway: key file '));
  if (read.value === undefined) throw new FictaError('FICTA_KEY_UNREADABLE', `gateway: key file ${path} does not exist (ficta gateway init DIR writes one)`);
  return new Uint8Array(read.value);
}

/** Writes a new key file (0600), never over an existing one. */
export function createGatewayKeyFile(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code ?? 'error';
    throw new FictaError('FICTA_KEY_UNREADABLE', code === 'EEXIST' ? `gateway: ${path} already exists; it was left untouched` : `gateway: cannot create ${path}: ${code}`, { cause });
  }
  try {
    writeSync(fd, `${randomBytes(32).toString('hex')}\n`);
  } finally {
    closeSync(fd);
  }
}
