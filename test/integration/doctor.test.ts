// `ficta doctor` as a user runs it: every check named, exit 1 on a failure, never a value printed.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

const SECRET = 'doctor-secret-value-0123';
const FAKE = join(import.meta.dirname, '../helpers/fake-agent.mjs');
let home: string;
let busy: Server;
let busyPort: number;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'ficta-doctor-'));
  writeFileSync(join(home, 'app.env'), `API_TOKEN=${SECRET}\nPORT=80\n`);
  busy = createServer();
  await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
  busyPort = (busy.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((r) => busy.close(r));
  rmSync(home, { recursive: true, force: true });
});

describe('ficta doctor', () => {
  it('reports config, secrets, upstreams, port and the routing an agent would get, without values', async () => {
    writeFileSync(join(home, 'config.toml'), `port = 0\n[secrets]\nenvFiles = ["${join(home, 'app.env')}"]\n[upstreams]\nanthropic = "http://127.0.0.1:9"\nopenai = "http://localhost:9"\n`);
    const r = await runCli(['doctor', 'claude', 'codex'], { env: { FICTA_HOME: home, FICTA_CLAUDE_BIN: FAKE, FICTA_CODEX_BIN: FAKE } });
    expect(r.stdout).toMatch(/^ok\s+config\s+valid/m);
    expect(r.stdout).toMatch(/ok\s+secrets\s+.*app\.env: 1 secret\(s\)/);
    expect(r.stdout).toMatch(/warn\s+secrets\s+.*refused \(too short or empty\): PORT/);
    expect(r.stdout).toMatch(/ok\s+upstream\s+anthropic: http:\/\/127\.0\.0\.1:9 resolves/);
    expect(r.stdout).toMatch(/ok\s+claude\s+.*ANTHROPIC_BASE_URL=http:\/\/127\.0\.0\.1:<port>\/t\/<per-run token>\/anthropic CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1/);
    expect(r.stdout).toMatch(/ok\s+codex\s+.*model_providers\.ficta\.base_url="http:\/\/127\.0\.0\.1:<port>\/t\/<per-run token>\/openai\/v1"/);
    expect(r.stdout).toMatch(/warn\s+codex\s+OPENAI_API_KEY is not set/);
    expect(r.stdout).not.toContain(SECRET);
    expect(r.code).toBe(0);
  });

  it('fails (exit 1) on a port in use, an unresolvable upstream, a missing agent or an invalid config', async () => {
    writeFileSync(join(home, 'config.toml'), `port = ${busyPort}\n[upstreams]\nanthropic = "http://127.0.0.1:9"\nopenai = "http://no-such-host.invalid"\n`);
    const r = await runCli(['doctor', 'codex', '--json'], { env: { FICTA_HOME: home, PATH: '/nonexistent', FICTA_NODE: process.execPath } });
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.ok).toBe(false);
    const fails = out.checks.filter((c: { level: string }) => c.level === 'fail').map((c: { area: string }) => c.area);
    // No env file, no --secret-env, no vault: only detection would protect anything, a warning.
    expect(fails).toEqual(['upstream', 'port', 'codex']);
    expect(out.checks).toContainEqual({ level: 'warn', area: 'secrets', message: expect.stringMatching(/^no secret registered: only credentials that detection recognises/) });
    expect(out.checks).toContainEqual({ level: 'ok', area: 'detect', message: expect.stringMatching(/^redact: credentials of \d+ well-known formats/) });
    // With detection off too, nothing would be protected: a failure.
    const off = await runCli(['doctor', '--detect', 'off', '--json'], { env: { FICTA_HOME: home, FICTA_NODE: process.execPath } });
    expect(JSON.parse(off.stdout).checks.filter((c: { level: string }) => c.level === 'fail').map((c: { area: string }) => c.area)).toContain('secrets');
    writeFileSync(join(home, 'config.toml'), `prot = 1\n`);
    const bad = await runCli(['doctor'], { env: { FICTA_HOME: home } });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/^fail\s+config\s+config: prot: unknown key/);
  });
});
