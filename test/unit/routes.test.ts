import { describe, expect, it } from 'vitest';
import { createRouter } from '../../src/providers/routes.ts';
import { BUILT_IN_UPSTREAMS, createUpstreamTable } from '../../src/providers/upstreams.ts';

const table = createUpstreamTable(BUILT_IN_UPSTREAMS, { openrouter: 'https://openrouter.ai', azure: 'https://x.openai.azure.com/', proxied: 'http://10.0.0.1:8000/base/' });
if (!table.ok) throw table.error;
const router = createRouter(table.value);

function route(target: string): { upstream: string; target: string; adapter: string; errors: string; authQuery: string[] } | undefined {
  const r = router.resolve(target);
  return r && { upstream: r.provider, target: r.target, adapter: r.adapter.id, errors: r.errorShape.id, authQuery: [...r.authQuery] };
}

describe('routes (DESIGN §2)', () => {
  it('strips the built-in prefixes and picks the adapter from the path', () => {
    expect(route('/anthropic/v1/messages?beta=true')).toEqual({ upstream: 'anthropic', target: '/v1/messages?beta=true', adapter: 'anthropic-messages', errors: 'anthropic', authQuery: [] });
    expect(route('/gemini/v1beta/models/g:streamGenerateContent?alt=sse')).toEqual({ upstream: 'gemini', target: '/v1beta/models/g:streamGenerateContent?alt=sse', adapter: 'gemini', errors: 'gemini', authQuery: ['key'] });
    expect(route('/gemini/v1beta/models/g:generateContent')).toMatchObject({ adapter: 'gemini' });
    expect(route('/gemini/v1beta/models/g:countTokens')).toMatchObject({ adapter: 'generic' });
    expect(route('/ollama/api/chat')).toMatchObject({ upstream: 'ollama', target: '/api/chat', adapter: 'ollama', errors: 'ollama' });
    expect(route('/ollama/api/generate')).toMatchObject({ adapter: 'ollama' });
    expect(route('/ollama/api/tags')).toMatchObject({ adapter: 'generic' });
    expect(route('/ollama/v1/chat/completions')).toMatchObject({ upstream: 'ollama', adapter: 'openai-chat', errors: 'openai' });
    expect(route('/chatgpt/backend-api/codex/responses')).toMatchObject({ upstream: 'chatgpt', target: '/backend-api/codex/responses', adapter: 'openai-responses', errors: 'openai' });
  });

  it('keeps the unprefixed conveniences: /v1 (Anthropic or OpenAI, Gemini for models/{m}:method) and /v1beta', () => {
    expect(route('/v1/messages')).toMatchObject({ upstream: 'anthropic', target: '/v1/messages' });
    expect(route('/v1/responses')).toMatchObject({ upstream: 'openai', adapter: 'openai-responses' });
    expect(route('/v1/models/gemini-x:generateContent')).toMatchObject({ upstream: 'gemini', errors: 'gemini' });
    expect(route('/v1beta/models')).toMatchObject({ upstream: 'gemini', target: '/v1beta/models' });
  });

  it('routes named upstreams by their first segment, with the adapter and error shape of the path', () => {
    expect(route('/openrouter/api/v1/chat/completions')).toEqual({ upstream: 'openrouter', target: '/api/v1/chat/completions', adapter: 'openai-chat', errors: 'openai', authQuery: [] });
    expect(route('/openrouter/api/v1/messages')).toMatchObject({ adapter: 'anthropic-messages', errors: 'anthropic' });
    expect(route('/proxied/v1beta/models/g:generateContent?key=k')).toMatchObject({ adapter: 'gemini', errors: 'gemini', authQuery: ['key'] });
    expect(route('/proxied/v1/projects/p/locations/l/publishers/google/models/g:streamGenerateContent')).toMatchObject({ adapter: 'gemini' });
    expect(route('/azure/openai/deployments/d/chat/completions?api-version=2024-10-21')).toMatchObject({ upstream: 'azure', adapter: 'openai-chat' });
    expect(router.resolve('/proxied/v1/x')?.upstream.basePath).toBe('/base');
  });

  it('matches whole segments only, and nothing else', () => {
    expect(route('/anthropicx/v1/messages')).toBeUndefined();
    expect(route('/openrouterx/v1')).toBeUndefined();
    expect(route('/healthz')).toBeUndefined();
    expect(route('/')).toBeUndefined();
    expect(route('/anthropic')).toMatchObject({ upstream: 'anthropic', target: '/' });
    expect(route('/gemini?key=k')).toMatchObject({ upstream: 'gemini', target: '/?key=k' });
  });

  it('refuses named upstreams that take a built-in route', () => {
    for (const name of ['anthropic', 'gemini', 'v1', 'v1beta', 't', 'healthz']) {
      const t = createUpstreamTable(BUILT_IN_UPSTREAMS, { [name]: 'https://x.example' });
      expect(!t.ok && t.error.message).toBe(`config: upstreams.${name}: the name "${name}" collides with the built-in route /${name}/; choose another name`);
    }
  });
});
