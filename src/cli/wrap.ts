// Runs a command behind a private proxy: start the proxy on a free loopback port with a random per-run
// token, run the command with the base-URL variables pointing at it, forward signals, stop the proxy
// when the command ends, print a summary, and exit with the command's exit code. The command's stdio is
// untouched; ficta's own log goes to a file (warnings and errors only, unless a log level is asked for),
// and problems (a dead upstream, an unavailable vault) get one line on stderr the first time they occur.

import { spawn } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import { basename, join } from 'node:path';
import { resolveHome } from '../config/home.ts';
import { FictaError, isFictaError } from '../errors.ts';
import type { RequestSummary, RunReport } from '../index.ts';
import { UPSTREAM_OUTCOMES } from '../log/outcomes.ts';
import type { BaseUrls } from '../server/access.ts';
import { generateToken } from '../server/access.ts';
import { EXIT_BLOCKED, EXIT_INTERRUPTED, EXIT_NOT_EXECUTABLE, EXIT_NOT_FOUND, EXIT_RUN_FAILED } from './exit-codes.ts';
import type { CliIo } from './io.ts';
import type { Notices } from './notice.ts';
import { startSession, type ProxySession } from './proxy-session.ts';
import { reportError } from './report-error.ts';
import { describeBlocks, formatReportLines } from './report-format.ts';
import { describeWithheld } from '../sinks/withheld.ts';
import type { McpServer } from '../mcp/servers.ts';

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
  /** Removes what the plan made for the run (a temporary config overlay), after the command ends. */
  cleanup?: () => void;
}

export interface WrapOptions {
  /** The ficta command (run, claude, codex, …), shown by `ficta status`. */
  mode: string;
  flags: Record<string, unknown>;
  configFile: string | undefined;
  keyFile?: string | undefined;
  io: CliIo;
  /** No summary after the command ends. */
  quiet: boolean;
  /** JSON stderr lines (known from the arguments before the config is read). */
  json: boolean;
  /** Builds the command line once the proxy's base URLs are known. */
  plan(urls: BaseUrls): WrapPlan;
  /** MCP servers found in the agent's configuration: destinations of their tools, reachable at /mcp/<name>. */
  mcpServers?: readonly McpServer[];
  /** Agent configuration files that exist but could not be read for MCP servers (named on stderr once the proxy runs). */
  mcpProblems?: readonly string[];
}

/** The environment every wrapped command gets: the SDKs' base URLs pointing at the proxy. */
export function baseUrlEnv(urls: BaseUrls): Record<string, string> {
  return { ANTHROPIC_BASE_URL: urls.anthropic, OPENAI_BASE_URL: urls.openai, GOOGLE_GEMINI_BASE_URL: urls.gemini, FICTA_URL: urls.root };
}

/**
 * Runs the planned command behind a fresh proxy and returns the exit code to use: the command's own,
 * 125 when ficta failed before the command started, 127/126 when the command is missing/not executable.
 */
export async function runWrapped(options: WrapOptions): Promise<number> {
  const { io } = options;
  const home = resolveHome(io.env);
  const logFile = join(home, 'run.log');
  const problems = firstProblems();
  const fail = (error: unknown, code: number): number => {
    reportError(error, io.stderr, options.json);
    return code;
  };
  let session: ProxySession;
  try {
    session = await startSession({
      mode: options.mode,
      flags: { ...options.flags, host: '127.0.0.1', port: 0, token: generateToken() },
      defaults: { log: { level: 'warn', file: logFile } },
      configFile: options.configFile,
      keyFile: options.keyFile,
      env: io.env,
      ...(io.cwd === undefined ? {} : { cwd: io.cwd }),
      stdin: io.stdin,
      stderr: io.stderr,
      reunlockHint: 'restart the ficta command to unlock it again',
      onRequest: (s, notices) => problems.see(s, notices, logFile),
      ...(options.mcpServers === undefined ? {} : { mcpServers: options.mcpServers }),
    });
  } catch (error) {
    // Ctrl-C at the vault prompt is an interruption (130), not a failure of ficta.
    return fail(error, isFictaError(error, 'FICTA_INTERRUPTED') ? EXIT_INTERRUPTED : EXIT_RUN_FAILED);
  }
  for (const p of options.mcpProblems ?? []) {
    session.notices.warn('mcp_config', `${p}: its MCP servers are unknown to ficta (their tools are withheld when unsure; fix the file or declare them in [mcp.servers])`, { file: p });
  }
  let plan: WrapPlan;
  try {
    plan = options.plan(session.baseUrls);
  } catch (error) {
    // An agent's own configuration ficta cannot extend (opencode's OPENCODE_CONFIG_CONTENT): nothing ran.
    await session.stop();
    return fail(error, EXIT_RUN_FAILED);
  }
  // The dashboard's Runs page names the command (its file name only, never its arguments).
  session.ficta.dashboard?.setRun({ command: basename(plan.command) });
  const env: NodeJS.ProcessEnv = { ...io.env };
  for (const k of PRIVATE_ENV) delete env[k];
  for (const [k, v] of Object.entries(plan.env)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }

  try {
    return await runPlanned(options, session, plan, env);
  } finally {
    plan.cleanup?.();
  }
}

async function runPlanned(options: WrapOptions, session: ProxySession, plan: WrapPlan, env: NodeJS.ProcessEnv): Promise<number> {
  const fail = (error: unknown, code: number): number => {
    reportError(error, options.io.stderr, options.json);
    return code;
  };
  const child = spawn(plan.command, plan.args, { stdio: 'inherit', env, ...(options.io.cwd === undefined ? {} : { cwd: options.io.cwd }) });
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
    // The shell's codes, and the command name only (never its arguments).
    if (code === 'ENOENT') return fail(new FictaError('FICTA_RUN_NOT_FOUND', `run: command not found: ${plan.command}`), EXIT_NOT_FOUND);
    if (code === 'EACCES') return fail(new FictaError('FICTA_RUN_NOT_EXECUTABLE', `run: permission denied: ${plan.command}`), EXIT_NOT_EXECUTABLE);
    throw cause;
  } finally {
    for (const s of FORWARDED) process.off(s, forward);
  }
  const report = await session.stop();
  const childCode = exit.code ?? 128 + (exit.signal === null ? 0 : (osConstants.signals[exit.signal] ?? 0));
  const logShown = session.config.log.file ?? 'stderr';
  if (!options.quiet) printSummary(session.notices, report, logShown);
  else if (report.blocks > 0) session.notices.warn('blocked', `${describeBlocks(report)}; see ${logShown}`, { blocks: report.blocks });
  printWithheld(session.notices, report);
  if (childCode === 0 && session.config.failOnBlock && report.blocks > 0) return EXIT_BLOCKED;
  return childCode;
}

/** The summary block printed after the command ends. */
export function printSummary(notices: Notices, report: RunReport, log: string): void {
  const problem = report.blocks > 0 || report.upstreamErrors > 0 || report.restoreMisses > 0 || (report.withheld ?? 0) > 0 || (report.byOutcome.vault_unavailable ?? 0) > 0;
  notices.block(
    'summary',
    problem ? 'warn' : 'info',
    ['ficta: summary of this run:', ...formatReportLines(report, '  '), `  log             ${log}`],
    { ...report, log },
  );
}

/**
 * Names the restores withheld from tool calls and how to allow them, after the command ends — even with
 * --quiet: a withheld restore is why a tool call got a placeholder instead of the value.
 */
export function printWithheld(notices: Notices, report: RunReport): void {
  if ((report.withheld ?? 0) === 0) return;
  notices.warn('withheld', describeWithheld(report.withheldBySecret ?? {}), { withheld: report.withheld, withheldBySecret: report.withheldBySecret });
}

/** Reports each kind of problem once, when it first happens: a failing upstream, an unavailable vault. */
function firstProblems(): { see(s: RequestSummary, notices: Notices, log: string): void } {
  const seen = new Set<string>();
  return {
    see(s, notices, log) {
      if (UPSTREAM_OUTCOMES.has(s.outcome) && s.upstream !== undefined && !seen.has(`upstream ${s.upstream}`)) {
        seen.add(`upstream ${s.upstream}`);
        const what = s.outcome === 'upstream_timeout' ? 'timed out' : 'is unreachable';
        const status = s.outcome === 'upstream_timeout' ? 504 : 502;
        notices.warn('upstream_failed', `upstream ${s.upstream} ${what} (${s.error ?? 'error'}): requests to it get ${status}; details in ${log}`, { upstream: s.upstream, error: s.error, status });
      }
      if (s.outcome === 'vault_unavailable' && !seen.has('vault')) {
        seen.add('vault');
        notices.warn('vault_unavailable', `the vault is unavailable: requests get 503 and nothing is forwarded; details in ${log}`);
      }
    },
  };
}
