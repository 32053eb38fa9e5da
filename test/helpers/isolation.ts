// Where a ficta started by a test runs: its own empty working directory and HOME, so that a `.env` in the
// checkout, a variable in the developer's shell or their ~/.ficta never changes a test's outcome (issue 26).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Isolation {
  /** An empty directory: the working directory, and HOME unless the caller names one. */
  dir: string;
  /** `{ HOME: dir }`, to spread under the caller's own environment. */
  env: { HOME: string };
  /** Removes the directory (idempotent). */
  cleanup(): void;
}

/** A fresh empty directory under the system temp dir to run a ficta in. */
export function isolation(): Isolation {
  const dir = mkdtempSync(join(tmpdir(), 'ficta-cwd-'));
  return { dir, env: { HOME: dir }, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
