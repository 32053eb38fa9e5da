// Runs `ficta …` in-process (main() with captured stdout/stderr) for fast tests of parsing and help.

import { PassThrough, Writable } from 'node:stream';
import { main } from '../../src/cli/main.ts';
import { isolation } from './isolation.ts';

export interface InProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs main(argv) with its own streams and environment; stdin (not a terminal) holds `input`. It works in a
 * fresh empty directory (also HOME unless `env` names one), so the checkout's `.env` is never discovered.
 */
export async function runMain(argv: string[], env: NodeJS.ProcessEnv = {}, input = ''): Promise<InProcessResult> {
  let stdout = '';
  let stderr = '';
  const sink = (add: (s: string) => void): Writable =>
    new Writable({
      write(chunk, _enc, cb) {
        add(String(chunk));
        cb();
      },
    });
  const stdin = new PassThrough();
  stdin.end(input);
  const iso = isolation();
  try {
    const code = await main(argv, { stdout: sink((s) => (stdout += s)), stderr: sink((s) => (stderr += s)), stdin, env: { ...iso.env, ...env }, cwd: iso.dir });
    return { code, stdout, stderr };
  } finally {
    iso.cleanup();
  }
}
