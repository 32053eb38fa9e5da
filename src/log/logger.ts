// The pino logger factory and the typed events ficta logs. Log lines carry counts, names, sizes and
// durations only — never a secret value, a request body or a placeholder map, at any level.

import { pino, type Logger, type LevelWithSilent, type DestinationStream } from 'pino';

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
  | 'request'
  | 'request_blocked'
  | 'upstream_error'
  | 'client_aborted'
  | 'stream_error'
  | 'websocket_refused'
  | 'internal_error';

export interface CreateLoggerOptions {
  level: LogLevel;
  /** Where lines go; stderr (fd 2) by default. */
  destination?: DestinationStream | number;
}

/** Creates the JSON logger (stderr by default). */
export function createLogger(options: CreateLoggerOptions): Logger {
  const dest = options.destination ?? 2;
  const stream = typeof dest === 'number' ? pino.destination({ dest, sync: false }) : dest;
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
