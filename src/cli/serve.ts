// `ficta serve`: run the redacting proxy. Prints exactly one line `ficta listening on http://H:P` on
// stdout when ready; SIGINT/SIGTERM stop accepting, let in-flight requests finish (10 s cap), exit 0;
// SIGHUP unlocks the vault again (after `vault passwd`, `rekey` or `restore`) without a restart.

import { closeSync, openSync } from 'node:fs';
import { formatHelp, parseCommandLine, type CommandSpec } from './args.ts';
import { EXIT_BLOCKED, EXIT_OK } from './exit-codes.ts';
import type { CliIo } from './io.ts';
import { proxyFlags, SERVE_OPTIONS, wantsJson } from './proxy-options.ts';
import { startSession } from './proxy-session.ts';
import { describeBlocks } from './report-format.ts';
import { reportError } from './report-error.ts';
import { maskToken } from '../server/access.ts';

export const spec = {
  name: 'serve',
  usage: 'serve [options]',
  summary: 'run the redacting proxy',
  description: `Runs the redacting proxy until SIGINT or SIGTERM. When ready it prints one line on stdout,
"ficta listening on http://HOST:PORT"; logs go to stderr. SIGHUP unlocks the vault again with the
credentials it started with (--key-file, FICTA_VAULT_KEY_FILE, FICTA_VAULT_PASSPHRASE), e.g. after
ficta vault passwd, rekey or restore.`,
  options: SERVE_OPTIONS,
  footer: `Point clients at it: ANTHROPIC_BASE_URL=http://127.0.0.1:8787  OPENAI_BASE_URL=http://127.0.0.1:8787/openai/v1
  GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:8787/gemini; a named upstream (--upstream NAME=URL) at http://127.0.0.1:8787/NAME/…`,
} satisfies CommandSpec;

/** Runs the proxy until SIGINT/SIGTERM. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const json = wantsJson(argv, io.env);
  try {
    return await serve(argv, io);
  } catch (error) {
    return reportError(error, io.stderr, json);
  }
}

async function serve(argv: string[], io: CliIo): Promise<number> {
  const { help, values } = parseCommandLine(spec, argv);
  if (help) {
    io.stdout.write(formatHelp(spec));
    return EXIT_OK;
  }
  const { flags, configFile, keyFile } = proxyFlags(values, 'serve');
  const session = await startSession({
    mode: 'serve',
    flags,
    configFile,
    keyFile,
    env: io.env,
    ...(io.cwd === undefined ? {} : { cwd: io.cwd }),
    stdin: io.stdin,
    stderr: io.stderr,
    readyFile: values['ready-file'],
    reunlockHint: `unlock it again with kill -HUP ${process.pid} (ficta reads --key-file, FICTA_VAULT_KEY_FILE or FICTA_VAULT_PASSPHRASE again), or restart ficta`,
  });
  const { notices } = session;
  // Bench-only (ficta bench sets it): bytes allocated per request, read by the harness (src/bench/alloc-probe.ts).
  const allocFile = io.env.FICTA_BENCH_ALLOC;
  if (allocFile !== undefined && allocFile !== '') (await import('../bench/alloc-probe.ts')).startAllocProbe(allocFile);
  // Handlers first, then the ready line: whoever reacts to that line may already send signals.
  let stopRequested!: () => void;
  const stopping = new Promise<void>((resolve) => (stopRequested = resolve));
  const stop = (): void => {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    stopRequested();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const onTerminal = (io.stdin as { isTTY?: boolean }).isTTY === true || (io.stderr as { isTTY?: boolean }).isTTY === true;
  const onHup = (): void => {
    // SIGHUP also means "your terminal is gone": then stop as on SIGTERM, rather than linger unseen.
    if (onTerminal && !hasTerminal()) {
      // Nothing can be shown any more; writing to the dead terminal fails with EIO, which must not crash the stop.
      for (const s of [io.stdout, io.stderr]) s.on('error', () => {});
      session.ficta.logger.level = 'silent';
      stop();
      return;
    }
    void session.reunlock().then((r) => {
      if (r.ok) notices.info('vault_reunlocked', `vault unlocked again: ${r.value} secret(s)`, { count: r.value });
      else notices.warn('vault_reunlock_failed', `vault: could not unlock it again: ${r.error.message.replace(/^vault: /, '')}`, { code: r.error.code });
    });
  };
  process.on('SIGHUP', onHup);
  io.stdout.write(`ficta listening on ${session.url}\n`);
  if (session.config.token !== undefined) {
    // The base URLs carry the token, a credential: masked unless asked for (CI logs keep stderr).
    const show = values['show-token'] === true;
    const urls = session.baseUrls;
    const shown = (u: string): string => (show ? u : maskToken(u));
    notices.info(
      'base_urls',
      `base URLs: ANTHROPIC_BASE_URL=${shown(urls.anthropic)} OPENAI_BASE_URL=${shown(urls.openai)} GOOGLE_GEMINI_BASE_URL=${shown(urls.gemini)}${show ? '' : ' (token masked: --show-token or --ready-file for the whole URLs)'}`,
      { anthropic: shown(urls.anthropic), openai: shown(urls.openai), gemini: shown(urls.gemini) },
    );
  }

  await stopping;
  // A hangup sends SIGHUP more than once: while stopping, further ones are ignored rather than fatal.
  const ignore = (): void => {};
  process.on('SIGHUP', ignore);
  process.off('SIGHUP', onHup);
  const report = await session.stop();
  if (session.config.failOnBlock && report.blocks > 0) {
    notices.warn('blocked', `report: ${describeBlocks(report)}`, { blocks: report.blocks, blockedBySecret: report.blockedBySecret });
    return EXIT_BLOCKED;
  }
  return EXIT_OK;
}

/** False once the controlling terminal has hung up (opening /dev/tty then fails). */
function hasTerminal(): boolean {
  try {
    closeSync(openSync('/dev/tty', 'r'));
    return true;
  } catch {
    return false;
  }
}
