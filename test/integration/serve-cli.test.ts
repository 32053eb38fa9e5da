// `ficta serve` as a user runs it: a child process, its one stdout line, secrets from env files and the
// environment, graceful SIGTERM/SIGINT, and clear errors with the documented exit codes.

import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startServe } from '../helpers/cli.ts';
import { createMockUpstream, echoScript, type MockUpstream } from '../helpers/mock-upstream.ts';

const FILE_SECRET = 'file-secret-7f3a9c2d1e';
const MULTI = '-----BEGIN KEY-----\nMIIEvQIBADANBg\n-----END KEY-----';
const ENV_SECRET = 'env-secret-Qm9vYmFy';

let up: MockUpstream;
let home: string;
let envFile: string;

beforeAll(async () => {
  up = await createMockUpstream({ secrets: [FILE_SECRET, MULTI, ENV_SECRET] });
  home = mkdtempSync(join(tmpdir(), 'ficta-cli-'));
  envFile = join(home, 'app.env');
  writeFileSync(envFile, `# app\nexport FILE_SECRET=${FILE_SECRET}\nPRIVATE_KEY="${MULTI.replace(/\n/g, '\\n')}"\nPORT=8080\nEMPTY=\n`);
});
afterAll(async () => {
  await up.close();
  rmSync(home, { recursive: true, force: true });
});

describe('ficta serve', () => {
  it('prints exactly one listening line, redacts secrets from --env-file and --secret-env, and exits 0 on SIGTERM', async () => {
    const p = await startServe(['--port', '0', '--env-file', envFile, '--secret-env', 'MY_TOKEN', '--anthropic-upstream', up.url], {
      FICTA_HOME: home,
      MY_TOKEN: ENV_SECRET,
    });
    expect(p.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const health = (await (await fetch(`${p.url}/healthz`)).json()) as any;
    expect(health).toMatchObject({ status: 'ok', secrets: 3 });
    const res = await fetch(`${p.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
      body: JSON.stringify({ model: 'x', messages: [{ role: 'user', content: `${FILE_SECRET} ${ENV_SECRET} ${MULTI}` }] }),
    });
    const json = (await res.json()) as any;
    expect(json.content[0].text).toBe(`ECHO: ${FILE_SECRET} ${ENV_SECRET} ${MULTI}`);
    expect(up.leaks).toEqual([]);
    p.child.kill('SIGTERM');
    const exit = await p.exited;
    expect(exit.code).toBe(0);
    expect(p.stdout()).toBe(`ficta listening on ${p.url}\n`);
    // Short and empty values are refused with a message naming them, never showing them.
    expect(p.stderr()).toContain('secret PORT refused: it is shorter than 8 characters');
    expect(p.stderr()).toContain('secret EMPTY refused: it is empty');
    expect(p.stderr()).not.toContain(FILE_SECRET);
    // The placeholder key was created 0600 under FICTA_HOME.
    expect(statSync(join(home, 'placeholder.key')).mode & 0o777).toBe(0o600);
  });

  it('lets an in-flight streamed request finish on SIGINT before exiting', async () => {
    up.setScript(async (req) => ({ ...(await echoScript({ gapMs: 30 })(req)) }));
    const p = await startServe(['--port', '0', '--openai-upstream', up.url], { FICTA_HOME: home });
    try {
      const res = await fetch(`${p.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'x', stream: true, messages: [{ role: 'user', content: 'twenty or so characters here' }] }),
      });
      const reader = res.body!.getReader();
      await reader.read();
      p.child.kill('SIGINT');
      let text = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += Buffer.from(value).toString();
      }
      expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
      expect((await p.exited).code).toBe(0);
    } finally {
      up.setScript(echoScript());
      p.child.kill('SIGKILL');
    }
  });

  it('uses the same placeholders across restarts (persistent key)', async () => {
    const seen: string[] = [];
    for (let i = 0; i < 2; i++) {
      const p = await startServe(['--port', '0', '--env-file', envFile, '--openai-upstream', up.url], { FICTA_HOME: home });
      await fetch(`${p.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ messages: [{ role: 'user', content: FILE_SECRET }] }) });
      seen.push(JSON.parse(up.requests.at(-1)!.body.toString()).messages[0].content);
      p.child.kill('SIGTERM');
      await p.exited;
    }
    expect(seen[0]).toMatch(/^~ficta_[a-z2-7]{20}$/);
    expect(seen[1]).toBe(seen[0]);
  });

  it('reports errors in one line with exit code 1, and usage errors with 2', async () => {
    const missing = await runCli(['serve', '--port', '0', '--env-file', join(home, 'nope.env')], { env: { FICTA_HOME: home } });
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toMatch(/^ficta: secrets: cannot read env file .*nope\.env: ENOENT$/);
    const badFlag = await runCli(['serve', '--bogus'], { env: { FICTA_HOME: home } });
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toMatch(/^ficta: usage: /);
    const badConfig = await runCli(['serve', '--port', '0'], { env: { FICTA_HOME: home, FICTA_ANTHROPIC_UPSTREAM: 'ftp://x' } });
    expect(badConfig.code).toBe(1);
    expect(badConfig.stderr.trim()).toBe('ficta: config: upstreams.anthropic: must be an http(s) URL without query or fragment');
    const unknown = await runCli(['frobnicate'], { env: { FICTA_HOME: home } });
    expect(unknown.code).toBe(2);
  });

  it('binds 127.0.0.1 by default', async () => {
    const p = await startServe(['--port', '0'], { FICTA_HOME: home });
    expect(new URL(p.url).hostname).toBe('127.0.0.1');
    p.child.kill('SIGTERM');
    await p.exited;
  });
});
