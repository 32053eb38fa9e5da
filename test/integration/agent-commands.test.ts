// `ficta gemini`, `ficta opencode`, `ficta run` and `ficta doctor` for the new agents, with a stand-in
// agent that records what it was given and sends one request the way the real one would route it; and
// named upstreams given on the command line.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { createMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';

const SECRET = 'agent-secret-Zm9vYmFyYmF6';
const FAKE = join(import.meta.dirname, '../helpers/fake-agent.mjs');
const TOKEN_URL = /^http:\/\/127\.0\.0\.1:\d+\/t\/[A-Za-z0-9_-]{32}/;
let up: MockUpstream;
let home: string;

beforeAll(async () => {
  up = await createMockUpstream({ secrets: [SECRET] });
  home = mkdtempSync(join(tmpdir(), 'ficta-agents-'));
  writeFileSync(join(home, 'app.env'), `APP_SECRET=${SECRET}\n`);
});
afterAll(async () => {
  await up.close();
  rmSync(home, { recursive: true, force: true });
});

const env = (extra: Record<string, string> = {}): Record<string, string> => ({ FICTA_HOME: home, FICTA_ANTHROPIC_UPSTREAM: up.url, FICTA_OPENAI_UPSTREAM: up.url, FICTA_GEMINI_UPSTREAM: up.url, ...extra });

describe('agent commands', () => {
  it('ficta gemini: GOOGLE_GEMINI_BASE_URL with the token path, its HTTPS proxy is ficta itself, arguments pass through', async () => {
    const out = join(home, 'gemini.json');
    const r = await runCli(['gemini', '--env-file', join(home, 'app.env'), '--', '-p', 'hello', '--yolo'], { env: env({ FICTA_GEMINI_BIN: FAKE, FAKE_AGENT_OUT: out }) });
    expect(r.code, r.stderr).toBe(0);
    const seen = JSON.parse(readFileSync(out, 'utf8'));
    expect(seen.args).toEqual(['-p', 'hello', '--yolo']);
    expect(seen.env.GOOGLE_GEMINI_BASE_URL).toMatch(new RegExp(`${TOKEN_URL.source}/gemini$`));
    expect(seen.env.HTTPS_PROXY).toBe(new URL(seen.env.GOOGLE_GEMINI_BASE_URL).origin);
    expect(seen.env.NO_PROXY).toBe('127.0.0.1,localhost,::1');
    expect(seen.env.GEMINI_TELEMETRY_ENABLED).toBe('false');
  });

  it('ficta opencode: provider base URLs for Anthropic, OpenAI and Google in OPENCODE_CONFIG_CONTENT', async () => {
    const out = join(home, 'opencode.json');
    const r = await runCli(['opencode', '--', 'run', 'hi'], { env: env({ FICTA_OPENCODE_BIN: FAKE, FAKE_AGENT_OUT: out, OPENCODE_CONFIG_CONTENT: '{"model":"openai/gpt-x"}' }) });
    expect(r.code, r.stderr).toBe(0);
    const seen = JSON.parse(readFileSync(out, 'utf8'));
    const config = JSON.parse(seen.env.OPENCODE_CONFIG_CONTENT);
    expect(config.model).toBe('openai/gpt-x');
    expect(config.provider.anthropic.options.baseURL).toMatch(new RegExp(`${TOKEN_URL.source}/anthropic/v1$`));
    expect(config.provider.openai.options.baseURL).toMatch(new RegExp(`${TOKEN_URL.source}/openai/v1$`));
    expect(config.provider.google.options.baseURL).toMatch(new RegExp(`${TOKEN_URL.source}/gemini/v1beta$`));
    expect(seen.env.OPENCODE_DISABLE_MODELS_FETCH).toBe('true');
    // The Vercel AI SDK appends /messages to the Anthropic base URL: the same route ANTHROPIC_BASE_URL + /v1/messages reaches.
    expect(config.provider.anthropic.options.baseURL).toBe(`${seen.env.ANTHROPIC_BASE_URL}/v1`);
    expect(seen.status).toBe(200);
  });

  it('ficta run sets GOOGLE_GEMINI_BASE_URL next to the other base URLs', async () => {
    const out = join(home, 'run.json');
    const r = await runCli(['run', '--', process.execPath, FAKE], { env: env({ FAKE_AGENT_OUT: out }) });
    expect(r.code).toBe(0);
    const seen = JSON.parse(readFileSync(out, 'utf8'));
    expect(seen.env.GOOGLE_GEMINI_BASE_URL).toMatch(new RegExp(`${TOKEN_URL.source}/gemini$`));
    expect(seen.env.OPENAI_BASE_URL).toMatch(new RegExp(`${TOKEN_URL.source}/openai/v1$`));
  });

  it('ficta run --upstream NAME=URL routes /NAME/ to it; a name colliding with a built-in route is a usage error naming it', async () => {
    const script = join(home, 'named.mjs');
    writeFileSync(script, `const r = await fetch(process.env.FICTA_URL + '/together/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: process.env.P }] }) }); console.log((await r.json()).choices[0].message.content);`);
    const r = await runCli(['run', '--env-file', join(home, 'app.env'), '--upstream', `together=${up.url}`, '--', process.execPath, script], { env: env({ P: `key ${SECRET}` }) });
    expect(r.stdout).toBe(`ECHO: key ${SECRET}\n`);
    expect(up.requests.at(-1)!.url).toBe('/v1/chat/completions');
    expect(up.leaks).toEqual([]);
    const bad = await runCli(['run', '--upstream', `v1beta=${up.url}`, '--', 'true'], { env: env() });
    // A usage error of ficta run itself: 125, so it cannot pass for the command's own exit code.
    expect(bad.code).toBe(125);
    expect(bad.stderr).toBe('ficta: usage: run: --upstream: the name "v1beta" collides with the built-in route /v1beta/; choose another name; see ficta run --help\n');
    const envBad = await runCli(['serve', '--port', '0'], { env: env({ FICTA_UPSTREAM_OLLAMA: up.url }) });
    expect(envBad.code).toBe(1);
    expect(envBad.stderr).toContain('config: FICTA_UPSTREAM_OLLAMA: the name "ollama" collides with the built-in route /ollama/');
  });

  it('ficta doctor gemini opencode shows the exact routing, never a value', async () => {
    const r = await runCli(['doctor', 'gemini', 'opencode'], {
      env: env({ FICTA_GEMINI_BIN: FAKE, FICTA_OPENCODE_BIN: FAKE, GEMINI_API_KEY: SECRET, OPENCODE_CONFIG_CONTENT: JSON.stringify({ provider: { groq: { options: { apiKey: SECRET } } } }) }),
    });
    expect(r.stdout).toMatch(/ok\s+gemini\s+ficta gemini routes it with: GOOGLE_GEMINI_BASE_URL=http:\/\/127\.0\.0\.1:<port>\/t\/<per-run token>\/gemini GEMINI_TELEMETRY_ENABLED=false HTTPS_PROXY=http:\/\/127\.0\.0\.1:<port> NO_PROXY=127\.0\.0\.1,localhost,::1/);
    expect(r.stdout).toMatch(/warn\s+gemini\s+Gemini CLI auth type is not set/);
    expect(r.stdout).toMatch(/ok\s+opencode\s+.*provider\.google\.options\.baseURL=http:\/\/127\.0\.0\.1:<port>\/t\/<per-run token>\/gemini\/v1beta/);
    expect(r.stdout).not.toContain(SECRET);
  });
});
