// Restore settings: the `restore` table, `[secrets.hosts]`, `--allow-host`, and hosts carried by the
// secret set (union over names sharing a value) from sources and from the config.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { proxyFlags } from '../../src/cli/proxy-options.ts';
import { loadConfig } from '../../src/config/load.ts';
import { buildSecretSet } from '../../src/redact/secret-set.ts';
import { withConfiguredHosts } from '../../src/sinks/config-hosts.ts';
import type { SecretSource } from '../../src/secrets/types.ts';
import { ok } from '../../src/util/result.ts';
import { TEST_KEY } from '../helpers/secret-set.ts';

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});
function home(toml: string): string {
  const d = mkdtempSync(join(tmpdir(), 'ficta-sinks-config-'));
  dirs.push(d);
  writeFileSync(join(d, 'config.toml'), toml);
  return d;
}

describe('restore config', () => {
  test('defaults to guarded with no allowed hosts', () => {
    const r = loadConfig({ env: { FICTA_HOME: home('') } });
    if (!r.ok) throw r.error;
    expect(r.value.restore).toEqual({ toolCalls: 'guarded', allowHosts: [] });
    expect(r.value.secrets.hosts).toEqual({});
  });

  test('normalises hosts and unions --allow-host with restore.allowHosts', () => {
    const h = home('[restore]\ntoolCalls = "all"\nallowHosts = ["API.Example.com."]\n[secrets.hosts]\nGITHUB_TOKEN = ["api.github.com", "*.githubusercontent.com"]\n');
    const { flags } = proxyFlags({ 'allow-host': ['localhost', '[::1]'] });
    const r = loadConfig({ env: { FICTA_HOME: h }, flags });
    if (!r.ok) throw r.error;
    expect(r.value.restore).toEqual({ toolCalls: 'all', allowHosts: ['api.example.com', 'localhost', '::1'] });
    expect(r.value.secrets.hosts).toEqual({ GITHUB_TOKEN: ['api.github.com', '*.githubusercontent.com'] });
  });

  test('a bad --allow-host is a usage error naming the flag', () => {
    expect(() => proxyFlags({ 'allow-host': ['evil.example:443'] })).toThrow(/^usage: serve: --allow-host: hosts: "evil\.example:443" is not a host name/);
  });

  test('a bad entry is an error naming its key and what to give instead', () => {
    const r = loadConfig({ env: { FICTA_HOME: home('[restore]\nallowHosts = ["https://api.github.com"]\n') } });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/^config: restore\.allowHosts\.0: hosts: "https:\/\/api\.github\.com" is a URL: give only its host/);
    const mode = loadConfig({ env: { FICTA_HOME: home('[restore]\ntoolCalls = "some"\n') } });
    expect(!mode.ok && mode.error.message).toMatch(/^config: restore\.toolCalls:/);
    const secret = loadConfig({ env: { FICTA_HOME: home('[secrets.hosts]\nX = ["a b"]\n') } });
    expect(!secret.ok && secret.error.message).toMatch(/^config: secrets\.hosts\.X\.0:/);
  });
});

describe('hosts in the secret set', () => {
  test('each secret carries the union of the hosts of every name sharing its value', () => {
    const set = buildSecretSet(
      [
        { name: 'A', value: 'value-one-xxxxxxxx', hosts: ['api.github.com'] },
        { name: 'B', value: 'value-two-xxxxxxxx' },
        { name: 'A2', value: 'value-one-xxxxxxxx', hosts: ['github.com', 'api.github.com'] },
      ],
      TEST_KEY,
    );
    expect(set.names).toEqual(['A|A2', 'B']);
    expect(set.hosts).toEqual([['api.github.com', 'github.com'], []]);
  });

  test('[secrets.hosts] is added to the entries of every source by name, keeping their own', async () => {
    let watched = 0;
    const source: SecretSource = {
      kind: 'test',
      load: async () => ok([{ name: 'TOKEN', value: 'value-xxxxxxxx', source: 'x', hosts: ['own.example.com'] }, { name: 'OTHER', value: 'other-xxxxxxxx', source: 'x' }]),
      watch: () => {
        watched++;
        return () => undefined;
      },
    };
    const [wrapped] = withConfiguredHosts([source], { TOKEN: ['api.example.com'] });
    const r = await wrapped?.load();
    expect(r?.ok && r.value.map((e) => [e.name, e.hosts])).toEqual([['TOKEN', ['own.example.com', 'api.example.com']], ['OTHER', undefined]]);
    wrapped?.watch?.(() => undefined);
    expect(watched).toBe(1);
  });
});
