// The pino logger factory and the typed events ficta logs. Log lines carry counts, names, sizes and
// durations only — never a secret value, a request body or a placeholder map, at any level.

import { fstatSync, statSync } from 'node:fs';
import { pino, type Logger, type LevelWithSilent, type DestinationStream } from 'pino';
import { batchedFile } from './batched-file.ts';
import { formatHumanLine } from './human.ts';

export type LogLevel = LevelWithSilent;
export type { Logger };

/** Every event name ficta logs; one place so tests and readers can see them all. */
export type LogEvent =
  | 'listening'
  | 'shutdown'
  | 'shutdown_forced'
  | 'secrets_loaded'
  | 'secrets_skipped'
  | 'secrets_reload_failed'
  | 'source_loaded'
  | 'source_load_failed'
  | 'request'
  | 'stream_error'
  | 'internal_error'
  | 'watermark_disabled'
  | 'watermark_registry_error'
  | 'watermark_registry_dropped'
  | 'watermark_internal_error'
  | 'vault_reunlocked'
  | 'vault_reunlock_failed'
  | 'gateway_listening'
  | 'gateway_draining'
  | 'gateway_reload'
  | 'tokens_loaded'
  | 'tokens_reload_failed'
  | 'last_used_write_failed'
  | 'gateway_config_changed'
  | 'gateway_config_invalid';

export interface CreateLoggerOptions {
  level: LogLevel;
  /** Where lines go: a stream, a file descriptor, or a file path (appended); stderr (fd 2) by default. */
  destination?: DestinationStream | number | string;
  /**
   * `json` (default), `text` (one readable line per event), or `auto`: text when the destination is a
   * terminal (stderr by default), JSON otherwise.
   */
  format?: 'auto' | 'json' | 'text';
  /** Whether the destination is a terminal (for `auto` and colour); process.stderr's when logging to fd 2. */
  isTty?: boolean;
  /** The environment, for NO_COLOR. */
  env?: NodeJS.ProcessEnv;
  /**
   * `ficta gateway`'s audit trail: `request` lines go here (a file descriptor, stdout = 1), always as JSON,
   * and every other line to `destination`.
   */
  requestDestination?: number;
}

/** The format a log actually uses: `auto` becomes text on a terminal, JSON elsewhere. */
export function resolveLogFormat(format: CreateLoggerOptions['format'], isTty: boolean): 'json' | 'text' {
  if (format === 'text' || format === 'json') return format;
  return format === 'auto' && isTty ? 'text' : 'json';
}

/** Creates the logger (JSON on stderr by default). */
export function createLogger(options: CreateLoggerOptions): Logger {
  const dest = options.destination ?? 2;
  const isTty = options.isTty ?? (dest === 2 && process.stderr.isTTY === true);
  // A regular file is written synchronously, in batches (batched-file.ts): a write there does not block on
  // a reader, and a hand-off to libuv's pool and back for every line cost ~0.07 ms of CPU per request at 16
  // concurrent, 50 KiB JSON; one synchronous write per line ~0.02 ms. Pipes and terminals stay async.
  const file = typeof dest !== 'object' && isRegularFile(dest);
  let stream: DestinationStream =
    typeof dest === 'object'
      ? dest
      : file
        ? batchedFile(dest)
        : typeof dest === 'number'
          ? pino.destination({ dest, sync: false })
          : pino.destination({ dest, sync: false, append: true, mkdir: true });
  if (typeof dest === 'number' && !file) stream = survivable(stream);
  if (resolveLogFormat(options.format, isTty) === 'text') stream = textStream(stream, isTty && wantsColor(options.env ?? process.env));
  if (options.requestDestination !== undefined) stream = splitRequests(survivable(pino.destination({ dest: options.requestDestination, sync: false })), stream);
  return pino(
    {
      level: options.level,
      base: { name: 'ficta' },
      messageKey: 'msg',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    stream,
  );
}

/** Logs one typed event with structured fields. */
export function logEvent(logger: Logger, level: 'info' | 'warn' | 'error' | 'debug', event: LogEvent, fields: Record<string, unknown> = {}): void {
  logger[level]({ event, ...fields });
}

/** Logs a record that already names its event (no copy of its fields: the per-request line). */
export function logRecord(logger: Logger, level: 'info' | 'warn', record: { event: LogEvent } & Record<string, unknown>): void {
  if (logger.isLevelEnabled(level)) logger[level](record);
}

/** Whether a log destination (an open descriptor, or a path: one that does not exist yet becomes a file) is a regular file. */
function isRegularFile(dest: number | string): boolean {
  try {
    return (typeof dest === 'number' ? fstatSync(dest) : statSync(dest)).isFile();
  } catch (error) {
    return typeof dest === 'string' && (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/**
 * A terminal that hung up (EIO) or a reader that went away (EPIPE) ends the log, not the proxy. Left
 * alone, the write error is unhandled, and sonic-boom's flushSync at exit retries such a write forever.
 */
function survivable(inner: DestinationStream): DestinationStream {
  const boom = inner as DestinationStream & NodeJS.EventEmitter & { flush(cb?: (err?: Error) => void): void; flushSync(): void; destroy(): void };
  let dead = false;
  boom.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EIO' && error.code !== 'EPIPE') throw error;
    dead = true;
    boom.destroy();
  });
  return {
    write(line: string): void {
      if (!dead) boom.write(line);
    },
    flush(cb?: (err?: Error) => void): void {
      if (dead) cb?.();
      else boom.flush(cb);
    },
    flushSync(): void {
      if (!dead) boom.flushSync();
    },
  } as DestinationStream;
}

/** Colour unless NO_COLOR is set (https://no-color.org). */
export function wantsColor(env: NodeJS.ProcessEnv): boolean {
  return env.NO_COLOR === undefined || env.NO_COLOR === '';
}

/**
 * Request lines to `requests`, the rest to `rest`. Pino writes the base fields, then the record's own:
 * `"event":"request"` right after `"name":"ficta",` is the request event (a string value holding those
 * characters would have its quotes escaped).
 */
function splitRequests(requests: DestinationStream, rest: DestinationStream): DestinationStream {
  const flushOf = (s: DestinationStream) => (s as { flush?: (cb?: (err?: Error) => void) => void }).flush;
  const flushSyncOf = (s: DestinationStream) => (s as { flushSync?: () => void }).flushSync;
  return {
    write(line: string): void {
      (line.includes('"name":"ficta","event":"request"') ? requests : rest).write(line);
    },
    flush(cb?: (err?: Error) => void): void {
      const a = flushOf(requests);
      const b = flushOf(rest);
      const both = (): void => (typeof b === 'function' ? b.call(rest, cb) : cb?.());
      if (typeof a === 'function') a.call(requests, () => both());
      else both();
    },
    flushSync(): void {
      flushSyncOf(requests)?.call(requests);
      flushSyncOf(rest)?.call(rest);
    },
  } as DestinationStream;
}

/** Rewrites each JSON line as one readable line (see human.ts). */
function textStream(inner: DestinationStream, color: boolean): DestinationStream {
  return {
    write(line: string): void {
      let obj: Record<string, unknown>;
      try {
        obj = JSON.parse(line) as Record<string, unknown>;
      } catch {
        inner.write(line);
        return;
      }
      inner.write(formatHumanLine(obj, color));
    },
    flush(cb?: (err?: Error) => void): void {
      const f = (inner as { flush?: (cb?: (err?: Error) => void) => void }).flush;
      if (typeof f === 'function') f.call(inner, cb);
      else cb?.();
    },
    ...('flushSync' in inner ? { flushSync: () => (inner as { flushSync(): void }).flushSync() } : {}),
  } as DestinationStream;
}
