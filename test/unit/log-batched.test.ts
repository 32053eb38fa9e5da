// Log lines to a regular file are written in batches: they reach the file within the batch interval, on
// flush, before a notice written to the same file, and when the process exits without a flush.

import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createNotices } from '../../src/cli/notice.ts';
import { createLogger, logEvent } from '../../src/log/logger.ts';

const dir = mkdtempSync(join(tmpdir(), 'ficta-log-batch-'));
const events = (path: string): string[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => (l.startsWith('{') ? (JSON.parse(l) as { event: string }).event : l));

describe('batched log file', () => {
  it('gathers lines and writes them within the batch interval', async () => {
    const path = join(dir, 'interval.log');
    const logger = createLogger({ level: 'info', format: 'json', destination: path });
    logEvent(logger, 'info', 'listening', { url: 'http://127.0.0.1:1' });
    expect(readFileSync(path, 'utf8')).toBe('');
    await new Promise((r) => setTimeout(r, 250));
    expect(events(path)).toEqual(['listening']);
  });

  it('writes gathered lines before a notice written to the same file, so they keep their order', () => {
    const path = join(dir, 'stderr.log');
    const fd = openSync(path, 'a');
    const logger = createLogger({ level: 'info', format: 'json', destination: fd });
    const stderr = { write: (s: string): boolean => (writeSync(fd, s), true) };
    const notices = createNotices(stderr as never, false);
    logEvent(logger, 'info', 'secrets_loaded', { count: 1 });
    notices.warn('test', 'a notice');
    logEvent(logger, 'info', 'shutdown');
    logger.flush();
    expect(events(path)).toEqual(['secrets_loaded', 'ficta: warning: a notice', 'shutdown']);
    closeSync(fd);
  });

  it('drops the lines of a file it cannot write instead of failing the caller', () => {
    const path = join(dir, 'read-only.log');
    writeFileSync(path, '');
    const fd = openSync(path, 'r');
    const logger = createLogger({ level: 'info', format: 'json', destination: fd });
    expect(() => {
      for (let i = 0; i < 200; i++) logEvent(logger, 'info', 'request', { i });
      logger.flush();
    }).not.toThrow();
    expect(readFileSync(path, 'utf8')).toBe('');
    closeSync(fd);
  });

  it('writes gathered lines when the process exits without flushing', () => {
    const path = join(dir, 'exit.log');
    const script = `import { createLogger, logEvent } from ${JSON.stringify(join(import.meta.dirname, '../../src/log/logger.ts'))};
      const logger = createLogger({ level: 'info', format: 'json', destination: ${JSON.stringify(path)} });
      for (let i = 0; i < 3; i++) logEvent(logger, 'info', 'request', { i });
      process.exit(0);`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(events(path)).toEqual(['request', 'request', 'request']);
  });
});
