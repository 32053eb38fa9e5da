// The log's shape: unique keys in every JSON line (a secret's name is `secret`, not a second `name`), the
// readable one-line-per-request format with colour only on a terminal, the outcome names, and the check
// that finds duplicate keys at all.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, logEvent, resolveLogFormat } from '../../src/log/logger.ts';
import { formatHumanLine } from '../../src/log/human.ts';
import { GATEWAY_OUTCOMES, OUTCOMES, outcomeOf } from '../../src/log/outcomes.ts';
import { FictaError } from '../../src/errors.ts';
import { createMockUpstream } from '../helpers/mock-upstream.ts';
import { startFicta } from '../helpers/ficta-server.ts';
import { badJsonLines, duplicateKeys } from '../helpers/json-lines.ts';
import { testSet } from '../helpers/secret-set.ts';
import { logRefusedRequest, tunnelRoute, writeRequestLog, type RequestLog } from '../../src/server/request-log.ts';
import { createRunStats } from '../../src/server/stats.ts';
import { createRestoreStats } from '../../src/restore/restore-bytes.ts';
import { countWithheld, createWithheldCounts } from '../../src/sinks/withheld.ts';
import { createNotices } from '../../src/cli/notice.ts';
import { formatReportLines } from '../../src/cli/report-format.ts';
import { printWithheld } from '../../src/cli/wrap.ts';

const REQUEST = {
  level: 'info', time: '2026-11-23T10:11:12.345Z', name: 'ficta', event: 'request', id: 'a-1', method: 'POST', route: '/v1/messages', status: 200, outcome: 'ok',
  bytesIn: 10, bytesUp: 10, bytesOut: 20, ms: 41.7, redactions: { GITHUB_TOKEN: 2 }, restores: { GITHUB_TOKEN: 1 }, restoreMisses: 0,
};

describe('JSON log lines', () => {
  it('finds a repeated key (so the checks below can fail)', () => {
    expect(duplicateKeys('{"name":"ficta","a":{"name":1,"b":[{"x":1,"x":2}]},"name":"DEBUG"}')).toEqual(['x', 'name']);
    expect(duplicateKeys('{"a":"{\\"a\\":1}","b":["a","a"]}')).toEqual([]);
    expect(badJsonLines('{"a":1}\nplain text\n{"a":1,"a":2}\n')).toEqual(['plain text', '{"a":1,"a":2}']);
  });

  it('names a refused secret `secret`, so no line repeats `name`', async () => {
    const up = await createMockUpstream();
    const proxy = await startFicta({ upstream: up.url, secrets: { SHORT_ONE: 'abc', LONG_ENOUGH: 'long-enough-value-123' } });
    try {
      const skipped = proxy.logs.map((l) => JSON.parse(l)).find((l) => l.event === 'secrets_skipped');
      expect(skipped).toMatchObject({ name: 'ficta', secret: 'SHORT_ONE', reason: 'too-short' });
      expect(badJsonLines(proxy.logs.join('\n'))).toEqual([]);
    } finally {
      await proxy.close();
      await up.close();
    }
  });
});

describe('readable log format', () => {
  it('writes one line per request: time, method, route, status, ms, redacted and restored counts', () => {
    expect(formatHumanLine(REQUEST, false)).toBe('10:11:12  POST  /v1/messages  200  42 ms  redacted 2 (GITHUB_TOKEN 2)  restored 1 (GITHUB_TOKEN 1)\n');
    const blocked = { ...REQUEST, status: 403, outcome: 'blocked', redactions: {}, restores: {}, blocked: [{ secret: 'DB_URL', surface: 'body' }] };
    expect(formatHumanLine(blocked, false)).toBe('10:11:12  POST  /v1/messages  403  blocked  42 ms  blocked: DB_URL in body\n');
    const dead = { ...REQUEST, status: 502, outcome: 'upstream_unreachable', redactions: {}, restores: {}, upstream: 'http://127.0.0.1:9', error: 'ECONNREFUSED' };
    expect(formatHumanLine(dead, false)).toBe('10:11:12  POST  /v1/messages  502  upstream_unreachable  42 ms  http://127.0.0.1:9  ECONNREFUSED\n');
    expect(formatHumanLine({ level: 'warn', time: REQUEST.time, name: 'ficta', event: 'secrets_skipped', secret: 'PORT', msg: 'secret PORT refused' }, false)).toBe('10:11:12  WARN  secrets_skipped  secret PORT refused  secret=PORT\n');
  });

  it('colours only when asked (a terminal), and never changes the words', () => {
    const coloured = formatHumanLine(REQUEST, true);
    expect(coloured).toContain('\u001b[32m200\u001b[0m');
    expect(coloured.replace(/\u001b\[\d+m/g, '')).toBe(formatHumanLine(REQUEST, false));
    expect(formatHumanLine(REQUEST, false)).not.toContain('\u001b');
  });

  it('auto is text on a terminal and JSON elsewhere; NO_COLOR turns colour off', () => {
    expect(resolveLogFormat('auto', true)).toBe('text');
    expect(resolveLogFormat('auto', false)).toBe('json');
    expect(resolveLogFormat('json', true)).toBe('json');
    expect(resolveLogFormat(undefined, true)).toBe('json');
    const lines: string[] = [];
    const sink = new Writable({ write(c, _e, cb) { lines.push(String(c)); cb(); } });
    const tty = createLogger({ level: 'info', format: 'auto', destination: sink as never, isTty: true, env: {} });
    logEvent(tty, 'info', 'request', { method: 'GET', route: '/v1/models', status: 200, outcome: 'ok', ms: 1 });
    const plain = createLogger({ level: 'info', format: 'auto', destination: sink as never, isTty: true, env: { NO_COLOR: '1' } });
    logEvent(plain, 'info', 'request', { method: 'GET', route: '/v1/models', status: 200, outcome: 'ok', ms: 1 });
    const file = createLogger({ level: 'info', format: 'auto', destination: sink as never, isTty: false, env: {} });
    logEvent(file, 'info', 'request', { method: 'GET', route: '/v1/models', status: 200, outcome: 'ok', ms: 1 });
    expect(lines[0]).toMatch(/\u001b\[1mGET\u001b\[0m {2}\/v1\/models {2}\u001b\[32m200/);
    expect(lines[1]).toMatch(/^\d\d:\d\d:\d\d {2}GET {2}\/v1\/models {2}200 {2}1 ms\n$/);
    expect(JSON.parse(lines[2] as string)).toMatchObject({ event: 'request', route: '/v1/models' });
  });
});

describe('outcomes', () => {
  it('are lowercase names, one per way a request ends', () => {
    for (const o of OUTCOMES) expect(o).toMatch(/^[a-z_]+$/);
    expect(outcomeOf(new FictaError('FICTA_LEAK_BLOCKED', 'x'))).toBe('blocked');
    expect(outcomeOf(new FictaError('FICTA_UPSTREAM_UNREACHABLE', 'x'))).toBe('upstream_unreachable');
    expect(outcomeOf(new FictaError('FICTA_UPSTREAM_TIMEOUT', 'x'))).toBe('upstream_timeout');
    expect(outcomeOf(new FictaError('FICTA_VAULT_UNAVAILABLE', 'x'))).toBe('vault_unavailable');
    expect(outcomeOf(new FictaError('FICTA_BODY_TOO_LARGE', 'x'))).toBe('body_too_large');
    expect(outcomeOf(new FictaError('FICTA_SOMETHING_NEW', 'x', { status: 400 }))).toBe('bad_request');
    expect(outcomeOf(new Error('bug'))).toBe('internal_error');
  });

  it('are each documented in the README outcome table (the gateway outcomes in its docs page)', () => {
    const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
    const table = readme.slice(readme.indexOf('**Outcomes**'), readme.indexOf('## Agents, scripts and CI'));
    const gatewayDocs = ['docs/gateway.md', 'docs/_incoming/gateway-engine.md']
      .map((p) => join(import.meta.dirname, '../..', p))
      .filter((p) => existsSync(p))
      .map((p) => readFileSync(p, 'utf8'))
      .join('\n');
    for (const o of OUTCOMES) expect(GATEWAY_OUTCOMES.has(o) ? gatewayDocs : table, o).toContain(`\`${o}\``);
  });
});

describe('refused CONNECT tunnels', () => {
  const set = testSet({ DB_URL: 'postgres-secret-host-42', OTHER: 'other-secret-value-77' });

  it('log the target as host:port, or withheld naming the secrets it holds', () => {
    expect(tunnelRoute('play.googleapis.com:443', set)).toEqual({ route: 'play.googleapis.com:443', blocked: [] });
    expect(tunnelRoute('postgres-secret-host-42.example:443', set)).toEqual({ route: 'withheld', blocked: [{ secret: 'DB_URL', surface: 'connect_target' }] });
    expect(tunnelRoute('play.googleapis.com:443', undefined)).toEqual({ route: 'withheld', blocked: [] });
  });

  it('check the whole target before cutting it, so no prefix of a value straddling the cut is logged', () => {
    const target = `${'a'.repeat(250)}postgres-secret-host-42.example:443`;
    expect(tunnelRoute(target, set)).toEqual({ route: 'withheld', blocked: [{ secret: 'DB_URL', surface: 'connect_target' }] });
    const long = `${'b'.repeat(300)}:443`;
    expect(tunnelRoute(long, set).route).toBe(`${'b'.repeat(255)}…`);
  });

  it('are one warn request line with outcome egress_refused, counted in the run report', () => {
    const lines: string[] = [];
    const sink = new Writable({ write(c, _e, cb) { lines.push(String(c)); cb(); } });
    const logger = createLogger({ level: 'warn', format: 'json', destination: sink as never });
    const stats = createRunStats();
    logRefusedRequest({ logger, stats }, { id: 't-1', method: 'CONNECT', route: 'withheld', status: 403, outcome: 'egress_refused', bytesOut: 0, blocked: [{ secret: 'DB_URL', surface: 'connect_target' }] });
    logger.flush();
    expect(badJsonLines(lines.join(''))).toEqual([]);
    expect(JSON.parse(lines.join(''))).toMatchObject({ level: 'warn', event: 'request', method: 'CONNECT', route: 'withheld', status: 403, outcome: 'egress_refused', blocked: [{ secret: 'DB_URL', surface: 'connect_target' }] });
    expect(stats.snapshot()).toMatchObject({ requests: 1, byOutcome: { egress_refused: 1 }, blocks: 1, blockedBySecret: { DB_URL: 1 } });
  });
});

describe('restores withheld from tool calls', () => {
  const set = testSet({ GITHUB_TOKEN: 'ghp_withheld-log-value-0001' });

  it('ride on the request line by secret name and reason, and add up in the run report and summary', () => {
    const lines: string[] = [];
    const sink = new Writable({ write(c, _e, cb) { lines.push(String(c)); cb(); } });
    const logger = createLogger({ level: 'info', format: 'json', destination: sink as never });
    const stats = createRunStats();
    const log: RequestLog = {
      id: 'w-1', method: 'POST', route: '/v1/messages', site: 'response', provider: 'anthropic', adapter: 'anthropic-messages',
      bytesIn: 1, bytesUp: 1, bytesOut: 1, redactions: new Map(), restore: createRestoreStats(), started: performance.now(), outcome: 'ok', blocked: [], withheld: createWithheldCounts(),
    };
    countWithheld(log.withheld, 0, 'network:evil.example');
    countWithheld(log.withheld, 0, 'network:evil.example');
    writeRequestLog({ logger, stats }, log, set);
    writeRequestLog({ logger, stats }, { ...log, id: 'w-2', withheld: createWithheldCounts() }, set);
    logger.flush();
    expect(badJsonLines(lines.join(''))).toEqual([]);
    const [first, second] = lines.join('').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(first).toMatchObject({ event: 'request', id: 'w-1', withheld: { GITHUB_TOKEN: { 'network:evil.example': 2 } } });
    expect(second).not.toHaveProperty('withheld');
    const report = stats.snapshot();
    expect(report).toMatchObject({ requests: 2, withheld: 2, withheldBySecret: { GITHUB_TOKEN: { 'network:evil.example': 2 } } });
    expect(formatReportLines(report)).toContain('withheld        2 (GITHUB_TOKEN network:evil.example 2)');
    expect(JSON.stringify(lines)).not.toContain('ghp_withheld-log-value-0001');
  });

  it('are named in one notice after a wrapped command: a plain warning, or one JSON line with unique keys', () => {
    const report = { ...createRunStats().snapshot(), withheld: 1, withheldBySecret: { GITHUB_TOKEN: { 'network:evil.example': 1 } } };
    const text: string[] = [];
    const json: string[] = [];
    printWithheld(createNotices(new Writable({ write(c, _e, cb) { text.push(String(c)); cb(); } }), false), report);
    printWithheld(createNotices(new Writable({ write(c, _e, cb) { json.push(String(c)); cb(); } }), true), report);
    printWithheld(createNotices(new Writable({ write(c, _e, cb) { text.push(String(c)); cb(); } }), false), { ...report, withheld: 0, withheldBySecret: {} });
    expect(text).toEqual(['ficta: warning: 1 restore(s) withheld from tool calls: GITHUB_TOKEN network:evil.example; to allow a host: --allow-host evil.example, or per secret: ficta vault hosts GITHUB_TOKEN --add evil.example ([secrets.hosts] for env-file secrets)\n']);
    expect(badJsonLines(json.join(''))).toEqual([]);
    expect(JSON.parse(json.join(''))).toMatchObject({ level: 'warn', event: 'withheld', withheld: 1, withheldBySecret: { GITHUB_TOKEN: { 'network:evil.example': 1 } } });
  });
});
