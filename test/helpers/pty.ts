// Runs `ficta …` on a pseudo-terminal (test/helpers/pty-run.py, Python's pty module) for what only happens
// on a terminal: colour, hidden prompts, confirmations, Ctrl-C.

import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { BIN, SOURCES_ENV } from './cli.ts';

export type PtyStep = { expect: string } | { send: string } | { sleep: number } | { waitfile: string } | { signal: 'SIGINT' | 'SIGTERM' | 'SIGHUP' } | { hangup: true };

export interface PtyResult {
  /** Everything written to the terminal (stdout and stderr together, CRLF line ends). */
  output: string;
  code: number;
}

/** Runs `ficta ARGS…` on a terminal, following the steps (expect text, then send keys), in `cwd` (default: this process's). */
export function runOnPty(args: string[], env: NodeJS.ProcessEnv, steps: PtyStep[], timeoutSec = 30, cwd?: string): Promise<PtyResult> {
  const spec = { argv: [BIN, ...args], env: { PATH: process.env.PATH ?? '', TERM: 'xterm', ...SOURCES_ENV, ...env }, steps, timeout: timeoutSec, ...(cwd === undefined ? {} : { cwd }) };
  return new Promise((resolve, reject) => {
    execFile('python3', [join(import.meta.dirname, 'pty-run.py'), JSON.stringify(spec)], { maxBuffer: 16 * 1024 * 1024, timeout: (timeoutSec + 10) * 1000 }, (error, stdout) => {
      if (error) reject(error);
      else resolve(JSON.parse(stdout) as PtyResult);
    });
  });
}
