// The container image (deploy/Dockerfile) as an operator runs it: read-only root, non-root, a mounted env
// file and TOML config, official SDKs through it to a mock provider on the host's loopback (--network
// host), the HEALTHCHECK turning healthy, and SIGTERM mid-stream draining to exit 0. Needs a running
// dockerd and a built image: deploy/test-image.sh builds one and runs this file with FICTA_TEST_IMAGE set.

import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { execFile } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMockUpstream, echoScript, type MockUpstream } from '../helpers/mock-upstream.ts';

const run = promisify(execFile);
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
