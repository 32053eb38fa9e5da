// Runs after every test file: no log line written by any proxy the file started may contain any form
// of any secret value the file registered (raw, JSON-escaped, \u-escaped, percent-encoded), nor its
// placeholder next to it (no placeholder maps in logs).

import { afterAll, expect } from 'vitest';
import { ALL_LOG_LINES, ALL_SECRET_VALUES } from '../helpers/ficta-server.ts';
import { findLeaks } from '../helpers/leak-oracle.ts';

afterAll(() => {
  if (ALL_LOG_LINES.length === 0 || ALL_SECRET_VALUES.size === 0) return;
  const leaks = findLeaks([...ALL_SECRET_VALUES], Buffer.from(ALL_LOG_LINES.join('\n'), 'utf8'), 'logs');
  expect(leaks, `secret value found in ${leaks.length} log form(s)`).toEqual([]);
});
