import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codexOverrides, detectCodexLogin } from '../../src/cli/agent-codex.ts';
import { geminiEnv } from '../../src/cli/agent-gemini.ts';
import { opencodeConfig } from '../../src/cli/agent-opencode.ts';
import { baseUrls } from '../../src/server/access.ts';
import { testDir } from '../helpers/temp-dir.ts';

const urls = baseUrls('http://127.0.0.1:9999', 'tok_tok_tok_tok_tok_');

function codexHome(auth: unknown): NodeJS.ProcessEnv {
  const dir = testDir('ficta-codex-home-');
  if (auth !== undefined) writeFileSync(join(dir, 'auth.json'), typeof auth === 'string' ? auth : JSON.stringify(auth));
  return { CODEX_HOME: dir };
}

describe('Codex login detection', () => {
  it('is chatgpt only for tokens without an API key', () => {
    expect(detectCodexLogin(codexHome({ OPENAI_API_KEY: null, tokens: { access_token: 'a', id_token: 'b' } })).mode).toBe('chatgpt');
    expect(detectCodexLogin(codexHome({ auth_mode: 'chatgpt', tokens: { access_token: 'a' } })).mode).toBe('chatgpt');
    expect(detectCodexLogin(codexHome({ OPENAI_API_KEY: 'sk-x', tokens: { access_token: 'a' } })).mode).toBe('api-key');
    expect(detectCodexLogin(codexHome({ auth_mode: 'apikey', tokens: { access_token: 'a' } })).mode).toBe('api-key');
    expect(detectCodexLogin(codexHome({ tokens: { access_token: '' } })).mode).toBe('api-key');
    expect(detectCodexLogin(codexHome(undefined)).mode).toBe('api-key');
    expect(detectCodexLogin(codexHome('{not json')).mode).toBe('api-key');
  });

  it('never puts a value from auth.json in its reason', () => {
    const login = detectCodexLogin(codexHome({ OPENAI_API_KEY: 'sk-secret-value-123', tokens: null }));
    expect(login.reason).not.toContain('sk-secret');
  });

  it('gives a ChatGPT login requires_openai_auth and no env_key', () => {
    const args = codexOverrides(urls, { mode: 'chatgpt' }).filter((a) => a !== '-c');
    expect(args).toContain('model_providers.ficta.base_url="http://127.0.0.1:9999/t/tok_tok_tok_tok_tok_/chatgpt/backend-api/codex"');
    expect(args).toContain('model_providers.ficta.requires_openai_auth=true');
    expect(args.some((a) => a.includes('env_key'))).toBe(false);
  });
});

describe('Gemini CLI and opencode routing', () => {
  it('points Gemini CLI at the proxy and its HTTPS proxy at the proxy itself, loopback exempt', () => {
    expect(geminiEnv(urls)).toMatchObject({
      GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:9999/t/tok_tok_tok_tok_tok_/gemini',
      HTTPS_PROXY: 'http://127.0.0.1:9999',
      NO_PROXY: '127.0.0.1,localhost,::1',
      GEMINI_TELEMETRY_ENABLED: 'false',
    });
  });

  it('adds provider base URLs to the user’s OPENCODE_CONFIG_CONTENT, keeping the rest', () => {
    const merged = JSON.parse(opencodeConfig(urls, JSON.stringify({ model: 'anthropic/x', provider: { anthropic: { options: { baseURL: 'https://elsewhere', timeout: 5 } }, groq: { options: { apiKey: 'k' } } } })));
    expect(merged.model).toBe('anthropic/x');
    expect(merged.provider.anthropic.options).toEqual({ baseURL: 'http://127.0.0.1:9999/t/tok_tok_tok_tok_tok_/anthropic/v1', timeout: 5 });
    expect(merged.provider.openai.options.baseURL).toBe('http://127.0.0.1:9999/t/tok_tok_tok_tok_tok_/openai/v1');
    expect(merged.provider.google.options.baseURL).toBe('http://127.0.0.1:9999/t/tok_tok_tok_tok_tok_/gemini/v1beta');
    expect(merged.provider.groq).toEqual({ options: { apiKey: 'k' } });
    expect(merged).toMatchObject({ autoupdate: false, share: 'disabled' });
    expect(() => opencodeConfig(urls, '[1]')).toThrow(/OPENCODE_CONFIG_CONTENT is not a JSON object/);
  });
});
