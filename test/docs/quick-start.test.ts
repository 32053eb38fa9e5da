// Runs the README's Quick Start block as written, in a fresh directory holding a `.env` (as a new user's
// checkout would), against the mock provider, then points clients at it with the README's export lines.
// Substitutions, all from outside the block: `npm` and `pnpm` are recording stand-ins on PATH (tests reach
// no registry; this checkout is installed already), `bin/` is this checkout's, FICTA_PORT=0 instead of
// 8787 (the export lines get the port it printed), and FICTA_ANTHROPIC/OPENAI/GEMINI_UPSTREAM point at
// the mock provider.

import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SOURCES_ENV } from '../helpers/cli.ts';
import { createMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';
import { testDir } from '../helpers/temp-dir.ts';

const ROOT = join(import.meta.dirname, '../..');

/** The fenced `sh` blocks of one README section, in order. */
function shBlocks(section: string): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n## ${section}\n`);
  expect(start, `README has a "${section}" section`).toBeGreaterThan(-1);
  const end = readme.indexOf('\n## ', start + 1);
  const body = readme.slice(start, end === -1 ? undefined : end);
  return [...body.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string);
}

let up: MockUpstream | undefined;
afterEach(async () => {
  await up?.close();
  up = undefined;
});

describe("the README's Quick Start", () => {
  it('installs, serves the .env, and the export lines route SDK-shaped requests through it, redacted and restored', async () => {
    const [install] = shBlocks('Quick start');
    const [exports] = shBlocks('Point your agent at it');
    expect(install).toContain('./bin/ficta serve --env-file .env');

    const dir = testDir('ficta-quickstart-');
    const checkout = join(dir, 'checkout');
    const shims = join(dir, 'shims');
    mkdirSync(checkout);
    mkdirSync(shims);
    symlinkSync(join(ROOT, 'bin'), join(checkout, 'bin'));
    const token = `ghp_${'q7RkT2mWzX9vLp4sNb8cYd3fGh6jKa1eUo5i'.slice(0, 36)}`;
    const password = 'quick-start-db-password-42';
    writeFileSync(join(checkout, '.env'), `GITHUB_TOKEN=${token}\nDB_PASSWORD="${password}"\n`);
    const calls = join(dir, 'calls.txt');
    for (const name of ['npm', 'pnpm']) {
      writeFileSync(join(shims, name), `#!/bin/sh\necho "${name} $*" >> "${calls}"\n`);
      chmodSync(join(shims, name), 0o755);
    }
    up = await createMockUpstream({ secrets: [token, password] });

    const child = spawn('bash', ['-e', '-c', install as string], {
      cwd: checkout,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: `${shims}:${process.env.PATH}`,
        HOME: dir,
        ...SOURCES_ENV,
        FICTA_PORT: '0',
        FICTA_ANTHROPIC_UPSTREAM: up.url,
        FICTA_OPENAI_UPSTREAM: up.url,
        FICTA_GEMINI_UPSTREAM: up.url,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const listening = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ready line: ${stderr}`)), 25_000);
      child.stdout.on('data', (d) => {
        stdout += d;
        const m = /^ficta listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(stdout);
        if (m) {
          clearTimeout(timer);
          resolve(m[1] as string);
        }
      });
      void exited.then(() => reject(new Error(`exited before listening: ${stderr}`)));
    });
    try {
      expect(readFileSync(calls, 'utf8')).toBe('npm i -g pnpm@10\npnpm install\n');
      const env = Object.fromEntries(
        [...(exports as string).matchAll(/^export (\w+)=(\S+)/gm)].map((m) => [m[1] as string, (m[2] as string).replace('http://127.0.0.1:8787', listening)]),
      );
      expect(Object.keys(env).sort()).toEqual(['ANTHROPIC_BASE_URL', 'GOOGLE_GEMINI_BASE_URL', 'OPENAI_BASE_URL']);
      const prompt = `deploy with ${token} and ${password}`;
      const post = async (url: string, body: unknown, headers: Record<string, string>): Promise<string> => {
        const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
        expect(res.status, url).toBe(200);
        return res.text();
      };
      const answers = [
        await post(`${env.ANTHROPIC_BASE_URL}/v1/messages`, { model: 'claude-x', max_tokens: 64, messages: [{ role: 'user', content: prompt }] }, { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' }),
        await post(`${env.OPENAI_BASE_URL}/chat/completions`, { model: 'gpt-x', messages: [{ role: 'user', content: prompt }] }, { authorization: 'Bearer k' }),
        await post(`${env.GOOGLE_GEMINI_BASE_URL}/v1beta/models/gemini-x:generateContent`, { contents: [{ role: 'user', parts: [{ text: prompt }] }] }, { 'x-goog-api-key': 'k' }),
      ];
      expect(up.requests.length).toBe(3);
      expect(up.leaks).toEqual([]);
      for (const r of up.requests) expect(r.body.toString()).toMatch(/~ficta_[a-z2-7]{20}/);
      for (const a of answers) {
        expect(a).toContain(token);
        expect(a).toContain(password);
      }
      expect(stderr).not.toContain(token);
    } finally {
      process.kill(-(child.pid as number), 'SIGINT');
    }
    expect(await exited).toBe(0);
  });
});
