// Runs a command behind a private proxy: start the proxy on a free loopback port with a random per-run
// token, run the command with the base-URL variables pointing at it, forward signals, stop the proxy
// when the command ends, and exit with the command's exit code. The command's stdio is untouched;
// ficta's own logs go to a file (warnings and errors only, unless a log level is asked for).

import { spawn } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import { join } from 'node:path';
import { resolveHome } from '../config/home.ts';
import { FictaError } from '../errors.ts';
import type { BaseUrls } from '../server/access.ts';
import { generateToken } from '../server/access.ts';
import type { CliIo } from './io.ts';
import { describeWithheld } from '../sinks/withheld.ts';
import { describeBlocks, EXIT_BLOCKED, startSession } from './proxy-session.ts';

/** Signals passed on to the command. SIGINT and SIGQUIT from a terminal already reach the command
 * (same foreground process group), so they are forwarded only when stdin is not a TTY. */
const FORWARDED: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2', 'SIGWINCH'];

/** Variables that belong to ficta and never reach the wrapped command. */
const PRIVATE_ENV = ['FICTA_VAULT_PASSPHRASE', 'FICTA_VAULT_KEY_FILE', 'FICTA_TOKEN'];

export interface WrapPlan {
  command: string;
  args: string[];
  /** Variables added to (or, when undefined, removed from) the command's environment. */
  env: Record<string, string | undefined>;
}

export interface WrapOptions {
  flags: Record<string, unknown>;
  configFile: string | undefined;
  keyFile?: string | undefined;
  io: CliIo;
  /** Builds the command line once the proxy's base URLs are known. */
  plan(urls: BaseUrls): WrapPlan;
}

/** The environment every wrapped command gets: both SDK base URLs pointing at the proxy. */
export function baseUrlEnv(urls: BaseUrls): Record<string, string> {
  return { ANTHROPIC_BASE_URL: urls.anthropic, OPENAI_BASE_URL: urls.openai, FICTA_URL: urls.root };
}

/** Runs the planned command behind a fresh proxy and returns the exit code to use. */
export async function runWrapped(options: WrapOptions): Promise<number> {
  const { io } = options;
  const home = resolveHome(io.env);
  const session = await startSession({
    flags: { ...options.flags, host: '127.0.0.1', port: 0, token: generateToken() },
    defaults: { log: { level: 'warn', file: join(home, 'run.log') } },
    configFile: options.configFile,
    keyFile: options.keyFile,
    env: io.env,
    stdin: io.stdin,
    stderr: io.stderr,
  });
  const plan = options.plan(session.baseUrls);
  const env: NodeJS.ProcessEnv = { ...io.env };
  for (const k of PRIVATE_ENV) delete env[k];
  for (const [k, v] of Object.entries(plan.env)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }

  const child = spawn(plan.command, plan.args, { stdio: 'inherit', env });
  const forward = (signal: NodeJS.Signals): void => {
    if ((signal === 'SIGINT' || signal === 'SIGQUIT') && process.stdin.isTTY === true) return;
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  for (const s of FORWARDED) process.on(s, forward);

  let exit: { code: number | null; signal: NodeJS.Signals | null };
  try {
    exit = await new Promise((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code, signal) => resolve({ code, signal }));
    });
  } catch (cause) {
    await session.stop();
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new FictaError('FICTA_RUN_NOT_FOUND', `run: command not found: ${plan.command}`, { status: 127, cause });
    if (code === 'EACCES') throw new FictaError('FICTA_RUN_NOT_EXECUTABLE', `run: permission denied: ${plan.command}`, { status: 126, cause });
    throw cause;
  } finally {
    for (const s of FORWARDED) process.off(s, forward);
  }
  const report = await session.stop();
  const childCode = exit.code ?? 128 + (exit.signal === null ? 0 : (osConstants.signals[exit.signal] ?? 0));
  if (report.blocks > 0) io.stderr.write(`ficta: ${describeBlocks(report)}; see ${session.config.log.file ?? 'the log'}\n`);
  if ((report.withheld ?? 0) > 0) io.stderr.write(`ficta: ${describeWithheld(report.withheldBySecret ?? {})}\n`);
  if (childCode === 0 && session.config.failOnBlock && report.blocks > 0) return EXIT_BLOCKED;
  return childCode;
}

/**
 * Splits `ficta run` arguments: ficta's own options come first; the first argument that is not one of
 * them (or everything after `--`) is the command.
 */
export function splitCommand(argv: string[], known: Record<string, { type: 'string' | 'boolean' }>): { own: string[]; command: string[] } {
  const own: string[] = [];
  let i = 0;
  while (i < argv.length) {
    const arg = argv[i] as string;
    if (arg === '--') return { own, command: argv.slice(i + 1) };
    if (!arg.startsWith('--')) break;
    const [name, inline] = arg.slice(2).split('=', 2) as [string, string | undefined];
    const spec = known[name];
    if (spec === undefined) break;
    own.push(arg);
    if (spec.type === 'string' && inline === undefined) {
      const value = argv[i + 1];
      if (value === undefined) throw new FictaError('FICTA_USAGE', `usage: --${name} needs a value`);
      own.push(value);
      i++;
    }
    i++;
  }
  return { own, command: argv.slice(i) };
}
