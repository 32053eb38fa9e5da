import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { proxyFlags } from '../../src/cli/proxy-options.ts';
import { loadConfig } from '../../src/config/load.ts';
import { testDir } from '../helpers/temp-dir.ts';

function home(files: Record<string, string> = {}): string {
  const dir = testDir('ficta-config-');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe('loadConfig', () => {
  it('fills every default from the schema', () => {
    const r = loadConfig({ env: { FICTA_HOME: home() } });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toMatchObject({ host: '127.0.0.1', port: 8787, upstreams: { anthropic: 'https://api.anthropic.com', openai: 'https://api.openai.com' }, limits: { maxBodyBytes: 32 * 1024 * 1024 }, log: { level: 'info', format: 'auto' }, secrets: { require: false, allowMissing: false }, failOnBlock: false });
  });

  it('calls a bad value given as a flag a usage error (exit 2), and one from a file or the environment a config error', () => {
    const h = home();
    const flag = loadConfig({ env: { FICTA_HOME: h }, flags: { log: { level: 'loud' } } });
    expect(!flag.ok && flag.error.code).toBe('FICTA_USAGE');
    expect(!flag.ok && flag.error.message).toMatch(/^config: log\.level: /);
    const env = loadConfig({ env: { FICTA_HOME: h, FICTA_LOG_LEVEL: 'loud' }, flags: { port: 1 } });
    expect(!env.ok && env.error.code).toBe('FICTA_CONFIG_INVALID');
    const file = loadConfig({ env: { FICTA_HOME: home({ 'config.toml': 'port = "x"\n' }) }, flags: { log: { level: 'info' } } });
    expect(!file.ok && file.error.code).toBe('FICTA_CONFIG_INVALID');
  });

  it('applies file < environment < flags, and unions secret lists', () => {
    const h = home({ 'config.toml': 'port = 9000\nhost = "127.0.0.2"\n[secrets]\nenvFiles = ["a.env"]\n[upstreams]\nopenai = "http://file.example"\n' });
    const r = loadConfig({ env: { FICTA_HOME: h, FICTA_PORT: '9100', FICTA_OPENAI_UPSTREAM: 'http://env.example' }, flags: { port: 9200, secrets: { envFiles: ['b.env'] } } });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.port).toBe(9200);
    expect(r.value.host).toBe('127.0.0.2');
    expect(r.value.upstreams.openai).toBe('http://env.example');
    expect(r.value.secrets.envFiles).toEqual(['a.env', 'b.env']);
  });

  it('names the key of an invalid value, and of an unknown key', () => {
    const bad = loadConfig({ env: { FICTA_HOME: home({ 'config.toml': '[limits]\nmaxBodyBytes = -5\n' }) } });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error.message).toMatch(/^config: limits\.maxBodyBytes: .*config\.toml/);
    const unknown = loadConfig({ env: { FICTA_HOME: home({ 'config.toml': '[upstreams]\nanthropc = "http://x"\n' }) } });
    expect(unknown.ok).toBe(false);
    if (!unknown.ok) expect(unknown.error.message).toMatch(/^config: upstreams\.anthropc: unknown key/);
  });

  it('reports a TOML syntax error with its line, and a non-numeric FICTA_PORT', () => {
    const r = loadConfig({ env: { FICTA_HOME: home({ 'config.toml': 'port = 1\nhost = \n' }) } });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/not valid TOML \(line 2\)/);
    const p = loadConfig({ env: { FICTA_HOME: home(), FICTA_PORT: 'eighty' } });
    expect(p.ok).toBe(false);
    if (!p.ok) expect(p.error.message).toBe('config: FICTA_PORT must be a whole number');
  });

  it('reads a JSON config given with --config', () => {
    const h = home({ 'c.json': JSON.stringify({ port: 1234 }) });
    const r = loadConfig({ env: { FICTA_HOME: h }, configFile: join(h, 'c.json') });
    expect(r.ok && r.value.port).toBe(1234);
  });

  it('validates the access token', () => {
    const r = loadConfig({ env: { FICTA_HOME: home(), FICTA_TOKEN: 'short' } });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/^config: token: must be 16 to 128 characters/);
  });
});

describe('upstreams', () => {
  it('has the DESIGN §2 defaults for Gemini, Ollama and the ChatGPT backend, overridden by FICTA_*_UPSTREAM', () => {
    const d = loadConfig({ env: { FICTA_HOME: home() } });
    expect(d.ok && d.value.upstreams).toMatchObject({ gemini: 'https://generativelanguage.googleapis.com', ollama: 'http://127.0.0.1:11434', chatgpt: 'https://chatgpt.com' });
    const e = loadConfig({ env: { FICTA_HOME: home(), FICTA_GEMINI_UPSTREAM: 'http://g.example', FICTA_OLLAMA_UPSTREAM: 'http://o.example:1', FICTA_CHATGPT_UPSTREAM: 'http://c.example' } });
    expect(e.ok && e.value.upstreams).toMatchObject({ gemini: 'http://g.example', ollama: 'http://o.example:1', chatgpt: 'http://c.example' });
  });

  it('takes --gemini-upstream, --ollama-upstream and --chatgpt-upstream over the environment', () => {
    const { flags } = proxyFlags({ 'gemini-upstream': 'http://g-flag.example', 'ollama-upstream': 'http://o-flag.example:2', 'chatgpt-upstream': 'http://c-flag.example' });
    const r = loadConfig({ env: { FICTA_HOME: home(), FICTA_GEMINI_UPSTREAM: 'http://g.example', FICTA_OLLAMA_UPSTREAM: 'http://o.example:1' }, flags });
    expect(r.ok && r.value.upstreams).toMatchObject({ gemini: 'http://g-flag.example', ollama: 'http://o-flag.example:2', chatgpt: 'http://c-flag.example' });
  });

  it('reads named upstreams from [upstreams.<name>] tables, FICTA_UPSTREAM_<NAME> and flags, flags winning', () => {
    const h = home({ 'config.toml': '[upstreams.openrouter]\nurl = "https://file.example"\n[upstreams.groq]\nurl = "https://api.groq.com/openai"\n' });
    const r = loadConfig({ env: { FICTA_HOME: h, FICTA_UPSTREAM_OPENROUTER: 'https://env.example', FICTA_UPSTREAM_MY_VLLM: 'http://127.0.0.1:8000' }, flags: { upstreams: { groq: { url: 'https://flag.example' } } } });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.upstreams).toMatchObject({ openrouter: { url: 'https://env.example' }, groq: { url: 'https://flag.example' }, my_vllm: { url: 'http://127.0.0.1:8000' } });
  });

  it('takes named upstreams in any case, in the file, the environment and flags, routed lowercased', () => {
    const file = loadConfig({ env: { FICTA_HOME: home({ 'config.toml': '[upstreams.OpenRouter]\nurl = "https://file.example"\n[upstreams.GROQ]\nurl = "https://g.example"\n' }) } });
    expect(file.ok && file.value.upstreams).toMatchObject({ openrouter: { url: 'https://file.example' }, groq: { url: 'https://g.example' } });
    expect(file.ok && Object.keys(file.value.upstreams)).not.toContain('OpenRouter');
    const env = loadConfig({ env: { FICTA_HOME: home(), FICTA_UPSTREAM_My_Vllm: 'http://127.0.0.1:8000' } });
    expect(env.ok && env.value.upstreams).toMatchObject({ my_vllm: { url: 'http://127.0.0.1:8000' } });
    const { flags } = proxyFlags({ upstream: ['OpenRouter=https://flag.example'] });
    expect(flags).toEqual({ upstreams: { openrouter: { url: 'https://flag.example' } } });
    // A flag in another case replaces the file's entry: one route, the flag winning.
    const both = loadConfig({ env: { FICTA_HOME: home({ 'config.toml': '[upstreams.OpenRouter]\nurl = "https://file.example"\n' }) }, flags: { upstreams: { OPENROUTER: { url: 'https://flag.example' } } } });
    expect(both.ok && both.value.upstreams).toMatchObject({ openrouter: { url: 'https://flag.example' } });
    // Two spellings of one route in one source are refused, naming the second.
    const twice = loadConfig({ env: { FICTA_HOME: home({ 'config.toml': '[upstreams.openrouter]\nurl = "https://a.example"\n[upstreams.OpenRouter]\nurl = "https://b.example"\n' }) } });
    expect(!twice.ok && twice.error.message).toMatch(/^config: upstreams\.OpenRouter: the same route as "openrouter" \(names are routed lowercased\)/);
    // What cannot be a name is still refused, and a built-in in another case is still the built-in route.
    expect(() => proxyFlags({ upstream: ['Open.Router=https://x.example'] })).toThrow(/--upstream: a name is 1 to 63 letters/);
    expect(() => proxyFlags({ upstream: ['Gemini=https://x.example'] })).toThrow(/the name "gemini" collides with the built-in route/);
    expect(() => proxyFlags({ upstream: ['-x=https://x.example'] })).toThrow(/a name is 1 to 63 letters/);
  });

  it('refuses a named upstream that collides with a built-in route, naming it', () => {
    const file = loadConfig({ env: { FICTA_HOME: home({ 'config.toml': '[upstreams.v1beta]\nurl = "https://x.example"\n' }) } });
    expect(!file.ok && file.error.message).toMatch(/^config: upstreams\.v1beta: the name "v1beta" collides with the built-in route \/v1beta\//);
    const env = loadConfig({ env: { FICTA_HOME: home(), FICTA_UPSTREAM_GEMINI: 'https://x.example' } });
    expect(!env.ok && env.error.message).toBe('config: FICTA_UPSTREAM_GEMINI: the name "gemini" collides with the built-in route /gemini/; choose another name');
    const table = loadConfig({ env: { FICTA_HOME: home({ 'config.toml': '[upstreams.openai]\nurl = "https://x.example"\n' }) } });
    expect(table.ok).toBe(false);
    const bad = loadConfig({ env: { FICTA_HOME: home({ 'config.toml': '[upstreams."Open Router"]\nurl = "https://x.example"\n' }) } });
    expect(!bad.ok && bad.error.message).toMatch(/^config: upstreams\.Open Router: a name is 1 to 63 letters, digits, "-" or "_", starting with a letter or digit \(routed lowercased\)/);
  });
});

describe('config/ficta.example.toml', () => {
  it('is a valid config whose values are the defaults', () => {
    const example = join(import.meta.dirname, '../../config/ficta.example.toml');
    const h = home();
    const fromExample = loadConfig({ env: { FICTA_HOME: h }, configFile: example });
    const defaults = loadConfig({ env: { FICTA_HOME: h } });
    expect(fromExample.ok).toBe(true);
    if (fromExample.ok && defaults.ok) expect(fromExample.value).toEqual(defaults.value);
  });
});
