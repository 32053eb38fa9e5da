// Runs the real `ficta` command (bin/ficta.js) in a child process.

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { isolation } from './isolation.ts';

export const BIN = join(import.meta.dirname, '../../bin/ficta');

/**
 * Tests run the TypeScript sources (through tsx), never a build in dist/: bin/ficta.js already refuses a
 * build older than any source it bundled, and FICTA_DEV=1 makes even a current one irrelevant, so what a
 * test exercises is always the code under test. test/integration/npm-pack.test.ts covers the build.
 */
export const SOURCES_ENV = { FICTA_DEV: '1' } as const;

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `ficta ARGS…` to completion, in `cwd` or else a fresh empty directory that is also its HOME (unless
 * `env` names one), so nothing in the checkout or the developer's home is discovered.
 */
export function runCli(args: string[], options: { env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number; cwd?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const iso = isolation();
    const child = spawn(BIN, [...args], { cwd: options.cwd ?? iso.dir, env: { PATH: process.env.PATH, ...iso.env, ...SOURCES_ENV, ...options.env }, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d.toString()));
    child.stderr.on('data', (d) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
    child.on('error', (error) => {
      iso.cleanup();
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      iso.cleanup();
      resolve({ code, signal, stdout, stderr });
    });
    if (options.input !== undefined) child.stdin.end(options.input);
    else child.stdin.end();
  });
}

export interface ServeProcess {
  child: ChildProcessWithoutNullStreams;
  url: string;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code once the process ends. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `ficta serve ARGS…` and waits for its `ficta listening on …` line: this checkout's sources, or
 * `bin`, an installed `ficta` (which has no sources: it runs as it is). It runs in `cwd`, or else in a fresh
 * empty directory that is also its HOME unless `env` names one (removed when it exits).
 */
export async function startServe(args: string[], env: NodeJS.ProcessEnv, bin?: string, cwd?: string): Promise<ServeProcess> {
  const iso = isolation();
  const child = spawn(bin ?? BIN, ['serve', ...args], { cwd: cwd ?? iso.dir, env: { PATH: process.env.PATH, ...iso.env, ...(bin === undefined ? SOURCES_ENV : {}), ...env }, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => {
      iso.cleanup();
      resolve({ code, signal });
    }),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 20_000);
    child.stdout.on('data', (d) => {
      stdout += d.toString();
      const m = /^ficta listening on (http:\/\/\S+)\n/m.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] as string);
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`serve exited before listening: ${stderr}`));
    });
  });
  return { child, url, stdout: () => stdout, stderr: () => stderr, exited };
}
