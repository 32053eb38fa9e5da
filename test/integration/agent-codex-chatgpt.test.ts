// Codex signed in with a ChatGPT account. `ficta codex` reads the login mode from CODEX_HOME/auth.json and
// routes a ChatGPT login to /chatgpt/backend-api/codex with requires_openai_auth; the request Codex 0.169.0
// sends there (recorded through ficta from a real run with a fake login: fixtures/wire/
// codex-0.169.0-chatgpt-responses-request.json) is replayed zstd-compressed, as Codex sends it with
// request compression on. The real Codex binary runs too when SLOW=1 and FICTA_TEST_CODEX_BIN is set.

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zstdCompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codexModel, writePrompt } from '../helpers/agent-models.ts';
import { BIN, runCli, SOURCES_ENV } from '../helpers/cli.ts';
import { createEgressRecorder } from '../helpers/egress-recorder.ts';
import { dotenvQuote, startFicta, type TestFicta } from '../helpers/ficta-server.ts';
import { createMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';
import { parseSse } from '../helpers/sse-client.ts';

const WEIRD = 'pa"ss\\wörd-C1';
const TOKEN = 'ghp_Codex0123456789abcdefABCDEF012345';
const RECORDED = JSON.parse(readFileSync(join(import.meta.dirname, '../../fixtures/wire/codex-0.169.0-chatgpt-responses-request.json'), 'utf8'));
const FAKE = join(import.meta.dirname, '../helpers/fake-agent.mjs');

let up: MockUpstream;
let dir: string;

/** A ChatGPT-login auth.json as `codex login` writes it: tokens (JWTs, here unsigned fakes) and no API key. */
function chatgptAuth(): string {
  const b64 = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64url');
  const claims = {
    iss: 'https://auth.openai.com',
    email: 'dev@example.com',
    exp: Math.floor(Date.now() / 1000) + 30 * 86400,
    'https://api.openai.com/auth': { chatgpt_plan_type: 'plus', chatgpt_account_id: 'acct-fake-0001', chatgpt_user_id: 'user-fake-0001' },
  };
  const jwt = `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64(claims)}.c2lnbmF0dXJl`;
  return JSON.stringify({ auth_mode: 'chatgpt', OPENAI_API_KEY: null, tokens: { id_token: jwt, access_token: jwt, refresh_token: 'rt-fake', account_id: 'acct-fake-0001' }, last_refresh: new Date().toISOString() });
}

beforeAll(async () => {
  up = await createMockUpstream({ secrets: [WEIRD, TOKEN], script: codexModel() });
  dir = mkdtempSync(join(tmpdir(), 'ficta-codex-'));
  mkdirSync(join(dir, 'codex-chatgpt'));
  writeFileSync(join(dir, 'codex-chatgpt', 'auth.json'), chatgptAuth());
  mkdirSync(join(dir, 'codex-apikey'));
  writeFileSync(join(dir, 'codex-apikey', 'auth.json'), JSON.stringify({ OPENAI_API_KEY: 'sk-stored-key-00000000' }));
  writeFileSync(join(dir, 'app.env'), `DB_PASSWORD=${dotenvQuote(WEIRD)}\nGITHUB_TOKEN=${TOKEN}\n`);
});
afterAll(async () => {
  await up.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the ChatGPT backend route with the request shape Codex 0.169.0 sends', () => {
  let proxy: TestFicta;
  beforeAll(async () => {
    proxy = await startFicta({ upstream: up.url, secrets: { DB_PASSWORD: WEIRD, GITHUB_TOKEN: TOKEN }, config: { upstreams: { anthropic: up.url, openai: up.url, chatgpt: up.url } } });
  });
  afterAll(() => proxy.close());

  it('decodes the zstd body, redacts and gates it, keeps the bearer and chatgpt-account-id, and restores apply_patch input', async () => {
    const content = `password=${WEIRD}\ntoken=${TOKEN}`;
    const body = JSON.parse(JSON.stringify(RECORDED.body).replace('{{PROMPT}}', JSON.stringify(writePrompt('out.txt', content)).slice(1, -1)));
    const raw = Buffer.from(JSON.stringify(body));
    const res = await fetch(`${proxy.url}/chatgpt${RECORDED.url}`, { method: 'POST', headers: { ...RECORDED.headers, 'content-encoding': 'zstd' }, body: zstdCompressSync(raw) });
    expect(res.status).toBe(200);
    const seen = up.requests.at(-1)!;
    expect(seen.url).toBe('/backend-api/codex/responses');
    expect(seen.headers['content-encoding']).toBeUndefined();
    expect(seen.headers.authorization).toBe(RECORDED.headers.authorization);
    expect(seen.headers['chatgpt-account-id']).toBe('acct-fake-0001');
    expect(seen.headers.originator).toBe('codex_exec');
    expect(seen.json.include).toEqual(['reasoning.encrypted_content']);
    expect(JSON.stringify(seen.json)).toMatch(/password=~ficta_[a-z2-7]{20}\\ntoken=~ficta_[a-z2-7]{20}/);
    expect(up.leaks).toEqual([]);

    let patch = '';
    for (const { data } of parseSse(await res.text())) {
      const ev = JSON.parse(data);
      if (ev.type === 'response.custom_tool_call_input.delta') patch += ev.delta;
    }
    expect(patch).toBe(`*** Begin Patch\n*** Add File: out.txt\n+password=${WEIRD}\n+token=${TOKEN}\n*** End Patch\n`);
    expect(proxy.requestLogs().at(-1)).toMatchObject({ provider: 'chatgpt', adapter: 'openai-responses', restoreMisses: 0 });
  });

  it('refuses a zstd body whose decoded size is over the limit, and forwards nothing', async () => {
    const before = up.requests.length;
    const bomb = zstdCompressSync(Buffer.alloc(40 * 1024 * 1024, 0x20));
    const res = await fetch(`${proxy.url}/chatgpt/backend-api/codex/responses`, { method: 'POST', headers: { ...RECORDED.headers, 'content-encoding': 'zstd' }, body: bomb });
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error.type).toBe('ficta_body_too_large');
    expect(up.requests.length).toBe(before);
  });
});

describe('ficta codex with a ChatGPT login', () => {
  const env = (codexHome: string, extra: Record<string, string> = {}): Record<string, string> => ({
    FICTA_HOME: join(dir, 'ficta'),
    FICTA_CHATGPT_UPSTREAM: up.url,
    FICTA_OPENAI_UPSTREAM: up.url,
    CODEX_HOME: codexHome,
    ...extra,
  });

  it('routes it to /chatgpt/backend-api/codex with requires_openai_auth and no env_key; an API-key login keeps /openai/v1', async () => {
    const out = join(dir, 'fake.json');
    const r = await runCli(['codex', '--env-file', join(dir, 'app.env'), '--', 'exec', 'hi'], { env: env(join(dir, 'codex-chatgpt'), { FICTA_CODEX_BIN: FAKE, FAKE_AGENT_OUT: out, FAKE_AGENT_PROMPT: writePrompt('x.txt', TOKEN) }) });
    expect(r.code, r.stderr).toBe(0);
    const seen = JSON.parse(readFileSync(out, 'utf8'));
    const overrides: string[] = seen.args.filter((_: string, i: number) => seen.args[i - 1] === '-c');
    expect(overrides).toEqual([
      'model_provider="ficta"',
      'model_providers.ficta.name="ficta"',
      expect.stringMatching(/^model_providers\.ficta\.base_url="http:\/\/127\.0\.0\.1:\d+\/t\/[A-Za-z0-9_-]{32}\/chatgpt\/backend-api\/codex"$/),
      'model_providers.ficta.wire_api="responses"',
      'model_providers.ficta.requires_openai_auth=true',
      expect.stringMatching(/^chatgpt_base_url="http:\/\/127\.0\.0\.1:\d+\/t\/[A-Za-z0-9_-]{32}\/chatgpt\/backend-api\/"$/),
      'model_providers.ficta.supports_websockets=false',
      'analytics.enabled=false',
      'features.plugins=false',
    ]);
    expect(seen.status).toBe(200);
    expect(up.requests.at(-1)!.url).toBe('/backend-api/codex/responses');

    const apiKey = await runCli(['codex', '--', 'exec', 'hi'], { env: env(join(dir, 'codex-apikey'), { FICTA_CODEX_BIN: FAKE, FAKE_AGENT_OUT: out }) });
    expect(apiKey.code).toBe(0);
    const args: string[] = JSON.parse(readFileSync(out, 'utf8')).args;
    expect(args).toContain('model_providers.ficta.env_key="OPENAI_API_KEY"');
    expect(args.some((a) => a.includes('/openai/v1"'))).toBe(true);
    expect(args.some((a) => a.includes('requires_openai_auth'))).toBe(false);
  });

  it('ficta doctor codex says which login mode it found', async () => {
    const chatgpt = await runCli(['doctor', 'codex'], { env: env(join(dir, 'codex-chatgpt'), { FICTA_CODEX_BIN: FAKE }) });
    expect(chatgpt.stdout).toMatch(/ok\s+codex\s+login mode: ChatGPT account \(auth\.json holds a ChatGPT login/);
    expect(chatgpt.stdout).toMatch(/requires_openai_auth=true/);
    expect(chatgpt.stdout).not.toMatch(/OPENAI_API_KEY is not set/);
    const apiKey = await runCli(['doctor', 'codex'], { env: env(join(dir, 'codex-apikey'), { FICTA_CODEX_BIN: FAKE }) });
    expect(apiKey.stdout).toMatch(/ok\s+codex\s+login mode: API key/);
    expect(`${chatgpt.stdout}${apiKey.stdout}`).not.toContain('sk-stored-key');
  });

  // The real Codex binary (404 MB with its native build) is not a dependency: run it with SLOW=1 and
  // FICTA_TEST_CODEX_BIN=/path/to/codex (0.169.0).
  it.runIf(process.env.SLOW === '1' && process.env.FICTA_TEST_CODEX_BIN !== undefined)(
    'real Codex: apply_patch writes the exact secrets, the mock sees placeholders only, nothing leaves 127.0.0.1',
    async () => {
      const egress = await createEgressRecorder();
      const work = join(dir, 'work');
      mkdirSync(work, { recursive: true });
      const content = `password=${WEIRD} token=${TOKEN}`;
      const before = up.requests.length;
      const code = await new Promise<number | null>((resolve) => {
        const child = spawn(BIN, ['codex', '--env-file', join(dir, 'app.env'), '--', 'exec', '--skip-git-repo-check', '--json', '-s', 'workspace-write', '-m', 'gpt-5.5', writePrompt('out.txt', content)], {
          cwd: work,
          env: { PATH: process.env.PATH, ...SOURCES_ENV, HOME: join(dir, 'home'), ...egress.env, ...env(join(dir, 'codex-chatgpt'), { FICTA_CODEX_BIN: process.env.FICTA_TEST_CODEX_BIN as string }) },
          stdio: ['ignore', 'ignore', 'ignore'],
        });
        child.on('close', resolve);
      });
      await egress.close();
      expect(code).toBe(0);
      expect(readFileSync(join(work, 'out.txt'), 'utf8')).toBe(`${content}\n`);
      expect(up.leaks).toEqual([]);
      expect(up.requests.slice(before).some((q) => q.url === '/backend-api/codex/responses' && q.headers['chatgpt-account-id'] === 'acct-fake-0001')).toBe(true);
      expect(egress.attempts).toEqual([]);
    },
    60_000,
  );
});
