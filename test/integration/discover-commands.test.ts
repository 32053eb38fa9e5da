// Zero-config discovery beyond `ficta run`: under `ficta serve` (on by default; `--no-discover` and
// `secrets.discover = false` in the config file turn it off), under the agent commands (a stand-in agent),
// and next to a vault, where it adds nothing unless `--discover` asks for it.

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIN, SOURCES_ENV, type CliResult } from '../helpers/cli.ts';
import { createMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';

const FAKE = join(import.meta.dirname, '../helpers/fake-agent.mjs');
const FROM_DOTENV = 'dotenv-value-Hq4wZt8n';
const FROM_VAR = 'exported-token-Lm3xKv9p';
const FROM_VAULT = 'vault-value-Rd6yNc2s';
const PASS = 'discover vault passphrase';
const PROMPT = `values ${FROM_DOTENV} ${FROM_VAR}`;
const VAULT_PROMPT = `${PROMPT} ${FROM_VAULT}`;
const DISCOVERED_LINES = ['ficta: discovered 1 secret in ./.env', 'ficta: discovered 1 secret in the environment (MY_API_TOKEN); --no-discover turns this off'];

/** Watches every value: a request carrying any of them in any form is a leak. */
let up: MockUpstream;
/** Watches nothing: shows what went out when discovery was off. */
let open: MockUpstream;
let root: string;
/** The working directory, holding the .env. */
let dir: string;

beforeAll(async () => {
  up = await createMockUpstream({ secrets: [FROM_DOTENV, FROM_VAR, FROM_VAULT] });
  open = await createMockUpstream();
  root = mkdtempSync(join(tmpdir(), 'ficta-discover-cmd-'));
  dir = join(root, 'project');
  mkdirSync(dir);
  writeFileSync(join(dir, '.env'), `APP_SECRET=${FROM_DOTENV}\nPORT=3000\n`);
});
// Each test answers for its own requests.
beforeEach(() => {
  up.leaks.length = 0;
});
afterAll(async () => {
  await up.close();
  await open.close();
  rmSync(root, { recursive: true, force: true });
});

/** A fresh FICTA_HOME. */
function newHome(): string {
  return mkdtempSync(join(root, 'home-'));
}

/** The environment of a user who exported a token; `upstream` is where ficta forwards. */
function userEnv(home: string, upstream: MockUpstream, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '', ...SOURCES_ENV, FICTA_HOME: home, FICTA_ANTHROPIC_UPSTREAM: upstream.url, FICTA_OPENAI_UPSTREAM: upstream.url, MY_API_TOKEN: FROM_VAR, ...extra };
}

/** Runs `ficta ARGS…` in the project directory to completion. */
function ficta(args: string[], env: Record<string, string>, input = ''): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, args, { cwd: dir, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.end(input);
  });
}

/**
 * Starts `ficta serve --port 0 ARGS…` in the project directory, sends one Anthropic request carrying
 * PROMPT, stops it, and returns its stderr and the reply's text.
 */
async function serveOnce(args: string[], env: Record<string, string>): Promise<{ stderr: string; reply: string }> {
  const child = spawn(BIN, ['serve', '--port', '0', ...args], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        stdout += d;
        const m = /^ficta listening on (http:\/\/\S+)\n/m.exec(stdout);
        if (m) resolve(m[1] as string);
      });
      void exited.then(() => reject(new Error(`serve exited before listening: ${stderr}`)));
    });
    const res = await fetch(`${url}/anthropic/v1/messages`, {
      method: 'POST',
      // The client authenticates with the exported token, as an agent does with its own API key.
      headers: { 'content-type': 'application/json', 'x-api-key': FROM_VAR, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'x', max_tokens: 5, messages: [{ role: 'user', content: PROMPT }] }),
    });
    const json = (await res.json()) as { content: Array<{ text: string }> };
    return { stderr, reply: json.content[0]!.text };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

/** The user text of the mock's last request. */
function lastSent(upstream: MockUpstream): string {
  const json = upstream.requests.at(-1)!.json as { messages?: Array<{ content: string }>; input?: string };
  return json.messages?.[0]?.content ?? (json.input as string);
}

/** The start-up lines of discovery in a stderr. */
function discoveryLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l.startsWith('ficta: discovered'));
}

describe('discovery under ficta serve', () => {
  it('registers the .env and a secret-looking variable, one start-up line each; the request reaches the provider with placeholders', async () => {
    const r = await serveOnce([], userEnv(newHome(), up));
    expect(up.leaks).toEqual([]);
    expect(lastSent(up)).toMatch(/^values ~ficta_\S+ ~ficta_\S+$/);
    expect(r.reply).toBe(`ECHO: ${PROMPT}`);
    // A discovered value in an auth header is the credential the provider needs: forwarded as it is.
    expect(up.requests.at(-1)!.headers['x-api-key']).toBe(FROM_VAR);
    expect(discoveryLines(r.stderr)).toEqual(DISCOVERED_LINES);
    expect(r.stderr).not.toContain(FROM_DOTENV);
    expect(r.stderr).not.toContain(FROM_VAR);
  });

  it('--no-discover, and secrets.discover = false in the config file, register nothing', async () => {
    const flag = await serveOnce(['--no-discover'], userEnv(newHome(), open));
    expect(lastSent(open)).toBe(PROMPT);
    expect(discoveryLines(flag.stderr)).toEqual([]);
    const home = newHome();
    writeFileSync(join(home, 'config.toml'), '[secrets]\ndiscover = false\n');
    const file = await serveOnce([], userEnv(home, open));
    expect(lastSent(open)).toBe(PROMPT);
    expect(discoveryLines(file.stderr)).toEqual([]);
  });
});

describe('discovery under the agent commands', () => {
  for (const agent of ['claude', 'codex'] as const) {
    it(`ficta ${agent}: discovery lines, and the agent's request reaches the provider with placeholders`, async () => {
      const home = newHome();
      const out = join(home, 'agent.json');
      const bin = agent === 'claude' ? 'FICTA_CLAUDE_BIN' : 'FICTA_CODEX_BIN';
      const r = await ficta([agent, '--', 'exec', 'hi'], userEnv(home, up, { [bin]: FAKE, FAKE_AGENT_OUT: out, FAKE_AGENT_PROMPT: PROMPT, CODEX_HOME: home }));
      expect(r.code, r.stderr).toBe(0);
      const seen = JSON.parse(readFileSync(out, 'utf8'));
      expect(seen.url).toContain(agent === 'claude' ? '/anthropic/v1/messages' : '/openai/v1/responses');
      expect(seen.status).toBe(200);
      expect(seen.reply).toContain(`ECHO: ${PROMPT}`);
      expect(up.leaks).toEqual([]);
      expect(lastSent(up)).toMatch(/^values ~ficta_\S+ ~ficta_\S+$/);
      expect(discoveryLines(r.stderr)).toEqual(DISCOVERED_LINES);
      expect(r.stderr).not.toContain(FROM_DOTENV);
    });
  }
});

describe('discovery next to a vault', () => {
  it('adds nothing unless --discover; with --discover the vault and the discovered values are all protected', async () => {
    const home = newHome();
    const env = (upstream: MockUpstream, extra: Record<string, string> = {}): Record<string, string> => userEnv(home, upstream, { FICTA_VAULT_PASSPHRASE: PASS, ...extra });
    const init = await ficta(['vault', 'init', '--kdf', 'interactive'], env(up));
    expect(init.code, init.stderr).toBe(0);
    const add = await ficta(['vault', 'add', 'VAULT_TOKEN'], env(up), FROM_VAULT);
    expect(add.code, add.stderr).toBe(0);
    const out = join(home, 'agent.json');
    const agent = ['run', '--', process.execPath, FAKE];

    const vaultOnly = await ficta(agent, env(open, { FAKE_AGENT_OUT: out, FAKE_AGENT_PROMPT: VAULT_PROMPT }));
    expect(vaultOnly.code, vaultOnly.stderr).toBe(0);
    expect(discoveryLines(vaultOnly.stderr)).toEqual([]);
    expect(lastSent(open)).toMatch(new RegExp(`^values ${FROM_DOTENV} ${FROM_VAR} ~ficta_\\S+$`));

    const both = await ficta(['run', '--discover', ...agent.slice(1)], env(up, { FAKE_AGENT_OUT: out, FAKE_AGENT_PROMPT: VAULT_PROMPT }));
    expect(both.code, both.stderr).toBe(0);
    expect(up.leaks).toEqual([]);
    expect(lastSent(up)).toMatch(/^values ~ficta_\S+ ~ficta_\S+ ~ficta_\S+$/);
    expect(JSON.parse(JSON.parse(readFileSync(out, 'utf8')).reply).content[0].text).toBe(`ECHO: ${VAULT_PROMPT}`);
    expect(discoveryLines(both.stderr)).toEqual(DISCOVERED_LINES);
  });
});
