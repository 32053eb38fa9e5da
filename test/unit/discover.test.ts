// Zero-config discovery and detection settings: which files and variables are picked up, what is left
// alone, the start-up lines (counts and names, never values), and the config, flag and variable that
// choose the detection mode.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatDiscoveryNotice } from '../../src/cli/discovery-notice.ts';
import { parseCommandLine } from '../../src/cli/args.ts';
import { proxyFlags } from '../../src/cli/proxy-options.ts';
import { spec as serveSpec } from '../../src/cli/serve.ts';
import { checkDetection, checkDiscovery } from '../../src/cli/doctor-detect.ts';
import { checkProtected } from '../../src/cli/doctor-checks.ts';
import { loadConfig } from '../../src/config/load.ts';
import type { Config } from '../../src/config/schema.ts';
import { createDetector } from '../../src/detect/detector.ts';
import { createCredentialFinder } from '../../src/detect/find.ts';
import { discoverSources, isSecretName } from '../../src/secrets/discover.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'ficta-discover-unit-'));
  dirs.push(d);
  return d;
};

describe('zero-config discovery', () => {
  it('takes names that say secret and leaves paths, ids, sockets and its own variables', () => {
    for (const n of ['GITHUB_TOKEN', 'OPENAI_API_KEY', 'AWS_SECRET_ACCESS_KEY', 'DB_PASSWORD', 'PGPASSWORD', 'DATABASE_URL', 'SENTRY_DSN', 'NPM_AUTH_TOKEN', 'client_secret']) {
      expect(isSecretName(n), n).toBe(true);
    }
    for (const n of ['FICTA_VAULT_PASSPHRASE', 'SSH_AUTH_SOCK', 'AWS_ACCESS_KEY_ID', 'GPG_KEY', 'TOKENIZERS_PARALLELISM', 'PASSWORD_STORE_DIR', 'HOME', 'KEYBOARD', 'API_KEY_FILE']) {
      expect(isSecretName(n), n).toBe(false);
    }
  });

  it('reads .env, .env.local and .env.*.local (not .env.example), skips short values, confirms credentials in other variables', () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, '.env'), 'APP_SECRET=long-enough-value-1\nPORT=3000\n');
    writeFileSync(join(cwd, '.env.local'), 'LOCAL=another-long-value-2\n');
    writeFileSync(join(cwd, '.env.test.local'), 'T=a-third-long-value-3\n');
    writeFileSync(join(cwd, '.env.example'), 'EXAMPLE=never-read-value-4\n');
    const env = {
      API_TOKEN: 'env-token-value-5',
      SHORT_TOKEN: 'short',
      CONFIG_DIR_PASSWORD: '/home/dev/.secrets',
      SERVICE: 'mysql://app:Wq3x9LmZp2@db/app',
      EDITOR: 'vim',
    };
    const found = discoverSources({ cwd, env, finder: createCredentialFinder(createDetector()) });
    expect(found.map((d) => [d.where, d.count, d.names])).toEqual([
      ['./.env', 1, []],
      ['./.env.local', 1, []],
      ['./.env.test.local', 1, []],
      ['the environment', 2, ['API_TOKEN', 'SERVICE']],
    ]);
    expect(formatDiscoveryNotice(found)).toEqual([
      'discovered 1 secret in ./.env',
      'discovered 1 secret in ./.env.local',
      'discovered 1 secret in ./.env.test.local',
      'discovered 2 secrets in the environment (API_TOKEN, SERVICE); --no-discover turns this off',
    ]);
  });

  it('refuses to start on a .env it found but cannot parse, naming the file and --no-discover', () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, '.env'), 'NOT A DOTENV LINE\n');
    expect(() => discoverSources({ cwd, env: {} })).toThrow(/\.env: line 1: .*--no-discover/);
  });

  it('chooses the detection mode by config, FICTA_DETECT and --detect, and rejects anything else', () => {
    const home = tempDir();
    expect(loadConfig({ env: { FICTA_HOME: home } }).ok && loadConfig({ env: { FICTA_HOME: home } })).toMatchObject({ value: { detect: { mode: 'redact', allow: [] }, secrets: { discover: 'auto' } } });
    const viaEnv = loadConfig({ env: { FICTA_HOME: home, FICTA_DETECT: 'block' } });
    expect(viaEnv.ok && viaEnv.value.detect.mode).toBe('block');
    const viaFlag = loadConfig({ env: { FICTA_HOME: home, FICTA_DETECT: 'block' }, flags: proxyFlags({ detect: 'off', 'no-discover': true }).flags });
    expect(viaFlag.ok && [viaFlag.value.detect.mode, viaFlag.value.secrets.discover]).toEqual(['off', false]);
    const bad = loadConfig({ env: { FICTA_HOME: home, FICTA_DETECT: 'loud' } });
    expect(bad.ok).toBe(false);
    expect(() => parseCommandLine(serveSpec, ['--detect', 'loud'])).toThrow(/^usage: serve: --detect must be one of redact, block, off/);
    expect(() => proxyFlags({ discover: true, 'no-discover': true })).toThrow(/exclude each other/);
  });
});

describe('doctor: discovery and detection as serve would see them', () => {
  const config = (overrides: Record<string, unknown> = {}): Config => {
    const loaded = loadConfig({ env: { FICTA_HOME: tempDir() }, flags: overrides });
    if (!loaded.ok) throw loaded.error;
    return loaded.value;
  };
  const collect = (): { checks: string[]; add: (l: string, a: string, m: string) => void } => {
    const checks: string[] = [];
    return { checks, add: (l, a, m) => void checks.push(`${l} ${a} ${m}`) };
  };

  it('lists what discovery would register, only when serve would discover, and fails on a .env that does not parse', () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, '.env'), 'APP_SECRET=long-enough-value-1\n');
    const env = { API_TOKEN: 'env-token-value-5' };
    const auto = collect();
    expect(checkDiscovery(config(), env, cwd, false, auto.add)).toBe(2);
    expect(auto.checks).toEqual(['ok secrets discovered 1 secret in ./.env', 'ok secrets discovered 1 secret in the environment (API_TOKEN); --no-discover turns this off']);
    const cases: Array<[Config, boolean]> = [
      [config({ secrets: { envFiles: [join(cwd, '.env')] } }), false],
      [config(), true],
      [config({ secrets: { discover: false } }), false],
    ];
    for (const [cfg, vaultUsed] of cases) {
      const none = collect();
      expect(checkDiscovery(cfg, env, cwd, vaultUsed, none.add)).toBe(0);
      expect(none.checks).toEqual([]);
    }
    expect(checkDiscovery(config({ secrets: { discover: true } }), env, cwd, true, collect().add)).toBe(2);
    writeFileSync(join(cwd, '.env'), 'NOT A DOTENV LINE\n');
    const bad = collect();
    expect(checkDiscovery(config(), env, cwd, false, bad.add)).toBe(0);
    expect(bad.checks[0]).toMatch(/^fail secrets .*\.env: line 1: .*--no-discover/);
    for (const c of [...auto.checks, ...bad.checks]) expect(c).not.toMatch(/long-enough-value|env-token-value/);
  });

  it('names the detection mode; nothing registered is a warning with detection on, a failure with it off', () => {
    const on = collect();
    checkDetection(config(), on.add);
    checkProtected(0, true, on.add);
    expect(on.checks[0]).toMatch(/^ok detect redact: credentials of \d+ well-known formats nobody registered are redacted$/);
    expect(on.checks[1]).toMatch(/^warn secrets no secret registered/);
    const off = collect();
    checkDetection(config({ detect: { mode: 'off' } }), off.add);
    checkProtected(0, false, off.add);
    expect(off.checks.map((c) => c.split(' ').slice(0, 2).join(' '))).toEqual(['warn detect', 'fail secrets']);
  });
});
