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
  | 'egress_refused'
  | 'internal_error'
  | 'watermark_disabled'
  | 'watermark_registry_error'
  | 'watermark_registry_dropped'
  | 'watermark_internal_error';

export interface CreateLoggerOptions {
  level: LogLevel;
  /** Where lines go: a stream, a file descriptor, or a file path (appended); stderr (fd 2) by default. */
  destination?: DestinationStream | number | string;
  /** `json` (default) or `text`: one readable line per event. */
  format?: 'json' | 'text';
}

/** Creates the logger (JSON on stderr by default). */
export function createLogger(options: CreateLoggerOptions): Logger {
  const dest = options.destination ?? 2;
  let stream: DestinationStream =
    typeof dest === 'number' ? pino.destination({ dest, sync: false }) : typeof dest === 'string' ? pino.destination({ dest, sync: false, append: true, mkdir: true }) : dest;
  if (options.format === 'text') stream = textStream(stream);
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

/** Rewrites each JSON line as `time level event key=value …` (values JSON-encoded when not plain). */
function textStream(inner: DestinationStream): DestinationStream {
  return {
    write(line: string): void {
      let obj: Record<string, unknown>;
      try {
        obj = JSON.parse(line) as Record<string, unknown>;
      } catch {
        inner.write(line);
        return;
      }
      const { time, level, event, msg, name: _name, ...rest } = obj;
      const fields = Object.entries(rest)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `${k}=${typeof v === 'string' && /^[\w./:@-]*$/.test(v) ? v : JSON.stringify(v)}`);
      const head = [String(time ?? ''), String(level ?? '').toUpperCase().padEnd(5), String(event ?? '')].join(' ');
      inner.write(`${head}${typeof msg === 'string' ? ` ${msg}` : ''}${fields.length > 0 ? ` ${fields.join(' ')}` : ''}\n`);
    },
    flush(cb?: (err?: Error) => void): void {
      const f = (inner as { flush?: (cb?: (err?: Error) => void) => void }).flush;
      if (typeof f === 'function') f.call(inner, cb);
      else cb?.();
    },
    ...('flushSync' in inner ? { flushSync: () => (inner as { flushSync(): void }).flushSync() } : {}),
  } as DestinationStream;
}
