// `ficta detect test NAME STRING…` in-process: match or the first reason not, for a custom rule from
// the config file; PII kinds and terms by name; an unknown name is a usage error; strings never echoed.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { proxyFlags } from '../../src/cli/proxy-options.ts';
import { loadConfig } from '../../src/config/load.ts';
import { base62, crc32 } from '../../src/detect/checksum.ts';
import { runMain } from '../helpers/cli-io.ts';

const CONFIG = `
[secrets]
terms = ["project=Falcon"]

[detect]
pii = ["email"]

[[detect.custom]]
name = "acme-token"
prefix = ["acme_live_", "acme_test_"]
charset = "A-Za-z0-9"
length = [30, 40]
checksum = "crc32-base62"

[[detect.custom]]
name = "billing-key"
charset = "0-9a-f"
length = [32, 32]
keywords = ["billing_key"]
keywordDistance = 8
`;

describe('ficta detect test', () => {
  const home = mkdtempSync(join(tmpdir(), 'ficta-detect-cli-'));
  writeFileSync(join(home, 'config.toml'), CONFIG);
  const env = { FICTA_HOME: home };
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  const body = 'Q7vR2mXk9TzL4wNp8YcB3dHs';
  const good = `acme_live_${body}${base62(crc32(Buffer.from(body)))}`;

  it('says which strings match and why the others do not, without printing them', async () => {
    const bad = good.slice(0, -1) + (good.endsWith('A') ? 'B' : 'A');
    const r = await runMain(['detect', 'test', 'acme-token', `TOKEN=${good}`, bad, 'acme_live_short', 'nothing here', `x${good}`], env);
    expect(r.stdout).toBe(
      [
        `1: match (acme-token, bytes 6-${6 + good.length} of ${good.length + 6})`,
        '2: no match: its CRC32 (the last 6 base62 characters before the suffix) does not match',
        '3: no match: it is 15 characters long, shorter than 30',
        '4: no match: it does not hold the prefix acme_live_ or acme_test_',
        '5: no match: it continues a longer word before it',
        '',
      ].join('\n'),
    );
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).not.toContain(body);
  });

  it('explains keyword rules, and tries PII kinds and terms by name', async () => {
    const hex = '0123456789abcdef0123456789abcdef';
    const r = await runMain(['detect', 'test', 'billing-key', `billing_key: ${hex}`, hex, `billing_key:${' '.repeat(12)}${hex}`, '--json'], env);
    expect(JSON.parse(r.stdout)).toEqual({
      detector: 'billing-key',
      results: [
        { index: 1, match: true, start: 13, end: 45 },
        { index: 2, match: false, why: 'none of its keywords (billing_key) is in it' },
        { index: 3, match: false, why: 'no token of its charset starts within 8 bytes after the keyword' },
      ],
    });
    expect((await runMain(['detect', 'test', 'email', 'mail jane@corp.io'], env)).code).toBe(0);
    expect((await runMain(['detect', 'test', 'term', 'the FALCON team'], env)).stdout).toBe('1: match (term, bytes 4-10 of 15)\n');
    expect((await runMain(['detect', 'test', 'term', 'falconry'], env)).stdout).toBe('1: no match: no term found\n');
  });

  it('ficta scan finds the custom formats too (not terms or PII: they are no credentials to import)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ficta-detect-scan-'));
    try {
      writeFileSync(join(dir, 'app.env'), `ACME=${good}\nOWNER=jane@corp.io\nPROJECT=Falcon\n`);
      const r = await runMain(['scan', dir, '--json'], env);
      expect(r.code).toBe(1);
      expect(JSON.parse(r.stdout).findings.map((f: { kind: string }) => f.kind)).toEqual(['acme-token']);
      expect(r.stdout).not.toContain(good);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--term joins secrets.terms, unioned with the config file\'s', () => {
    const { flags } = proxyFlags({ term: ['customer=Acme Corp', 'Orca'] });
    const loaded = loadConfig({ env, flags });
    expect(loaded.ok && loaded.value.secrets.terms).toEqual(['project=Falcon', 'customer=Acme Corp', 'Orca']);
  });

  it('ficta serve refuses to start with a rule that would match too much, naming it', async () => {
    const file = join(home, 'bad.toml');
    writeFileSync(file, '[[detect.custom]]\nname = "loose"\ncharset = "A-Za-z0-9"\nlength = [32, 40]\n');
    const r = await runMain(['serve', '--config', file, '--no-discover', '--port', '0'], env);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/detect\.custom\.0: custom detector loose refused: a rule with only a charset and a length would match too much/);
  });

  it('refuses an unknown name, listing what the config has', async () => {
    const r = await runMain(['detect', 'test', 'acme', 'x'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no detector is called acme \(the config has: acme-token, billing-key, email, term\)/);
  });
});
