// How an error leaves the CLI: one line `ficta: <area>: <what>` on stderr (or one JSON line with
// --log-format json) and the exit code for its error code.

import type { Writable } from 'node:stream';
import { isFictaError } from '../errors.ts';
import { flushLogs } from '../log/batched-file.ts';
import { EXIT_ERROR, EXIT_INTERRUPTED, EXIT_USAGE } from './exit-codes.ts';

/** Prints one line for an error and returns its exit code. */
export function reportError(error: unknown, stderr: Writable, json = false): number {
  const code = isFictaError(error) ? error.code : 'FICTA_INTERNAL';
  const message = isFictaError(error) ? oneLine(error.message) : `internal: ${oneLine(error instanceof Error ? error.message : String(error))}`;
  flushLogs(); // the log lines before the error, when the log file is this stderr
  if (json) stderr.write(`${JSON.stringify({ level: 'error', time: new Date().toISOString(), name: 'ficta', event: 'error', code, msg: message })}\n`);
  else stderr.write(`ficta: ${message}\n`);
  return exitCodeOf(code);
}

/** The exit code for an error code. */
export function exitCodeOf(code: string): number {
  if (code === 'FICTA_USAGE') return EXIT_USAGE;
  if (code === 'FICTA_INTERRUPTED') return EXIT_INTERRUPTED;
  return EXIT_ERROR;
}

function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, ' ').trim();
}
