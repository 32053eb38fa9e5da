// The placeholder key kept in FICTA_HOME/placeholder.key (64 hex characters, mode 0600) until the
// sealed vault holds it. Created once, race-free (O_EXCL), so concurrent processes agree on one key.

import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, writeSync, chmodSync, statSync, renameSync, linkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ensureHome } from '../config/home.ts';
import { FictaError } from '../errors.ts';
import { err, ok, type Result } from '../util/result.ts';
import type { PlaceholderKeyProvider } from './types.ts';

export const PLACEHOLDER_KEY_FILE = 'placeholder.key';

/** Path of the placeholder key file inside `home`. */
export function placeholderKeyPath(home: string): string {
  return join(home, PLACEHOLDER_KEY_FILE);
}

/** Reads the key file; `undefined` when it does not exist. */
export function readPlaceholderKeyFile(path: string): Result<Buffer | undefined> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return ok(undefined);
    return err(new FictaError('FICTA_KEY_UNREADABLE', `keys: cannot read ${path}: ${(cause as NodeJS.ErrnoException).code ?? 'error'}`, { cause }));
  }
  const hex = text.trim();
  if (!/^[0-9a-f]{64}$/.test(hex)) {
    return err(new FictaError('FICTA_KEY_UNREADABLE', `keys: ${path} is not a 32-byte hex key (corrupt?); refusing to replace it because placeholders depend on it`));
  }
  return ok(Buffer.from(hex, 'hex'));
}

/** A key provider backed by the file, creating it (0600) on first use. */
export function createFilePlaceholderKeyProvider(home: string): PlaceholderKeyProvider {
  let cached: Buffer | undefined;
  return {
    async getKey() {
      if (cached !== undefined) return ok(cached);
      const key = readOrCreateKeyFile(home, PLACEHOLDER_KEY_FILE);
      if (key.ok) cached = key.value;
      return key;
    },
  };
}

/** The 32-byte key in FICTA_HOME/`name` (64 hex characters, 0600), created race-free when missing. */
export function readOrCreateKeyFile(home: string, name: string): Result<Buffer> {
  const path = join(home, name);
  const existing = readPlaceholderKeyFile(path);
  if (!existing.ok) return existing;
  if (existing.value !== undefined) {
    tightenMode(path);
    return ok(existing.value);
  }
  try {
    ensureHome(home);
    return ok(createKeyFile(path));
  } catch (cause) {
    return err(new FictaError('FICTA_KEY_UNREADABLE', `keys: cannot create ${path}: ${(cause as NodeJS.ErrnoException).code ?? 'error'}`, { cause }));
  }
}

function createKeyFile(path: string): Buffer {
  const key = randomBytes(32);
  // Write a temp file completely, then link it into place: the key file is either absent or whole,
  // and when two processes race, link() lets exactly one win and the other reads the winner's key.
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, `${key.toString('hex')}\n`);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, path);
    return key;
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code !== 'EEXIST') {
      // Filesystems without hard links: fall back to rename (last writer wins, still whole).
      if ((cause as NodeJS.ErrnoException).code === 'EPERM' || (cause as NodeJS.ErrnoException).code === 'ENOTSUP') {
        renameSync(tmp, path);
        return key;
      }
      throw cause;
    }
    const winner = readPlaceholderKeyFile(path);
    if (!winner.ok || winner.value === undefined) throw winner.ok ? new Error('key file vanished') : winner.error;
    return winner.value;
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      // already renamed or removed
    }
  }
}

function tightenMode(path: string): void {
  try {
    if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  } catch {
    // best effort; the read already succeeded
  }
}
