// Writing a file whole: a temporary file in the same directory, renamed over the target, mode 0600, so a
// reader never sees half of it.

import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { FictaError } from '../errors.ts';

/** Writes `text` to `path` atomically (temp + rename), mode 0600. */
export function writeAtomic(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(tmp, text, { mode: 0o600 });
    renameSync(tmp, path);
  } catch (cause) {
    rmSync(tmp, { force: true });
    throw new FictaError('FICTA_FILE_WRITE', `files: cannot write ${path}: ${(cause as NodeJS.ErrnoException).code ?? 'error'}`, { cause });
  }
}
