// ficta's own messages on stderr besides the log (warnings, the base URLs, run summaries): plain
// `ficta: …` lines, or — with --log-format json — JSON lines shaped like the log's, so that every line
// ficta writes to stderr parses.

import type { Writable } from 'node:stream';
import { flushLogs } from '../log/batched-file.ts';

/** Keys every JSON line starts with; a field may not repeat them. */
const RESERVED = new Set(['level', 'time', 'name', 'event', 'msg']);

export interface Notices {
  readonly json: boolean;
  /** `ficta: warning: <msg>`, or a JSON line at level warn. */
  warn(event: string, msg: string, fields?: Record<string, unknown>): void;
  /** `ficta: <msg>`, or a JSON line at level info. */
  info(event: string, msg: string, fields?: Record<string, unknown>): void;
  /** Several plain lines as one block (JSON mode: one JSON line with the fields instead). */
  block(event: string, level: 'info' | 'warn', lines: readonly string[], fields: Record<string, unknown>): void;
}

/** Notices written to `stderr`. */
export function createNotices(out: Writable, json: boolean): Notices {
  // Log lines gathered for a file that may be this same stderr go first, so the two keep their order.
  const stderr = { write: (text: string): void => (flushLogs(), void out.write(text)) };
  const jsonLine = (level: string, event: string, msg: string | undefined, fields: Record<string, unknown>): void => {
    const line: Record<string, unknown> = { level, time: new Date().toISOString(), name: 'ficta', event };
    for (const [k, v] of Object.entries(fields)) if (!RESERVED.has(k) && v !== undefined) line[k] = v;
    if (msg !== undefined) line.msg = msg;
    stderr.write(`${JSON.stringify(line)}\n`);
  };
  return {
    json,
    warn(event, msg, fields = {}) {
      if (json) jsonLine('warn', event, msg, fields);
      else stderr.write(`ficta: warning: ${msg}\n`);
    },
    info(event, msg, fields = {}) {
      if (json) jsonLine('info', event, msg, fields);
      else stderr.write(`ficta: ${msg}\n`);
    },
    block(event, level, lines, fields) {
      if (json) jsonLine(level, event, undefined, fields);
      else stderr.write(lines.map((l) => `${l}\n`).join(''));
    },
  };
}
