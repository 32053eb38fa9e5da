// What ficta writes to stderr as a user runs it: with --log-format json every line is JSON with unique
// keys over a whole run (requests that pass, fail upstream, are blocked, lack the token, hit no route; a
// SIGHUP; the exit report); the token is masked unless asked for; 401 and 404 are logged and counted;
// blocked responses log their real size; never protecting nothing silently.

import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startServe } from '../helpers/cli.ts';
import { runMain } from '../helpers/cli-io.ts';
import { badJsonLines } from '../helpers/json-lines.ts';
import { findLeaks } from '../helpers/leak-oracle.ts';
import { createMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';

const SECRET = 'out-secret-Zm9vYmFyYmF6';
const ACCOUNT = '12345678901234';
const DEAD = 'http://127.0.0.1:1';
let up: MockUpstream;
let home: string;
let envFile: string;

beforeAll(async () => {
  up = await createMockUpstream({ secrets: [SECRET, ACCOUNT] });
  home = mkdtempSync(join(tmpdir(), 'ficta-out-'));
  envFile = join(home, 'app.env');
  writeFileSync(envFile, `APP_SECRET=${SECRET}\nACCOUNT=${ACCOUNT}\nPORT=8080\n`);
});
afterAll(async () => {
  await up.close();
  rmSync(home, { recursive: true, force: true });
});

const post = (url: string, body: unknown): Promise<Response> => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });

describe('ficta serve --log-format json', () => {
  it('writes only JSON lines with unique keys to stderr over a whole run, never the token or a value', async () => {
    const ready = join(home, 'serve.ready');
    const report = join(home, 'serve-report.json');
    const p = await startServe(
      ['--port', '0', '--log-format', 'json', '--token', 'auto', '--env-file', envFile, '--secret-env', 'MY_TOKEN', '--secret-env', 'NOT_SET', '--allow-missing',
        '--anthropic-upstream', up.url, '--openai-upstream', DEAD, '--ready-file', ready, '--report-file', report, '--fail-on-block'],
      { FICTA_HOME: home, MY_TOKEN: 'env-token-value-987654' },
    );
    const urls = Object.fromEntries(readFileSync(ready, 'utf8').trim().split('\n').map((l) => l.split('=', 2) as [string, string]));
    const token = /\/t\/([^/]+)/.exec(urls.FICTA_URL as string)?.[1] as string;
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);

    const ok = await post(`${urls.ANTHROPIC_BASE_URL}/v1/messages`, { model: 'x', messages: [{ role: 'user', content: `say ${SECRET}` }] });
    expect(ok.status).toBe(200);
    await ok.text();
    const dead = await post(`${urls.OPENAI_BASE_URL}/chat/completions`, { model: 'x', messages: [] });
    expect(dead.status).toBe(502);
    await dead.text();
    const noToken = await post(`${p.url}/anthropic/v1/messages`, {});
    expect(noToken.status).toBe(401);
    await noToken.text();
    const wrongToken = await post(`${p.url}/t/${token.slice(0, 31)}x/anthropic/v1/messages`, {});
    expect(wrongToken.status).toBe(401);
    await wrongToken.text();
    const noRoute = await fetch(`${urls.FICTA_URL}/nowhere/${SECRET}`);
    expect(noRoute.status).toBe(404);
    await noRoute.text();
    const blocked = await post(`${urls.ANTHROPIC_BASE_URL}/v1/messages`, `{"model":"x","n":${ACCOUNT},"messages":[]}`);
    expect(blocked.status).toBe(403);
    const blockedBody = await blocked.text();

    p.child.kill('SIGHUP'); // no vault: the re-unlock fails with a warning, the proxy keeps running
    await new Promise((r) => setTimeout(r, 300));
    expect((await fetch(`${p.url}/healthz`)).status).toBe(200);
    p.child.kill('SIGTERM');
    const exit = await p.exited;
    expect(exit.code).toBe(3); // --fail-on-block

    const stderr = p.stderr();
    expect(badJsonLines(stderr)).toEqual([]);
    expect(p.stdout()).toBe(`ficta listening on ${p.url}\n`);
    expect(stderr).not.toContain(token);
    expect(stderr).not.toContain(token.slice(4, 12));
    expect(findLeaks([SECRET, ACCOUNT, 'env-token-value-987654'], Buffer.from(stderr), 'stderr')).toEqual([]);

    const lines = stderr.trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
    const events = lines.map((l) => l.event);
    expect(events).toEqual(expect.arrayContaining(['secrets_skipped', 'secrets_loaded', 'listening', 'base_urls', 'request', 'vault_reunlock_failed', 'blocked', 'shutdown']));
    expect(lines.find((l) => l.event === 'secrets_skipped' && l.reason === 'not-set')).toMatchObject({ secret: 'NOT_SET', name: 'ficta' });
    expect(lines.find((l) => l.event === 'base_urls')?.anthropic).toBe(`${p.url}/t/${token.slice(0, 4)}…/anthropic`);

    const requests = lines.filter((l) => l.event === 'request');
    expect(requests.map((l) => [l.status, l.outcome, l.level])).toEqual([
      [200, 'ok', 'info'],
      [502, 'upstream_unreachable', 'warn'],
      [401, 'unauthorized', 'info'],
      [401, 'unauthorized', 'info'],
      [404, 'not_found', 'info'],
      [403, 'blocked', 'warn'],
    ]);
    expect(requests[1]).toMatchObject({ upstream: DEAD, error: 'ECONNREFUSED' });
    expect(requests[2]?.route).toBe('/anthropic/v1/messages');
    expect(requests[3]?.route).toBe('/anthropic/v1/messages');
    expect(requests[4]?.route).toMatch(/^\/nowhere\/~ficta_[a-z2-7]{20}$/);
    expect(requests[5]).toMatchObject({ blocked: [{ secret: 'ACCOUNT', surface: 'body' }], bytesOut: Buffer.byteLength(blockedBody) });
    expect(requests[5]?.bytesOut).toBeGreaterThan(0);
    expect(requests[0]).toMatchObject({ redactions: { APP_SECRET: 1 }, restores: { APP_SECRET: 1 } });

    const rep = await runCli(['report', report, '--json'], { env: { FICTA_HOME: home } });
    expect(JSON.parse(rep.stdout)).toMatchObject({ requests: 6, blocks: 1, upstreamErrors: 1, byOutcome: { ok: 1, upstream_unreachable: 1, unauthorized: 2, not_found: 1, blocked: 1 } });
    const text = await runCli(['report', report], { env: { FICTA_HOME: home } });
    expect(text.stdout).toContain('requests        6 (unauthorized 2, blocked 1, not_found 1, ok 1, upstream_unreachable 1)');
  });

  it('masks the token in the base-URL line unless --show-token', async () => {
    for (const show of [false, true]) {
      const p = await startServe(['--port', '0', '--token', 'auto', '--env-file', envFile, ...(show ? ['--show-token'] : [])], { FICTA_HOME: home });
      await new Promise((r) => setTimeout(r, 100));
      p.child.kill('SIGTERM');
      await p.exited;
      const line = p.stderr().split('\n').find((l) => l.startsWith('ficta: base URLs:')) as string;
      if (show) expect(line).toMatch(/ANTHROPIC_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/t\/[A-Za-z0-9_-]{32}\/anthropic OPENAI_BASE_URL=.*\/t\/[A-Za-z0-9_-]{32}\/openai\/v1 GOOGLE_GEMINI_BASE_URL=.*\/t\/[A-Za-z0-9_-]{32}\/gemini$/);
      else {
        expect(line).toMatch(/ANTHROPIC_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/t\/[A-Za-z0-9_-]{4}…\/anthropic .*\(token masked: --show-token or --ready-file for the whole URLs\)$/);
        expect(line).toMatch(/ GOOGLE_GEMINI_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/t\/[A-Za-z0-9_-]{4}…\/gemini /);
        expect(line).not.toMatch(/[A-Za-z0-9_-]{32}/);
      }
    }
  });
});

describe('never silently unprotected', () => {
  it('serve, run and an agent command warn on stderr when nothing would be protected', async () => {
    const empty = mkdtempSync(join(home, 'empty-'));
    const off = { FICTA_HOME: empty, FICTA_DETECT: 'off' };
    const p = await startServe(['--port', '0'], off);
    p.child.kill('SIGTERM');
    await p.exited;
    const warning = 'ficta: warning: nothing to protect: no secrets registered (no --env-file, --secret-env or vault entries) and detection is off, so requests pass through unredacted; add secrets, or use --require-secrets to refuse to start\n';
    expect(p.stderr()).toContain(warning);
    const run = await runCli(['run', '-q', process.execPath, '-e', ''], { env: off });
    expect([run.code, run.stderr]).toEqual([0, warning]);
    const agent = await runCli(['claude', '--', '-p', 'x'], { env: { ...off, FICTA_CLAUDE_BIN: process.execPath, FICTA_ANTHROPIC_UPSTREAM: up.url } });
    expect(agent.stderr.startsWith(warning)).toBe(true);
    // Detection on (the default) protects credentials it recognises, and says that is all it protects.
    const detecting = await runCli(['run', '-q', process.execPath, '-e', ''], { env: { FICTA_HOME: empty } });
    expect([detecting.code, detecting.stderr]).toEqual([
      0,
      'ficta: warning: no secrets registered (no --env-file, --secret-env, vault entries or discovered .env): only credentials that detection recognises are redacted; add secrets, or use --require-secrets to refuse to start\n',
    ]);
    // With something to protect, no warning.
    const fine = await runCli(['run', '-q', '--env-file', envFile, process.execPath, '-e', ''], { env: { FICTA_HOME: empty } });
    expect([fine.code, fine.stderr]).toEqual([0, '']);
  });

  it('--require-secrets and secrets.require refuse to start with nothing to protect (serve 1, run 125)', async () => {
    const empty = mkdtempSync(join(home, 'empty-'));
    // Detection is on (the default): it does not count as a registered secret.
    const msg = 'ficta: secrets: no secret registered (none from --env-file, --secret-env, the vault or discovery) and secrets are required (--require-secrets); not starting\n';
    const quiet = { FICTA_HOME: empty, FICTA_LOG_LEVEL: 'silent' };
    // In this process: each fails before it would listen or start anything.
    const serve = await runMain(['serve', '--port', '0', '--require-secrets'], quiet);
    expect([serve.code, serve.stderr.includes(msg)]).toEqual([1, true]);
    const run = await runMain(['run', '--require-secrets', process.execPath, '-e', 'console.log("ran")'], quiet);
    expect([run.code, run.stdout, run.stderr.includes(msg)]).toEqual([125, '', true]);
    writeFileSync(join(empty, 'config.toml'), '[secrets]\nrequire = true\n');
    const fromConfig = await runMain(['serve', '--port', '0'], quiet);
    expect(fromConfig.code).toBe(1);
    const withSecrets = await runCli(['run', '--env-file', envFile, '-q', process.execPath, '-e', ''], { env: { FICTA_HOME: empty } });
    expect(withSecrets.code).toBe(0);
  });

  it('--secret-env NAME with NAME unset is an error unless --allow-missing', async () => {
    const msg = 'ficta: secrets: NOPE_TOKEN is not set in the environment (--secret-env); set it, or pass --allow-missing to start without\n';
    const serve = await runMain(['serve', '--port', '0', '--env-file', envFile, '--secret-env', 'NOPE_TOKEN'], { FICTA_HOME: home, FICTA_LOG_LEVEL: 'silent' });
    expect([serve.code, serve.stderr.includes(msg)]).toEqual([1, true]);
    const run = await runMain(['run', '--env-file', envFile, '--secret-env', 'NOPE_TOKEN', process.execPath, '-e', ''], { FICTA_HOME: home, FICTA_LOG_LEVEL: 'silent' });
    expect([run.code, run.stderr.includes(msg)]).toEqual([125, true]);
    const allowed = await runCli(['run', '-q', '--env-file', envFile, '--secret-env', 'NOPE_TOKEN', '--allow-missing', process.execPath, '-e', ''], { env: { FICTA_HOME: home } });
    expect(allowed.code).toBe(0);
  });
});
