// `[[sources]]` at run time: each kind read, Kubernetes' `..data` swap seen, a failing read keeping the
// last good values, removed values retained for `retain`, readiness only once every source has loaded.

import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseOutput, readSource } from '../../src/gateway/source-kinds.ts';
import { createOrgSources, type OrgSources } from '../../src/gateway/sources.ts';
import { SourcesConfigSchema, type SourceConfig } from '../../src/gateway/sources-config.ts';
import { loadConfig } from '../../src/config/load.ts';

const dirs: string[] = [];
const opened: OrgSources[] = [];
afterEach(() => {
  for (const o of opened.splice(0)) o.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'ficta-sources-'));
  dirs.push(d);
  return d;
}
function parse(list: unknown[]): SourceConfig[] {
  return SourcesConfigSchema.parse(list);
}
async function open(list: unknown[], options: Parameters<typeof createOrgSources>[1] = { env: {} }): Promise<OrgSources> {
  const o = await createOrgSources(parse(list), options);
  opened.push(o);
  return o;
}
async function values(o: OrgSources): Promise<Record<string, string>> {
  const r = await o.source.load();
  if (!r.ok) throw r.error;
  return Object.fromEntries(r.value.map((e) => [`${e.source}/${e.name}`, e.value]));
}

/** A Kubernetes Secret volume: visible names link into `..data`, which links to a timestamped directory. */
function k8sVolume(dir: string, generation: string, files: Record<string, string>): void {
  const gen = join(dir, `..${generation}`);
  mkdirSync(gen);
  for (const [n, v] of Object.entries(files)) writeFileSync(join(gen, n), v);
  symlinkSync(`..${generation}`, join(dir, '..data_tmp'));
  renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
  for (const n of Object.keys(files)) {
    try {
      symlinkSync(join('..data', n), join(dir, n));
    } catch {
      // already linked from an earlier generation
    }
  }
}

async function until(check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('[[sources]] config', () => {
  it('refuses unknown keys, missing groups, duplicate names and bad durations, naming the path', () => {
    expect(SourcesConfigSchema.safeParse([{ name: 'a', type: 'dir', path: '/x', groups: ['g'], refresh: '30s' }]).success).toBe(true);
    const bad = (v: unknown): string => {
      const r = SourcesConfigSchema.safeParse(v);
      return r.success ? 'ok' : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    };
    expect(bad([{ name: 'a', type: 'dir', path: '/x', groups: ['g'], colour: 'red' }])).toMatch(/colour|unrecognized/i);
    expect(bad([{ name: 'a', type: 'dir', path: '/x', groups: [] }])).toMatch(/^0\.groups/);
    expect(bad([{ name: 'a', type: 'env', prefix: 'A_', groups: ['g'] }, { name: 'a', type: 'env', prefix: 'B_', groups: ['g'] }])).toMatch(/^1\.name: another source/);
    expect(bad([{ name: 'a', type: 'command', command: ['x'], groups: ['g'], timeout: 'soon' }])).toMatch(/^0\.timeout: must be a duration/);
    expect(bad([{ name: 'a', type: 'vault', groups: ['g'] }])).not.toBe('ok');
  });
});

describe('[[sources]] in a config file', () => {
  it('reads the TOML array of tables (durations as strings) and names the path of a bad key', () => {
    const d = tmp();
    writeFileSync(
      join(d, 'config.toml'),
      '[[sources]]\nname = "platform"\ntype = "dir"\npath = "/etc/ficta/secrets/platform"\ngroups = ["platform", "sre"]\nrefresh = "30s"\n\n[[sources]]\nname = "doppler"\ntype = "command"\ncommand = ["doppler", "secrets", "download", "--no-file", "--format", "env"]\ngroups = ["*"]\nretain = "1d"\n',
    );
    const r = loadConfig({ env: { FICTA_HOME: d } });
    expect(r.ok && r.value.sources).toEqual([
      { name: 'platform', type: 'dir', path: '/etc/ficta/secrets/platform', groups: ['platform', 'sre'], refresh: 30_000 },
      { name: 'doppler', type: 'command', command: ['doppler', 'secrets', 'download', '--no-file', '--format', 'env'], groups: ['*'], retain: 86_400_000, timeout: 30_000 },
    ]);
    writeFileSync(join(d, 'config.toml'), '[[sources]]\nname = "p"\ntype = "dir"\npath = "/x"\ngroups = ["g"]\nrefresh = 30\n');
    const bad = loadConfig({ env: { FICTA_HOME: d } });
    expect(!bad.ok && bad.error.message).toMatch(/sources\.0\.refresh/);
  });
});

describe('source kinds', () => {
  it('reads a dotenv file, a directory (one trailing newline trimmed), and environment variables by prefix', async () => {
    const d = tmp();
    writeFileSync(join(d, 'org.env'), 'DB_PASSWORD="pa ss\\nword-1"\nAPI_KEY=api-key-value-2\n');
    const vol = join(d, 'vol');
    mkdirSync(vol);
    k8sVolume(vol, '2026_11_27_a', { TOKEN: 'token-value-3\n', MULTI: 'line1\nline2\n\n', CRLF: 'crlf-value-4\r\n' });
    const o = await open(
      [
        { name: 'file', type: 'dotenv', path: join(d, 'org.env'), groups: ['g'] },
        { name: 'k8s', type: 'dir', path: vol, groups: ['g'] },
        { name: 'envs', type: 'env', prefix: 'ORG_', groups: ['g'] },
      ],
      { env: { ORG_ONE: 'env-value-5', OTHER: 'not-this-one', ORG_: 'bare-prefix' } },
    );
    expect(await values(o)).toEqual({
      'file/DB_PASSWORD': 'pa ss\nword-1',
      'file/API_KEY': 'api-key-value-2',
      'k8s/CRLF': 'crlf-value-4',
      'k8s/MULTI': 'line1\nline2\n',
      'k8s/TOKEN': 'token-value-3',
      'envs/ORG_ONE': 'env-value-5',
    });
    expect(o.ready()).toBe(true);
    expect(o.status().map((s) => [s.name, s.values, s.lastResult])).toEqual([
      ['file', 2, 'ok'],
      ['k8s', 3, 'ok'],
      ['envs', 1, 'ok'],
    ]);
  });

  it('runs a command without a shell: dotenv, flat JSON or vault JSON on stdout; stderr never read; failures named without values', async () => {
    const node = process.execPath;
    const run = (script: string, timeout = '10s') => readSource(parse([{ name: 'cmd', type: 'command', command: [node, '-e', script], groups: ['g'], timeout }])[0]!, {});
    const dotenv = await run(`process.stdout.write('A=alpha-value-1\\nB="beta value 2"\\n'); process.stderr.write('stderr-secret-value-9')`);
    expect(dotenv.ok && dotenv.value).toEqual([{ name: 'A', value: 'alpha-value-1' }, { name: 'B', value: 'beta value 2' }]);
    const json = await run(`console.log(JSON.stringify({ A: 'alpha-value-1' }))`);
    expect(json.ok && json.value).toEqual([{ name: 'A', value: 'alpha-value-1' }]);
    const vault = await run(`console.log(JSON.stringify({ request_id: 'r', lease_duration: 0, data: { data: { A: 'alpha-value-1' }, metadata: { version: 3 } } }))`);
    expect(vault.ok && vault.value).toEqual([{ name: 'A', value: 'alpha-value-1' }]);
    const failed = await run(`process.stderr.write('stderr-secret-value-9'); process.exit(3)`);
    expect(!failed.ok && failed.error.message).toBe(`secrets: source cmd: ${node} exited with code 3`);
    const slow = await run('setTimeout(() => {}, 10000)', '200ms');
    expect(!slow.ok && slow.error.message).toMatch(/stopped by SIGKILL/);
    const nested = parseOutput('cmd', JSON.stringify({ A: { b: 'nested-secret-1' } }));
    expect(!nested.ok && nested.error.message).toBe('secrets: source cmd: A is not a string (the JSON object must be flat: name → value)');
    const missing = await readSource(parse([{ name: 'cmd', type: 'command', command: ['/nonexistent/ficta-no-such-tool'], groups: ['g'] }])[0]!, {});
    expect(!missing.ok && missing.error.message).toMatch(/^secrets: source cmd: cannot run \/nonexistent\/ficta-no-such-tool: ENOENT/);
  });
});

describe('sources at run time', () => {
  it("sees Kubernetes' atomic ..data swap through the directory watch and keeps the replaced value", async () => {
    const vol = tmp();
    k8sVolume(vol, 'gen_a', { DB: 'first-value-1\n' });
    const o = await open([{ name: 'k8s', type: 'dir', path: vol, groups: ['g'], refresh: '1h' }]);
    let changes = 0;
    o.source.watch!(() => changes++);
    k8sVolume(vol, 'gen_b', { DB: 'second-value-2\n' });
    await until(() => changes > 0);
    const r = await o.source.load();
    expect(r.ok && r.value.map((e) => e.value).sort()).toEqual(['first-value-1', 'second-value-2']);
    expect(o.status()[0]).toMatchObject({ version: 2, values: 1, retained: 1, lastResult: 'ok' });
  });

  it('keeps the last good values when a read fails, and says so in its status', async () => {
    const d = tmp();
    const path = join(d, 'org.env');
    writeFileSync(path, 'A=alpha-value-1\n');
    const results: Array<string | undefined> = [];
    const o = await open([{ name: 'file', type: 'dotenv', path, groups: ['g'] }], { env: {}, onResult: (_s, e) => results.push(e?.message) });
    writeFileSync(path, 'A="unterminated\n');
    await o.refreshAll();
    expect(await values(o)).toEqual({ 'file/A': 'alpha-value-1' });
    expect(o.status()[0]).toMatchObject({ lastResult: 'error', values: 1, version: 1 });
    expect(o.status()[0]!.error).toMatch(/line 1: unterminated double-quoted value/);
    expect(results.at(-1)).not.toContain('alpha');
    rmSync(path);
    await o.refreshAll();
    expect(await values(o)).toEqual({ 'file/A': 'alpha-value-1' });
    expect(o.ready()).toBe(true);
  });

  it('reads the same text twice without parsing it again or changing anything; a changed text is read afresh', async () => {
    const d = tmp();
    const path = join(d, 'org.env');
    writeFileSync(path, 'A=alpha-value-1\nB=bravo-value-2\n');
    const [config] = parse([{ name: 'file', type: 'dotenv', path, groups: ['g'] }]) as [SourceConfig];
    const first = await readSource(config, {});
    const again = await readSource(config, {});
    if (!first.ok || !again.ok) throw new Error('read failed');
    expect(again.value).toBe(first.value); // the same array: not parsed again
    const o = await open([{ name: 'file', type: 'dotenv', path, groups: ['g'] }]);
    const before = await o.source.load();
    expect(await o.refreshAll()).toBe(false);
    expect(o.status()[0]!.version).toBe(1);
    const after = await o.source.load();
    if (!before.ok || !after.ok) throw new Error('load failed');
    expect(after.value[0]).toBe(before.value[0]); // the registry is handed the same entries
    writeFileSync(path, 'A=alpha-value-1\nB=bravo-value-3\n');
    expect(await o.refreshAll()).toBe(true);
    const loaded = await o.source.load();
    if (!loaded.ok) throw loaded.error;
    expect(loaded.value.map((e) => e.value).sort()).toEqual(['alpha-value-1', 'bravo-value-2', 'bravo-value-3']); // the old B retained
    expect(o.status()[0]).toMatchObject({ version: 2, values: 2, retained: 1 });
    // Back to a text read before: parsed again (only the last text is remembered), the retired value current again.
    writeFileSync(path, 'A=alpha-value-1\nB=bravo-value-2\n');
    expect(await o.refreshAll()).toBe(true);
    expect(o.status()[0]).toMatchObject({ version: 3, values: 2, retained: 1 });
  });

  it('is not ready until every source has loaded once', async () => {
    const d = tmp();
    const path = join(d, 'later.env');
    const o = await open([
      { name: 'now', type: 'env', prefix: 'X_', groups: ['g'] },
      { name: 'later', type: 'dotenv', path, groups: ['g'] },
    ]);
    expect(o.ready()).toBe(false);
    expect(o.status()[1]).toMatchObject({ lastResult: 'error', values: 0 });
    writeFileSync(path, 'A=alpha-value-1\n');
    await o.refreshAll();
    expect(o.ready()).toBe(true);
  });

  it('retains a removed or replaced value for `retain`, then forgets it', async () => {
    const d = tmp();
    const path = join(d, 'org.env');
    writeFileSync(path, 'A=alpha-value-1\nB=beta-value-22\n');
    let t = 1_000_000;
    const o = await open([{ name: 'file', type: 'dotenv', path, groups: ['g'], retain: '1h' }], { env: {}, now: () => t });
    writeFileSync(path, 'A=alpha-value-NEW\n');
    await o.refreshAll();
    const held = async (): Promise<string[]> => {
      const r = await o.source.load();
      return r.ok ? r.value.map((e) => `${e.name}=${e.value}`).sort() : [];
    };
    expect(await held()).toEqual(['A=alpha-value-1', 'A=alpha-value-NEW', 'B=beta-value-22']);
    t += 59 * 60 * 1000;
    expect(await held()).toHaveLength(3);
    t += 2 * 60 * 1000;
    expect(await held()).toEqual(['A=alpha-value-NEW']);
    // A value that comes back is current again, not retired.
    writeFileSync(path, 'A=alpha-value-NEW\nB=beta-value-22\n');
    await o.refreshAll();
    expect(o.status()[0]).toMatchObject({ values: 2, retained: 0 });
  });
});
