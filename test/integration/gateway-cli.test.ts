// `ficta gateway` as an operator runs it: init, token add/list/revoke, check; a real SDK as a tenant (token
// in the base URL, or in x-ficta-token, never forwarded); 401 for a missing, unknown or revoked token
// (revocation seen without a restart); 429 over the tenant's limit; the audit line on stdout; the admin
// listener; SIGTERM drain (not ready at once, accepting for drainDelay, the stream in flight finishes, exit 0).

import Anthropic from '@anthropic-ai/sdk';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { addTenant, startGateway, writeGatewayDir, type GatewayDir } from '../helpers/gateway.ts';
import { createMockUpstream, echoScript, type MockUpstream } from '../helpers/mock-upstream.ts';

const ORG_SECRET = 'org-db-password-5Jq8vLw2Rk';

let up: MockUpstream;
let work: string;
let gw: GatewayDir;
const env = (): NodeJS.ProcessEnv => ({ HOME: work, FICTA_HOME: join(work, 'home') });

beforeAll(async () => {
  up = await createMockUpstream({ secrets: [ORG_SECRET] });
  work = mkdtempSync(join(tmpdir(), 'ficta-gw-cli-'));
  writeFileSync(join(work, 'org.env'), `DB_PASSWORD=${ORG_SECRET}\n`);
  gw = writeGatewayDir(
    join(work, 'gw'),
    { adminPort: 0, drainDelay: '1s', drainTimeout: '10s', maxConcurrent: 2, tokensPoll: '200ms', lastUsedFile: join(work, 'gw-last-used.json') },
    `port = 0\n[upstreams]\nanthropic = ${JSON.stringify(up.url)}\nopenai = ${JSON.stringify(up.url)}\n[[sources]]\nname = "org"\ntype = "dotenv"\npath = ${JSON.stringify(join(work, 'org.env'))}\ngroups = ["platform", "sre"]\n`,
  );
});
afterAll(async () => {
  await up.close();
  rmSync(work, { recursive: true, force: true });
});

describe('ficta gateway init, token, check', () => {
  it('init writes a config, a 0600 key and an empty token file, and refuses to write over them', async () => {
    const dir = join(work, 'fresh');
    const first = await runCli(['gateway', 'init', dir], { env: env() });
    expect(first.code).toBe(0);
    expect(statSync(join(dir, 'gateway.key')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, 'gateway.key'), 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    expect(JSON.parse(readFileSync(join(dir, 'tokens.json'), 'utf8'))).toEqual({ version: 1, tokens: [] });
    const check = await runCli(['gateway', 'check', '--config', join(dir, 'gateway.toml')], { env: env() });
    expect(check.stderr).toBe('');
    expect(check.stdout).toMatch(/ok: 0 tenant\(s\)/);
    expect(check.code).toBe(0);
    const again = await runCli(['gateway', 'init', dir], { env: env() });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exist/);
  });

  it('token add prints exactly the token, list never shows it, revoke marks it', async () => {
    const dir = writeGatewayDir(join(work, 'tok'), {});
    const token = await addTenant(dir.config, 'carol', ['platform', 'sre'], work);
    expect(token).toMatch(/^fgt_[A-Za-z0-9_-]{40}$/);
    const list = await runCli(['gateway', 'token', 'list', '--config', dir.config], { env: env() });
    expect(list.stdout).toMatch(/^NAME +GROUPS +CREATED +LAST USED +STATE\ncarol +platform,sre +\d{4}-\d\d-\d\d \d\d:\d\d +- +active\n$/);
    expect(list.stdout + list.stderr).not.toContain(token);
    expect(readFileSync(dir.tokensFile, 'utf8')).not.toContain(token);
    const revoke = await runCli(['gateway', 'token', 'revoke', 'carol', '--config', dir.config], { env: env() });
    expect(revoke.code).toBe(0);
    const json = await runCli(['gateway', 'token', 'list', '--json', '--config', dir.config], { env: env() });
    expect(JSON.parse(json.stdout).tokens[0]).toMatchObject({ name: 'carol', groups: ['platform', 'sre'], lastUsed: null, revoked: expect.any(String) });
    const twice = await runCli(['gateway', 'token', 'revoke', 'carol', '--config', dir.config], { env: env() });
    expect(twice.code).toBe(1);
  });

  it('check names each problem and exits 1', async () => {
    const dir = writeGatewayDir(join(work, 'broken'), {}, `[[sources]]\nname = "org"\ntype = "dotenv"\npath = ${JSON.stringify(join(work, 'nowhere.env'))}\ngroups = ["g"]\n`);
    writeFileSync(dir.keyFile, 'not a key\n');
    writeFileSync(dir.tokensFile, '{"version":1,"tokens":[{"name":"x"}]}');
    const r = await runCli(['gateway', 'check', '--config', dir.config], { env: env() });
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/^ficta: gateway: key file .*gateway\.key is not a 32-byte hex key/);
    expect(lines[1]).toMatch(/^ficta: tokens: .*tokens\.json: tokens\[0\]\.groups \(x\) must be a list of group names$/);
    expect(lines[2]).toMatch(/^ficta: gateway: source org \(dotenv\) did not load: .*nowhere\.env: ENOENT$/);
    expect(lines).toHaveLength(3);
    const noTable = join(work, 'plain.toml');
    writeFileSync(noTable, 'port = 0\n');
    const plain = await runCli(['gateway', 'check', '--config', noTable], { env: env() });
    expect(plain.code).toBe(1);
    expect(plain.stderr).toMatch(/has no \[gateway\] table/);
    const unknownKey = join(work, 'unknown.toml');
    writeFileSync(unknownKey, '[gateway]\nkeyFile = "k"\ntokensFile = "t"\ndrainDelay = "soon"\n');
    const bad = await runCli(['gateway', 'check', '--config', unknownKey], { env: env() });
    expect(bad.stderr.trim()).toMatch(/^ficta: config: gateway\.drainDelay: must be a duration such as "500ms", "5s", "2m", "1h" or "7d"/);
  });
});

describe('ficta gateway serving', () => {
  it('serves a tenant through the SDK, refuses others, revokes without a restart, limits per tenant, audits on stdout, and drains on SIGTERM', async () => {
    const alice = await addTenant(gw.config, 'alice', ['platform'], work);
    const bob = await addTenant(gw.config, 'bob', ['sre'], work);
    const p = await startGateway(gw.config, { cwd: work });
    try {
      // A real SDK, the token in its base URL.
      const client = new Anthropic({ apiKey: 'sk-test', baseURL: `${p.url}/t/${alice}/anthropic`, maxRetries: 0 });
      const msg = await client.messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: `the password is ${ORG_SECRET}` }] });
      expect(msg.content[0]).toMatchObject({ type: 'text', text: `ECHO: the password is ${ORG_SECRET}` });
      expect(up.leaks).toEqual([]);
      const forwarded = up.requests.at(-1)!;
      expect(forwarded.url).toBe('/v1/messages');

      // The header form: stripped before forwarding.
      const viaHeader = await fetch(`${p.url}/openai/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-ficta-token': bob },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(viaHeader.status).toBe(200);
      expect(up.requests.at(-1)!.headers['x-ficta-token']).toBeUndefined();

      // No dashboard on the public listener, not even for a tenant (it serves tenants' provider routes only).
      for (const headers of [{}, { 'x-ficta-token': bob }]) {
        const ui = await fetch(`${p.url}/_ficta/`, { headers });
        expect(ui.status === 401 || ui.status === 404, `/_ficta/ answered ${ui.status}`).toBe(true);
        expect(await ui.text()).not.toContain('<!doctype html>');
      }

      // Missing and unknown tokens: 401 provider-shaped, nothing forwarded.
      const before = up.requests.length;
      const missing = await fetch(`${p.url}/anthropic/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(missing.status).toBe(401);
      expect(((await missing.json()) as any).error.type).toBe('ficta_unauthorized');
      const unknown = new Anthropic({ apiKey: 'k', baseURL: `${p.url}/t/fgt_AAAAAAAAbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb/anthropic`, maxRetries: 0 });
      await expect(unknown.messages.create({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 401 });
      expect(up.requests.length).toBe(before);

      // Per-tenant limit: maxConcurrent = 2; the third concurrent request of bob gets 429 with retry-after.
      up.setScript(echoScript({ firstByteDelayMs: 600 }));
      const slow = () => fetch(`${p.url}/t/${bob}/openai/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ messages: [{ role: 'user', content: 'slow' }] }) });
      const first = [slow(), slow()];
      await new Promise((r) => setTimeout(r, 200));
      const third = await slow();
      expect(third.status).toBe(429);
      expect(third.headers.get('retry-after')).toBe('1');
      expect((await Promise.all(first)).map((r) => r.status)).toEqual([200, 200]);
      up.setScript(echoScript());

      // Revocation reaches the running instance through the token file (polled every 200 ms here).
      const revoke = await runCli(['gateway', 'token', 'revoke', 'bob', '--config', gw.config], { env: env() });
      expect(revoke.code).toBe(0);
      await new Promise((r) => setTimeout(r, 800));
      const revoked = await fetch(`${p.url}/t/${bob}/openai/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"messages":[]}' });
      expect(revoked.status).toBe(401);

      // Admin listener.
      expect((await fetch(`${p.adminUrl}/healthz`)).status).toBe(200);
      expect((await fetch(`${p.adminUrl}/readyz`)).status).toBe(200);
      const metrics = await (await fetch(`${p.adminUrl}/metrics`)).text();
      expect(metrics).toContain('ficta_requests_total{provider="anthropic",adapter="anthropic-messages",status="200",outcome="ok",group="platform"} 1');
      expect(metrics).toContain('ficta_requests_total{provider="",adapter="",status="429",outcome="over_limit",group=""} 1');
      expect(metrics).toMatch(/ficta_tokens\{state="active"\} 1\n/);

      // SIGTERM with a stream in flight: /readyz 503 at once, still accepting during drainDelay, the stream finishes, exit 0.
      up.setScript(echoScript({ gapMs: 40 }));
      const stream = await fetch(`${p.url}/t/${alice}/anthropic/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
        body: JSON.stringify({ model: 'm', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'a stream long enough to still be running' }] }),
      });
      const reader = stream.body!.getReader();
      await reader.read();
      p.child.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 150));
      expect((await fetch(`${p.adminUrl}/readyz`)).status).toBe(503);
      const during = await fetch(`${p.url}/t/${alice}/openai/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"messages":[{"role":"user","content":"still here"}]}' });
      expect(during.status).toBe(200);
      let text = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += Buffer.from(value).toString();
      }
      expect(text).toContain('event: message_stop');
      expect((await p.exited).code).toBe(0);
      up.setScript(echoScript());

      // The audit trail: one JSON request line per request on stdout, with tenant and groups; no token anywhere.
      const audit = p.stdoutLines().map((l) => JSON.parse(l));
      expect(audit.every((a) => a.event === 'request')).toBe(true);
      expect(audit.find((a) => a.status === 200 && a.provider === 'anthropic')).toMatchObject({ tenant: 'alice', groups: ['platform'] });
      // The missing and unknown tokens, the revoked one, and /_ficta/ without a token.
      expect(audit.filter((a) => a.status === 401)).toHaveLength(4);
      const everything = p.stdoutLines().join('\n') + p.stderr();
      for (const secret of [alice, bob, ORG_SECRET]) expect(everything).not.toContain(secret);

      // The instance wrote when each tenant last made a request; token list shows it.
      const list = await runCli(['gateway', 'token', 'list', '--json', '--config', gw.config], { env: env() });
      const rows = JSON.parse(list.stdout).tokens as Array<{ name: string; lastUsed: string | null; revoked: string | null }>;
      expect(rows.find((r) => r.name === 'alice')).toMatchObject({ lastUsed: expect.stringMatching(/^\d{4}-/), revoked: null });
      expect(rows.find((r) => r.name === 'bob')!.lastUsed).toMatch(/^\d{4}-/);
    } finally {
      p.child.kill('SIGKILL');
      up.setScript(echoScript());
    }
  });

  it('applies a changed config without a restart (the per-tenant limit), names what needs one, and runs on when the new one is invalid', async () => {
    const dir = writeGatewayDir(join(work, 'live'), { adminPort: 0, drainDelay: '0s', maxConcurrent: 1, tokensPoll: '200ms' }, `port = 0\n[upstreams]\nopenai = ${JSON.stringify(up.url)}\n`);
    const token = await addTenant(dir.config, 'erin', [], work);
    const p = await startGateway(dir.config, { cwd: work });
    try {
      up.setScript(echoScript({ firstByteDelayMs: 500 }));
      const call = () => fetch(`${p.url}/t/${token}/openai/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"messages":[{"role":"user","content":"x"}]}' });
      const pair = async (): Promise<number[]> => {
        const a = call();
        await new Promise((r) => setTimeout(r, 150));
        const b = await call();
        return [(await a).status, b.status];
      };
      expect(await pair()).toEqual([200, 429]);
      const original = readFileSync(dir.config, 'utf8');
      writeFileSync(dir.config, original.replace('maxConcurrent = 1', 'maxConcurrent = 2').replace('port = 0', 'port = 0\n[detect]\nmode = "block"'));
      await new Promise((r) => setTimeout(r, 800));
      expect(await pair()).toEqual([200, 200]);
      const changed = p.stderr().split('\n').filter((l) => l.includes('"event":"gateway_config_changed"')).map((l) => JSON.parse(l));
      expect(changed.at(-1)).toMatchObject({ trigger: 'file', applied: ['gateway.maxConcurrent'], restartNeeded: ['detect'] });
      // An invalid config is refused with its key named; the instance runs on with the previous one.
      writeFileSync(dir.config, original.replace('maxConcurrent = 1', 'maxConcurrent = "many"'));
      await new Promise((r) => setTimeout(r, 800));
      expect(p.stderr()).toMatch(/"event":"gateway_config_invalid".*gateway\.maxConcurrent/);
      expect(await pair()).toEqual([200, 200]);
      const metrics = await (await fetch(`${p.adminUrl}/metrics`)).text();
      expect(metrics).toContain('ficta_reload_failures_total{what="config"} 1');
    } finally {
      up.setScript(echoScript());
      p.child.kill('SIGTERM');
      expect((await p.exited).code).toBe(0);
    }
  });

  it('ends a request still in flight when drainTimeout runs out, and exits 0', async () => {
    const dir = writeGatewayDir(join(work, 'timeout'), { adminPort: 0, drainDelay: '0s', drainTimeout: '1s' }, `port = 0\n[upstreams]\nopenai = ${JSON.stringify(up.url)}\n`);
    const token = await addTenant(dir.config, 'fay', [], work);
    const p = await startGateway(dir.config, { cwd: work });
    try {
      up.setScript(() => ({ hang: true }));
      const pending = fetch(`${p.url}/t/${token}/openai/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"messages":[]}' }).then(
        (r) => r.status,
        () => 'closed',
      );
      await new Promise((r) => setTimeout(r, 300));
      const started = Date.now();
      p.child.kill('SIGTERM');
      expect((await p.exited).code).toBe(0);
      const took = Date.now() - started;
      expect(took).toBeGreaterThanOrEqual(900);
      expect(took).toBeLessThan(10_000);
      expect(await pending).not.toBe(200);
      expect(p.stderr()).toContain('"event":"shutdown_forced"');
    } finally {
      up.setScript(echoScript());
      p.child.kill('SIGKILL');
    }
  });
});
