// `ficta status` and the registry behind it: the running proxies of this FICTA_HOME with pid, mode, masked
// URL, uptime and counts; entries of dead processes cleaned; and `ficta doctor` recognising a port held by
// your own ficta while checking the exact command line serve would get.

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli, SOURCES_ENV, startServe } from '../helpers/cli.ts';
import { createMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';

const SECRET = 'status-secret-value-42';
let up: MockUpstream;
let home: string;
let envFile: string;

beforeAll(async () => {
  up = await createMockUpstream({ secrets: [SECRET] });
  home = mkdtempSync(join(tmpdir(), 'ficta-status-'));
  envFile = join(home, 'app.env');
  writeFileSync(envFile, `APP_SECRET=${SECRET}\n`);
});
afterAll(async () => {
  await up.close();
  rmSync(home, { recursive: true, force: true });
});

async function statusJson(): Promise<Array<Record<string, any>>> {
  const r = await runCli(['status', '--json'], { env: { FICTA_HOME: home } });
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
}

describe('ficta status', () => {
  it('lists serve and run proxies (token masked, live counts), removes entries of dead processes', async () => {
    expect(await statusJson()).toEqual([]);
    expect((await runCli(['status'], { env: { FICTA_HOME: home } })).stdout).toBe(`no ficta proxy is running (FICTA_HOME ${home})\n`);
    // A stale entry left by a process that is gone.
    mkdirSync(join(home, 'run'), { recursive: true });
    writeFileSync(join(home, 'run', '999999999.json'), JSON.stringify({ pid: 999999999, mode: 'serve', url: 'http://127.0.0.1:1', host: '127.0.0.1', port: 1, startedAt: 0, version: 'x', requests: 0, blocks: 0, upstreamErrors: 0 }));

    const serve = await startServe(['--port', '0', '--token', 'auto', '--env-file', envFile, '--anthropic-upstream', up.url], { FICTA_HOME: home });
    const child = spawn(BIN, ['run', '-q', '--env-file', envFile, '--', process.execPath, '-e', 'process.stdin.resume(); process.stdin.on("end", () => process.exit(0))'], { cwd: home, env: { PATH: process.env.PATH, ...SOURCES_ENV, HOME: home, FICTA_HOME: home }, stdio: ['pipe', 'pipe', 'pipe'] });
    // Listened for at once: `run` may well be gone before serve is (a listener added later would wait forever).
    const childClosed = new Promise((r) => child.on('close', r));
    try {
      let rows: Array<Record<string, any>> = [];
      for (let i = 0; i < 100 && rows.length < 2; i++) {
        rows = await statusJson();
        if (rows.length < 2) await new Promise((r) => setTimeout(r, 100));
      }
      expect(rows.map((r) => r.mode)).toEqual(['serve', 'run']);
      const s = rows[0] as Record<string, any>;
      expect(s.pid).toBe(serve.child.pid);
      expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/t\/[A-Za-z0-9_-]{4}…$/);
      expect(rows[1]?.url).toMatch(/\/t\/[A-Za-z0-9_-]{4}…$/);
      expect(readdirSync(join(home, 'run'))).not.toContain('999999999.json');

      // Requests show up within about a second (the entry is refreshed when counts change).
      const unauthorized = await fetch(`${serve.url}/anthropic/v1/messages`, { method: 'POST', body: '{}' });
      await unauthorized.text();
      let requests = 0;
      for (let i = 0; i < 50 && requests < 1; i++) {
        requests = (await statusJson()).find((r) => r.mode === 'serve')?.requests ?? 0;
        if (requests < 1) await new Promise((r) => setTimeout(r, 100));
      }
      expect(requests).toBe(1);
      const table = await runCli(['status'], { env: { FICTA_HOME: home } });
      expect(table.stdout.split('\n')[0]).toMatch(/^PID +MODE +URL +UPTIME +REQUESTS +BLOCKED +UPSTREAM ERRORS$/);
      expect(table.stdout).toMatch(new RegExp(`^${serve.child.pid} +serve +http://127\\.0\\.0\\.1:\\d+/t/\\S{4}… +\\d+s +1 +0 +0$`, 'm'));
      expect(table.stdout).not.toMatch(/\/t\/[A-Za-z0-9_-]{5,}/);
    } finally {
      child.stdin.end();
      serve.child.kill('SIGTERM');
      await serve.exited;
      await childClosed;
    }
    expect(await statusJson()).toEqual([]);
  });
});

describe('ficta doctor with serve options', () => {
  it('checks the exact command line: its secrets, its port (held by your own ficta: a warning naming it)', async () => {
    const serve = await startServe(['--port', '0', '--env-file', envFile], { FICTA_HOME: home });
    try {
      const port = new URL(serve.url).port;
      const upstreams = ['--anthropic-upstream', 'http://127.0.0.1:9', '--openai-upstream', 'http://localhost:9'];
      const r = await runCli(['doctor', '--port', port, '--env-file', envFile, ...upstreams, '--json'], { env: { FICTA_HOME: home } });
      const out = JSON.parse(r.stdout);
      expect(out.checks).toEqual(
        expect.arrayContaining([
          { level: 'ok', area: 'secrets', message: `${envFile}: 1 secret(s)` },
          { level: 'ok', area: 'secrets', message: '1 secret(s) would be protected' },
          { level: 'warn', area: 'port', message: `127.0.0.1:${port} is held by your running ficta (pid ${serve.child.pid}, serve); stop it first, or use another --port` },
        ]),
      );
      expect([r.code, out.ok]).toEqual([0, true]);
      const missing = await runCli(['doctor', '--port', '0', '--env-file', envFile, '--secret-env', 'NOT_SET_HERE', ...upstreams], { env: { FICTA_HOME: home } });
      expect(missing.code).toBe(1);
      expect(missing.stdout).toMatch(/^fail +secrets +--secret-env NOT_SET_HERE: not set in the environment; serve would refuse to start$/m);
      const nothing = await runCli(['doctor', '--port', '0', '--detect', 'off', ...upstreams], { env: { FICTA_HOME: mkdtempSync(join(home, 'empty-')) } });
      expect(nothing.code).toBe(1);
      expect(nothing.stdout).toMatch(/^fail +secrets +nothing would be protected/m);
      expect(r.stdout + missing.stdout).not.toContain(SECRET);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  });
});
