// The restore knobs on the command line, in-process: `ficta vault add --host`, `ficta vault hosts`,
// `vault list` with hosts, and `ficta report` with withheld restores (`--fail-on-withhold` exits 3).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, describe, expect, test } from 'vitest';
import type { CliIo } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';
import type { RunReport } from '../../src/server/stats.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'ficta-sinks-cli-'));
  dirs.push(d);
  return d;
}

async function ficta(args: string[], env: NodeJS.ProcessEnv, stdin = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let errText = '';
  stdout.on('data', (d) => (out += d));
  stderr.on('data', (d) => (errText += d));
  const io: CliIo = { stdout, stderr, stdin: Readable.from([Buffer.from(stdin)]), env: { PATH: process.env.PATH, ...env } };
  const code = await main(args, io);
  return { code, stdout: out, stderr: errText };
}

describe('ficta vault hosts', () => {
  test('add --host, show, add and remove, list them; refuse a URL with a usage error', async () => {
    const home = tmp();
    const env = { FICTA_HOME: home, FICTA_VAULT_KEY_FILE: join(home, 'vault.key') };
    expect((await ficta(['vault', 'init', '--key-file', join(home, 'vault.key')], env)).code).toBe(0);
    const add = await ficta(['vault', 'add', 'GITHUB_TOKEN', '--host', 'API.github.com', '--host', '*.githubusercontent.com'], env, 'ghp_cli-hosts-value-0001\n');
    expect(add).toMatchObject({ code: 0, stdout: 'vault: added GITHUB_TOKEN\nvault: GITHUB_TOKEN may be restored towards api.github.com, *.githubusercontent.com\n' });
    expect((await ficta(['vault', 'hosts', 'GITHUB_TOKEN'], env)).stdout).toBe('vault: GITHUB_TOKEN may be restored towards api.github.com, *.githubusercontent.com\n');
    const changed = await ficta(['vault', 'hosts', 'GITHUB_TOKEN', '--add', 'github.com', '--rm', '*.githubusercontent.com', '--json'], env);
    expect(JSON.parse(changed.stdout)).toEqual({ name: 'GITHUB_TOKEN', hosts: ['api.github.com', 'github.com'] });
    expect((await ficta(['vault', 'add', 'PLAIN', '--from-env', 'V'], { ...env, V: 'plain-value-0000001' })).code).toBe(0);
    const list = await ficta(['vault', 'list', '--json'], env);
    expect((JSON.parse(list.stdout) as Array<{ name: string; hosts: string[] }>).map((r) => [r.name, r.hosts])).toEqual([['GITHUB_TOKEN', ['api.github.com', 'github.com']], ['PLAIN', []]]);
    expect((await ficta(['vault', 'list'], env)).stdout).toMatch(/HOSTS\n.*api\.github\.com,github\.com\n.*-\n$/);
    const bad = await ficta(['vault', 'hosts', 'GITHUB_TOKEN', '--add', 'https://evil.example'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^ficta: usage: vault hosts: --add: hosts: "https:\/\/evil\.example" is a URL: give only its host.*; see ficta vault hosts --help\n$/);
    const missing = await ficta(['vault', 'hosts', 'NOPE', '--add', 'x.example.com'], env);
    expect(missing).toMatchObject({ code: 1, stderr: 'ficta: vault: no secret named NOPE in the vault\n' });
    expect(add.stdout + changed.stdout + list.stdout).not.toContain('ghp_cli-hosts-value-0001');
  });
});

describe('ficta report with withheld restores', () => {
  const report: RunReport = {
    requests: 3,
    byOutcome: { ok: 3 },
    redactions: { GITHUB_TOKEN: 2 },
    restores: { GITHUB_TOKEN: 1 },
    blocks: 0,
    blockedBySecret: {},
    restoreMisses: 0,
    upstreamErrors: 0,
    withheld: 2,
    withheldBySecret: { GITHUB_TOKEN: { 'network:evil.example': 2 } },
  };

  test('prints the withheld count and exits 3 with --fail-on-withhold, naming how to allow', async () => {
    const file = join(tmp(), 'report.json');
    writeFileSync(file, JSON.stringify(report));
    const plain = await ficta(['report', file], {});
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain('withheld        2 (GITHUB_TOKEN network:evil.example 2)\n');
    const failing = await ficta(['report', file, '--fail-on-withhold'], {});
    expect(failing.code).toBe(3);
    expect(failing.stderr).toBe('ficta: report: 2 restore(s) withheld from tool calls: GITHUB_TOKEN network:evil.example ×2; to allow a host: --allow-host evil.example, or per secret: ficta vault hosts GITHUB_TOKEN --add evil.example ([secrets.hosts] for env-file secrets)\n');
  });

  test('a report with nothing withheld, or one written before withheld existed, passes', async () => {
    const dir = tmp();
    const none = join(dir, 'none.json');
    writeFileSync(none, JSON.stringify({ ...report, withheld: 0, withheldBySecret: {} }));
    expect((await ficta(['report', none, '--fail-on-withhold'], {})).code).toBe(0);
    const old = join(dir, 'old.json');
    const { withheld: _w, withheldBySecret: _b, ...before } = report;
    writeFileSync(old, JSON.stringify(before));
    const r = await ficta(['report', old, '--fail-on-withhold'], {});
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('withheld        0\n');
  });
});
