// Child processes of the end-to-end harness: the mock upstream, ficta (`bin/ficta serve`) and any other
// proxy given as a shell command with {UPSTREAM} and {PORT}. Each runs in its own process group with
// stderr kept in a file, and is stopped by its own pid (SIGTERM, then SIGKILL after a grace period).

import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { join } from 'node:path';
import { FictaError } from '../errors.ts';
import { processTree } from './proc.ts';

export interface Child {
  /** Label in reports and errors. */
  label: string;
  process: ChildProcess;
  /** The child and its descendants once it was ready (CPU and RSS are read over these). */
  pids: number[];
  /** The last lines the child wrote to stderr (for error messages). */
  stderrTail(): string;
  stop(): Promise<void>;
}

/** How long a child may take to be ready: tsx start-up plus a 10,000-secret build on a loaded machine. */
const READY_TIMEOUT_MS = 30_000;
/** How long a stopped child may take to exit before SIGKILL. */
const STOP_GRACE_MS = 5_000;

const live = new Set<Child>();
let exitHookInstalled = false;

/** Kills every child still running (on exit or a signal, so no proxy outlives an interrupted run). */
export function stopAllChildren(): void {
  for (const c of live) {
    try {
      if (c.process.pid !== undefined) process.kill(-c.process.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

export interface SpawnOptions {
  label: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** Directory for the stderr file. */
  logDir: string;
  /** Ready when stdout matches (the first group is returned), or when `port` accepts connections. */
  ready: { stdout: RegExp } | { port: number };
}

/** Spawns a child and waits until it is ready; returns it with what the ready check captured. */
export async function spawnChild(options: SpawnOptions): Promise<{ child: Child; match: string }> {
  if (!exitHookInstalled) {
    process.on('exit', stopAllChildren);
    exitHookInstalled = true;
  }
  const logPath = join(options.logDir, `${options.label.replace(/[^\w.-]+/g, '_')}.stderr`);
  const errFd = openSync(logPath, 'w');
  const proc = spawn(options.command, options.args, {
    env: options.env,
    cwd: options.cwd,
    // stdin stays open as a pipe: the mock upstream exits when it closes (the harness died).
    stdio: ['pipe', 'pipe', errFd],
    detached: true,
  });
  closeSync(errFd);
  const stderrTail = (): string => {
    try {
      return readFileSync(logPath, 'utf8').slice(-2000);
    } catch {
      return '';
    }
  };
  let exited = false;
  const exitedPromise = new Promise<void>((resolve) => proc.once('exit', () => ((exited = true), resolve())));
  const child: Child = {
    label: options.label,
    process: proc,
    pids: [],
    stderrTail,
    async stop() {
      live.delete(child);
      if (exited || proc.pid === undefined) return;
      try {
        process.kill(-proc.pid, 'SIGTERM');
      } catch {
        return;
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-(proc.pid as number), 'SIGKILL');
        } catch {
          // gone
        }
      }, STOP_GRACE_MS);
      await exitedPromise;
      clearTimeout(timer);
    },
  };
  live.add(child);

  let stdout = '';
  proc.stdout?.setEncoding('utf8');
  const match = await new Promise<string>((resolve, reject) => {
    const fail = (why: string): void => {
      clearTimeout(timer);
      reject(new FictaError('FICTA_BENCH_CHILD', `bench: ${options.label} ${why}: ${oneLine(stderrTail()).slice(-600)}`));
    };
    const timer = setTimeout(() => fail(`not ready after ${READY_TIMEOUT_MS} ms`), READY_TIMEOUT_MS);
    void exitedPromise.then(() => fail('exited before it was ready'));
    proc.once('error', (e) => fail(`could not start (${(e as NodeJS.ErrnoException).code ?? e.message})`));
    const ready = options.ready;
    if ('stdout' in ready) {
      proc.stdout?.on('data', (d: string) => {
        stdout += d;
        const m = ready.stdout.exec(stdout);
        if (m !== null) {
          clearTimeout(timer);
          resolve(m[1] ?? m[0]);
        }
      });
    } else {
      proc.stdout?.resume();
      const started = Date.now();
      const poll = (): void => {
        if (exited || Date.now() - started > READY_TIMEOUT_MS) return;
        const s = connect(ready.port, '127.0.0.1');
        s.once('connect', () => {
          s.destroy();
          clearTimeout(timer);
          resolve(String(ready.port));
        });
        s.once('error', () => {
          s.destroy();
          setTimeout(poll, 50);
        });
      };
      poll();
    }
  }).catch(async (e: unknown) => {
    await child.stop();
    throw e;
  });
  // Keep draining stdout so a chatty child never blocks on a full pipe.
  proc.stdout?.resume();
  if (proc.pid !== undefined) child.pids = processTree(proc.pid);
  return { child, match };
}

/** A free TCP port on loopback (for commands that need a port chosen for them). */
export async function freePort(): Promise<number> {
  return await new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, ' ').trim();
}
