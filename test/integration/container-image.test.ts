// The container image (deploy/Dockerfile) as an operator runs it: read-only root, non-root, a mounted env
// file and TOML config, official SDKs through it to a mock provider on the host's loopback (--network
// host), the HEALTHCHECK turning healthy, and SIGTERM mid-stream draining to exit 0; then `ficta gateway`
// with deploy/kubernetes's ConfigMap and its Secret mounts (a tenant's request, /readyz, /metrics, the
// SIGTERM drain). Needs a running dockerd and a built image: deploy/test-image.sh builds one and runs
// this file with FICTA_TEST_IMAGE set.

import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { execFile } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { runCli } from '../helpers/cli.ts';
import { createMockUpstream, echoScript, type MockUpstream } from '../helpers/mock-upstream.ts';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');
const IMAGE = process.env.FICTA_TEST_IMAGE;
const SECRET = 'image-secret-7c4e1f90b2d8';
const NAME = `ficta-image-test-${process.pid}`;

let up: MockUpstream;
let work: string;
let url: string;

async function docker(...args: string[]): Promise<string> {
  return (await run('docker', args, { maxBuffer: 16 * 1024 * 1024 })).stdout.trim();
}

/** A port free on the host's loopback (the container shares the host's network). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`container-image: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe.runIf(IMAGE !== undefined && IMAGE !== '')('the container image', () => {
  beforeAll(async () => {
    up = await createMockUpstream({ secrets: [SECRET] });
    work = mkdtempSync(join(tmpdir(), 'ficta-image-'));
    chmodSync(work, 0o755);
    // Mounted read-only; the container's uid 10001 must be able to read them.
    writeFileSync(join(work, 'app.env'), `APP_TOKEN=${SECRET}\n`, { mode: 0o644 });
    writeFileSync(join(work, 'config.toml'), `[upstreams]\nanthropic = "${up.url}"\nopenai = "${up.url}"\n\n[log]\nformat = "json"\n`, { mode: 0o644 });
    const port = await freePort();
    await docker(
      'run', '-d', '--name', NAME,
      '--network', 'host',
      '--read-only', '--tmpfs', '/tmp',
      '--tmpfs', '/var/lib/ficta:uid=10001,gid=10001,mode=0700',
      '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges',
      '-v', `${join(work, 'app.env')}:/run/ficta/app.env:ro`,
      '-v', `${join(work, 'config.toml')}:/etc/ficta/config.toml:ro`,
      '-e', `FICTA_HEALTHCHECK_URL=http://127.0.0.1:${port}/healthz`,
      '--health-interval', '1s', '--health-start-period', '1s',
      IMAGE!,
      'serve', '--host', '127.0.0.1', '--port', String(port), '--env-file', '/run/ficta/app.env', '--config', '/etc/ficta/config.toml', '--no-discover',
    );
    url = await until('the listening line', async () => /^ficta listening on (http:\/\/\S+)$/m.exec(await docker('logs', NAME))?.[1]);
  }, 120_000);

  afterAll(async () => {
    await docker('rm', '-f', NAME).catch(() => '');
    await up?.close();
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  test('runs as uid 10001 with a read-only root file system', async () => {
    const state = JSON.parse(await docker('inspect', NAME))[0];
    expect(state.Config.User).toBe('10001:10001');
    expect(state.HostConfig.ReadonlyRootfs).toBe(true);
    expect(await docker('exec', NAME, 'node', '-e', 'process.stdout.write(String(process.getuid()))')).toBe('10001');
    // Nothing outside the volume and /tmp is writable.
    await expect(docker('exec', NAME, 'node', '-e', "require('fs').writeFileSync('/opt/ficta/x', '')")).rejects.toThrow(/EROFS/);
  });

  test('the HEALTHCHECK (node asking /healthz: the image has no curl) turns the container healthy', async () => {
    expect(await (await fetch(`${url}/healthz`)).json()).toMatchObject({ status: 'ok', secrets: 1 });
    await expect(docker('exec', NAME, 'sh', '-c', 'command -v curl || command -v wget')).rejects.toThrow();
    const health = await until('a healthy status', async () => {
      const s = JSON.parse(await docker('inspect', '-f', '{{json .State.Health}}', NAME));
      return s.Status === 'healthy' ? s : undefined;
    });
    expect(health.Log.at(-1)).toMatchObject({ ExitCode: 0 });
  });

  test('an Anthropic SDK request is redacted on the way out and restored on the way back', async () => {
    const client = new Anthropic({ apiKey: 'k', baseURL: url, maxRetries: 0 });
    const msg = await client.messages.create({ model: 'm', max_tokens: 64, messages: [{ role: 'user', content: `deploy with ${SECRET}` }] });
    expect(msg.content[0]).toMatchObject({ type: 'text', text: `ECHO: deploy with ${SECRET}` });
    const sent = up.requests.at(-1)!.body.toString();
    expect(sent).not.toContain(SECRET);
    expect(sent).toMatch(/deploy with \S+/);
    expect(up.leaks).toEqual([]);
  });

  test('SIGTERM during a stream: the stream completes restored, then the container exits 0', async () => {
    up.setScript(echoScript({ gapMs: 40 }, 2));
    const client = new OpenAI({ apiKey: 'k', baseURL: `${url}/openai/v1`, maxRetries: 0 });
    const stream = await client.chat.completions.create({ model: 'm', stream: true, messages: [{ role: 'user', content: `slow ${SECRET}` }] });
    let text = '';
    let signalled = false;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (!signalled && text.length > 0) {
        signalled = true;
        await docker('kill', '--signal', 'SIGTERM', NAME);
      }
    }
    expect(signalled).toBe(true);
    expect(text).toBe(`ECHO: slow ${SECRET}`);
    expect(await docker('wait', NAME)).toBe('0');
    const logs = (await run('docker', ['logs', NAME])).stderr;
    expect(logs).not.toContain(SECRET);
    expect(up.leaks).toEqual([]);
  }, 60_000);
});

/**
 * Writes `files` into `dir` the way the kubelet fills a Secret volume: a timestamped directory, a `..data`
 * symlink to it, and one symlink per file through `..data`; called again, swaps the whole set atomically
 * (rename of a new `..data` link) and removes the old directory. Mode 0440, group 10001 (fsGroup).
 */
let generation = 0;
function projectSecret(dir: string, files: Record<string, string>): void {
  const stamp = `..${Date.now()}_${generation++}`;
  mkdirSync(join(dir, stamp), { mode: 0o755 });
  for (const [name, content] of Object.entries(files)) {
    writeFileSync(join(dir, stamp, name), content);
    chownSync(join(dir, stamp, name), 0, 10001);
    chmodSync(join(dir, stamp, name), 0o440);
  }
  const previous = existsSync(join(dir, '..data')) ? readlinkSync(join(dir, '..data')) : undefined;
  symlinkSync(stamp, join(dir, '..data_tmp'));
  renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
  for (const name of Object.keys(files)) if (!existsSync(join(dir, name))) symlinkSync(join('..data', name), join(dir, name));
  if (previous !== undefined) rmSync(join(dir, previous), { recursive: true, force: true });
}

/** One sample of a metric from the admin listener's Prometheus text. */
async function metric(admin: string, line: RegExp): Promise<number | undefined> {
  const m = line.exec(await (await fetch(`${admin}/metrics`)).text());
  return m === null ? undefined : Number(m[1]);
}

describe.runIf(IMAGE !== undefined && IMAGE !== '')('the image running ficta gateway in the Kubernetes layout', () => {
  const GW = `ficta-image-gateway-${process.pid}`;
  const ORG_SECRET = 'image-org-secret-3b91d0c7e5';
  let gwUp: MockUpstream;
  let gwWork: string;
  let token: string;
  let pub: string;
  let admin: string;

  beforeAll(async () => {
    gwUp = await createMockUpstream({ secrets: [ORG_SECRET] });
    gwWork = mkdtempSync(join(tmpdir(), 'ficta-image-gw-'));
    chmodSync(gwWork, 0o755);
    // What the Secrets and the ConfigMap hold, laid out as the Deployment mounts them.
    const env = { HOME: gwWork, FICTA_HOME: join(gwWork, 'home') };
    expect((await runCli(['gateway', 'init', join(gwWork, 'init')], { env })).code).toBe(0);
    const add = await runCli(['gateway', 'token', 'add', 'alice', '--group', 'platform', '--config', join(gwWork, 'init/gateway.toml')], { env });
    expect(add.code, add.stderr).toBe(0);
    token = add.stdout.trim();
    for (const d of ['config', 'key', 'tokens', 'platform']) mkdirSync(join(gwWork, d), { mode: 0o755 });
    const configMap = parseYaml(readFileSync(join(ROOT, 'deploy/kubernetes/configmap.yaml'), 'utf8'));
    projectSecret(join(gwWork, 'config'), { 'gateway.toml': configMap.data['gateway.toml'] });
    projectSecret(join(gwWork, 'key'), { 'gateway.key': readFileSync(join(gwWork, 'init/gateway.key'), 'utf8') });
    projectSecret(join(gwWork, 'tokens'), { 'tokens.json': readFileSync(join(gwWork, 'init/tokens.json'), 'utf8') });
    projectSecret(join(gwWork, 'platform'), { DEPLOY_TOKEN: `${ORG_SECRET}\n` });
    const [p, a] = [await freePort(), await freePort()];
    pub = `http://127.0.0.1:${p}`;
    admin = `http://127.0.0.1:${a}`;
    await docker(
      'run', '-d', '--name', GW, '--network', 'host',
      '--read-only', '--tmpfs', '/tmp', '--tmpfs', '/var/lib/ficta:uid=10001,gid=10001,mode=0700',
      '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges',
      '-v', `${join(gwWork, 'config')}:/etc/ficta/config:ro`,
      '-v', `${join(gwWork, 'key')}:/etc/ficta/key:ro`,
      '-v', `${join(gwWork, 'tokens')}:/etc/ficta/tokens:ro`,
      '-v', `${join(gwWork, 'platform')}:/etc/ficta/secrets/platform:ro`,
      // The ConfigMap's upstreams are the real providers: the mock stands in through the environment.
      '-e', `FICTA_ANTHROPIC_UPSTREAM=${gwUp.url}`,
      '-e', `FICTA_HEALTHCHECK_URL=${admin}/healthz`,
      '--health-interval', '1s', '--health-start-period', '1s',
      IMAGE!,
      // The Deployment's arguments; on the host's network, loopback ports instead of 0.0.0.0:8787/9787.
      'gateway', '--config', '/etc/ficta/config/gateway.toml', '--host', '127.0.0.1', '--port', String(p), '--admin-host', '127.0.0.1', '--admin-port', String(a),
    );
    await until('/readyz', async () => ((await fetch(`${admin}/readyz`)).status === 200 ? true : undefined), 60_000).catch(async (e) => {
      throw new Error(`${(e as Error).message}\n${(await run('docker', ['logs', GW])).stderr}`);
    });
  }, 120_000);

  afterAll(async () => {
    await docker('rm', '-f', GW).catch(() => '');
    await gwUp?.close();
    if (gwWork !== undefined) rmSync(gwWork, { recursive: true, force: true });
  });

  test("a tenant's SDK request: the organisation secret is redacted at the gateway and restored to the entitled tenant", async () => {
    const client = new Anthropic({ apiKey: 'k', baseURL: `${pub}/t/${token}/anthropic`, maxRetries: 0 });
    const msg = await client.messages.create({ model: 'm', max_tokens: 64, messages: [{ role: 'user', content: `ship it with ${ORG_SECRET}` }] });
    expect(msg.content[0]).toMatchObject({ type: 'text', text: `ECHO: ship it with ${ORG_SECRET}` });
    expect(gwUp.requests.at(-1)!.body.toString()).not.toContain(ORG_SECRET);
    expect(gwUp.leaks).toEqual([]);
    const unauthorized = await fetch(`${pub}/t/not-a-token/anthropic/v1/messages`, { method: 'POST', body: '{}' });
    expect(unauthorized.status).toBe(401);
    expect(await (await fetch(`${admin}/metrics`)).text()).toMatch(/^ficta_requests_total\{/m);
    const health = await until('a healthy status', async () => {
      const s = JSON.parse(await docker('inspect', '-f', '{{json .State.Health}}', GW));
      return s.Status === 'healthy' ? s : undefined;
    });
    expect(health.Status).toBe('healthy');
  });

  test('the Secret volume is updated as the kubelet does it: a rotated value is protected and restored at once', async () => {
    const rotated = 'image-org-secret-rotated-84f2a6';
    gwUp.secrets.push(rotated);
    projectSecret(join(gwWork, 'platform'), { DEPLOY_TOKEN: `${rotated}\n` });
    // The old value is retained (agents' contexts still hold it): two values once the swap is seen.
    await until('the rotated source', async () => ((await metric(admin, /^ficta_secret_set_values (\d+)$/m)) === 2 ? true : undefined), 45_000);
    const client = new Anthropic({ apiKey: 'k', baseURL: `${pub}/t/${token}/anthropic`, maxRetries: 0 });
    for (const value of [rotated, ORG_SECRET]) {
      const msg = await client.messages.create({ model: 'm', max_tokens: 64, messages: [{ role: 'user', content: `now ${value}` }] });
      expect(msg.content[0]).toMatchObject({ type: 'text', text: `ECHO: now ${value}` });
    }
    expect(gwUp.leaks).toEqual([]);
  }, 60_000);

  test('a token revoked in the Secret stops working without a restart', async () => {
    const env = { HOME: gwWork, FICTA_HOME: join(gwWork, 'home') };
    expect((await runCli(['gateway', 'token', 'revoke', 'alice', '--config', join(gwWork, 'init/gateway.toml')], { env })).code).toBe(0);
    projectSecret(join(gwWork, 'tokens'), { 'tokens.json': readFileSync(join(gwWork, 'init/tokens.json'), 'utf8') });
    const status = (): Promise<number> =>
      fetch(`${pub}/t/${token}/anthropic/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"hi"}]}' }).then(async (r) => {
        await r.arrayBuffer();
        return r.status;
      });
    expect(await until('a 401 for the revoked token', async () => ((await status()) === 401 ? true : undefined), 30_000)).toBe(true);
  }, 60_000);

  test('SIGTERM: /readyz turns 503 at once, the gateway drains and exits 0', async () => {
    await docker('kill', '--signal', 'SIGTERM', GW);
    await until('/readyz 503', async () => ((await fetch(`${admin}/readyz`)).status === 503 ? true : undefined), 3_000);
    expect(await docker('wait', GW)).toBe('0');
    const logs = await run('docker', ['logs', GW]);
    expect(logs.stdout + logs.stderr).not.toContain(ORG_SECRET);
    expect(logs.stdout + logs.stderr).not.toContain(token);
  }, 90_000);
});
