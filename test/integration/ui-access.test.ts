// The dashboard's own door, against a real proxy on loopback: without the session cookie every /_ficta/
// path answers 401 and shows nothing; a foreign Host or Origin gets 403 (DNS rebinding, cross-site pages);
// a POST without the CSRF token gets 403; the one-time link opens once; a link needs the proxy's key; and
// `ficta ui --print` gets a working link from a running `ficta serve` through its 0600 key file.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli, SOURCES_ENV } from '../helpers/cli.ts';
import { startFicta, type TestFicta } from '../helpers/ficta-server.ts';
import { createMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';

const SECRET = 'ui-access-secret-value-0001';
let up: MockUpstream;
let proxy: TestFicta;
let port: number;

beforeAll(async () => {
  up = await createMockUpstream({ secrets: [SECRET] });
  proxy = await startFicta({ upstream: up.url, secrets: { ACCESS_TOKEN: SECRET } });
  port = Number(new URL(proxy.url).port);
});
afterAll(async () => {
  await proxy.close();
  await up.close();
});

/** A raw request, so Host and Origin are exactly what the test says (fetch would set its own). */
function raw(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: { host: `127.0.0.1:${port}`, ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function login(): Promise<{ cookie: string; csrf: string }> {
  const link = await raw('POST', '/_ficta/link', { 'x-ficta-ui-key': proxy.ficta.dashboard!.linkKey });
  expect(link.status).toBe(200);
  const res = await raw('GET', JSON.parse(link.text).path);
  expect(res.status).toBe(200);
  const cookie = String(res.headers['set-cookie']).split(';')[0] as string;
  const page = await raw('GET', '/_ficta/withheld', { cookie });
  // The CSRF token reaches a page only with the session (its meta tag and forms).
  const csrf = /<meta name="ficta-csrf" content="([^"]+)"/.exec(page.text)?.[1] ?? '';
  return { cookie, csrf };
}

const PATHS = ['/_ficta', '/_ficta/', '/_ficta/secrets', '/_ficta/withheld', '/_ficta/runs', '/_ficta/health', '/_ficta/benchmarks', '/_ficta/benchmarks/report', '/_ficta/events', '/_ficta/api/requests', '/_ficta/api/secrets', '/_ficta/api/withheld', '/_ficta/api/health', '/_ficta/api/run', '/_ficta/api/benchmarks', '/_ficta/assets/app.js', '/_ficta/assets/app.css', '/_ficta/no-such-page', '/_ficta/login', '/_ficta/login?code=guess'];

describe('the dashboard door', () => {
  it('answers 401 on every /_ficta/ path without the session cookie, and shows nothing', async () => {
    await fetch(`${proxy.url}/anthropic/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: `hi ${SECRET}` }] }) }).then((r) => r.text());
    for (const path of PATHS) {
      const res = await raw('GET', path);
      expect(res.status, path).toBe(401);
      expect(res.text, path).not.toContain('ACCESS_TOKEN');
      expect(res.text, path).not.toContain('anthropic');
      expect(res.headers['set-cookie'], path).toBeUndefined();
    }
    for (const path of ['/_ficta/withheld/allow', '/_ficta/withheld/undo', '/_ficta/link']) expect((await raw('POST', path, { origin: `http://127.0.0.1:${port}`, 'content-type': 'application/x-www-form-urlencoded' }, 'x=1')).status, path).toBe(401);
    // A made-up cookie is no better than none.
    expect((await raw('GET', '/_ficta/', { cookie: `ficta_ui_${port}=made-up` })).status).toBe(401);
  });

  it('answers 403 to a foreign Host or Origin, with or without a session', async () => {
    const { cookie } = await login();
    expect((await raw('GET', '/_ficta/', { cookie })).status).toBe(200);
    for (const host of [`evil.example:${port}`, `127.0.0.1.evil.example:${port}`, 'localhost', `127.0.0.1:${port + 1}`]) {
      expect((await raw('GET', '/_ficta/', { cookie, host })).status, host).toBe(403);
      expect((await raw('GET', '/_ficta/api/secrets', { host })).status, host).toBe(403);
    }
    for (const origin of ['http://evil.example', `http://evil.example:${port}`, 'null', `https://127.0.0.1:${port}`]) {
      expect((await raw('GET', '/_ficta/api/requests', { cookie, origin })).status, origin).toBe(403);
    }
    expect((await raw('GET', '/_ficta/api/requests', { cookie, 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    // localhost and the address the connection reached are this proxy's own names.
    expect((await raw('GET', '/_ficta/api/requests', { cookie, host: `localhost:${port}`, origin: `http://localhost:${port}` })).status).toBe(200);
  });

  it('answers 403 to a POST without the CSRF token, or with a wrong one, and changes nothing', async () => {
    const { cookie, csrf } = await login();
    const origin = `http://127.0.0.1:${port}`;
    const form = { cookie, origin, 'content-type': 'application/x-www-form-urlencoded' };
    expect((await raw('POST', '/_ficta/withheld/undo', form, 'id=1')).status).toBe(403);
    expect((await raw('POST', '/_ficta/withheld/allow', form, 'secret=ACCESS_TOKEN&host=evil.example')).status).toBe(403);
    expect((await raw('POST', '/_ficta/withheld/allow', form, `secret=ACCESS_TOKEN&host=evil.example&csrf=${'x'.repeat(43)}`)).status).toBe(403);
    expect((await raw('POST', '/_ficta/withheld/allow', { ...form, 'x-ficta-csrf': 'wrong' }, 'secret=ACCESS_TOKEN&host=evil.example')).status).toBe(403);
    // No Origin and no fetch metadata: refused before the token is even read.
    expect((await raw('POST', '/_ficta/withheld/allow', { cookie, 'content-type': 'application/x-www-form-urlencoded' }, `secret=ACCESS_TOKEN&host=evil.example&csrf=${csrf}`)).status).toBe(403);
    // With the token the request is let through, and refused for what it asks (nothing was withheld for that host).
    expect(csrf).not.toBe('');
    const ok = await raw('POST', '/_ficta/withheld/allow', { ...form, accept: 'application/json' }, `secret=ACCESS_TOKEN&host=evil.example&csrf=${encodeURIComponent(csrf)}`);
    expect(ok.status).toBe(400);
    expect(JSON.parse(ok.text)).toEqual({ error: 'FICTA_UI_NOT_WITHHELD' });
    expect(proxy.ficta.dashboard).toBeDefined();
  });

  it('opens the one-time link once; a link needs the proxy key', async () => {
    expect((await raw('POST', '/_ficta/link')).status).toBe(401);
    expect((await raw('POST', '/_ficta/link', { 'x-ficta-ui-key': 'not-the-key' })).status).toBe(401);
    const link = JSON.parse((await raw('POST', '/_ficta/link', { 'x-ficta-ui-key': proxy.ficta.dashboard!.linkKey })).text).path as string;
    const first = await raw('GET', link);
    expect(first.status).toBe(200);
    expect(String(first.headers['set-cookie'])).toMatch(new RegExp(`^ficta_ui_${port}=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=/_ficta; HttpOnly; SameSite=Strict$`));
    const again = await raw('GET', link);
    expect(again.status).toBe(401);
    expect(again.headers['set-cookie']).toBeUndefined();
  });

  it('sets a strict CSP, no framing and no caching on every page', async () => {
    const { cookie } = await login();
    for (const path of ['/_ficta/', '/_ficta/secrets', '/_ficta/api/health', '/_ficta/assets/app.js']) {
      const res = await raw('GET', path, { cookie });
      expect(res.status, path).toBe(200);
      expect(res.headers['content-security-policy'], path).toBe("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-src 'self'; frame-ancestors 'none'");
      expect(res.headers['x-frame-options'], path).toBe('DENY');
      expect(res.headers['cache-control'], path).toMatch(/no-store|no-cache/);
      // Pages: no inline script or handler, nothing from another origin.
      if (res.headers['content-type']?.includes('html')) expect(res.text, path).not.toMatch(/<script>|<script [^>]*>[^<]|\son[a-z]+=|(src|href)="https?:/i);
    }
  });
});

describe('ficta ui', () => {
  const home = mkdtempSync(join(tmpdir(), 'ficta-ui-cli-'));
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('--print prints one working one-time URL for the running serve, read through its 0600 key file', async () => {
    const env = { PATH: process.env.PATH, HOME: home, FICTA_HOME: home, ...SOURCES_ENV };
    const child = spawn(BIN, ['serve', '--port', '0', '--no-discover', '--log-level', 'warn'], { cwd: home, env, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d) => {
          out += d;
          const m = /ficta listening on (\S+)/.exec(out);
          if (m !== null) resolve(m[1] as string);
        });
        child.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
      });
      expect(statSync(join(home, 'run', `${child.pid}.ui-key`)).mode & 0o777).toBe(0o600);
      const printed = await runCli(['ui', '--print'], { env });
      expect(printed.code, printed.stderr).toBe(0);
      const lines = printed.stdout.split('\n').filter(Boolean);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^${url}/_ficta/login\\?code=[A-Za-z0-9_-]{43}$`));
      const first = await fetch(lines[0] as string, { redirect: 'manual' });
      expect(first.status).toBe(200);
      expect(first.headers.get('set-cookie')).toContain('HttpOnly; SameSite=Strict');
      expect((await fetch(lines[0] as string)).status).toBe(401);
      // --pid of a process that is not a ficta proxy: a clear error, nothing printed on stdout.
      const wrong = await runCli(['ui', '--pid', '1', '--print'], { env });
      expect(wrong.code).toBe(1);
      expect(wrong.stdout).toBe('');
      expect(wrong.stderr).toContain('no running ficta proxy with pid 1');
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('close', r));
    }
    const none = await runCli(['ui', '--print'], { env });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no ficta proxy is running');
  });

  it('inside ficta run, the wrapped command itself opens its proxy\'s dashboard and finds its run on the Runs page', async () => {
    const env = { PATH: process.env.PATH, HOME: home, FICTA_HOME: home, FICTA_BIN_UNDER_TEST: BIN, ...SOURCES_ENV };
    const script = join(home, 'look.mjs');
    writeFileSync(
      script,
      `import { execFileSync } from 'node:child_process';
const url = execFileSync(process.env.FICTA_BIN_UNDER_TEST, ['ui', '--print'], { encoding: 'utf8' }).trim();
const login = await fetch(url);
const cookie = login.headers.get('set-cookie').split(';')[0];
const base = new URL(url).origin;
const run = await (await fetch(base + '/_ficta/api/run', { headers: { cookie } })).json();
const page = await (await fetch(base + '/_ficta/runs', { headers: { cookie } })).text();
console.log(JSON.stringify({ mode: run.run.mode, command: run.run.command, shown: page.includes('<code>ficta run</code>') && page.includes('<code>node</code>') }));
`,
    );
    const r = await runCli(['run', '--no-discover', '--quiet', '--', 'node', script], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim())).toEqual({ mode: 'run', command: 'node', shown: true });
  });
});
