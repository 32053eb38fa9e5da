// A changed `[[sources]]` list applied to running sources: an added source joins once loaded (a failing
// one is named, counted and leaves a ready instance ready), a removed one retires its values with the
// groups they had for `retain`, a redefined one retires what it no longer yields, changed groups apply to
// current values at once; what the set in use carries is reported only once that set is built; the
// config diff treats `sources` as live.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { diffConfig } from '../../src/gateway/config-reload.ts';
import { createInUse } from '../../src/gateway/source-use.ts';
import { createOrgSources, type OrgSources } from '../../src/gateway/sources.ts';
import { SourcesConfigSchema, type SourceConfig } from '../../src/gateway/sources-config.ts';
import { loadConfig } from '../../src/config/load.ts';
import { ok } from '../../src/util/result.ts';

const dirs: string[] = [];
const opened: OrgSources[] = [];
afterEach(() => {
  for (const o of opened.splice(0)) o.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'ficta-sources-apply-'));
  dirs.push(d);
  return d;
}
const parse = (list: unknown[]): SourceConfig[] => SourcesConfigSchema.parse(list);
async function open(list: unknown[], options: Partial<Parameters<typeof createOrgSources>[1]> = {}): Promise<OrgSources> {
  const o = await createOrgSources(parse(list), { env: {}, ...options });
  opened.push(o);
  return o;
}
/** `source/name=value [groups]`, sorted. */
async function held(o: OrgSources): Promise<string[]> {
  const r = await o.source.load();
  if (!r.ok) throw r.error;
  return r.value.map((e) => `${e.source}/${e.name}=${e.value} [${(e.groups ?? []).join(',')}]`).sort();
}

describe('applying a changed [[sources]] list', () => {
  it('reads an added source before it joins; a failing one is named, counted, retried, and leaves a ready instance ready', async () => {
    const d = tmp();
    writeFileSync(join(d, 'a.env'), 'A=alpha-value-111\n');
    writeFileSync(join(d, 'b.env'), 'B=beta-value-222\n');
    const results: Array<[string, string | undefined, boolean]> = [];
    const a = { name: 'a', type: 'dotenv', path: join(d, 'a.env'), groups: ['ga'] };
    const o = await open([a], { onResult: (s, e, _n, loaded) => results.push([s, e?.message, loaded]) });
    expect(o.ready()).toBe(true);
    const change = await o.apply(parse([a, { name: 'b', type: 'dotenv', path: join(d, 'b.env'), groups: ['gb'] }]));
    expect(change).toEqual({ added: ['b'], removed: [], changed: [] });
    expect(await held(o)).toEqual(['a/A=alpha-value-111 [ga]', 'b/B=beta-value-222 [gb]']);

    const missing = join(d, 'missing', 'c.env');
    await o.apply(parse([a, { name: 'b', type: 'dotenv', path: join(d, 'b.env'), groups: ['gb'] }, { name: 'c', type: 'dotenv', path: missing, groups: ['gc'] }]));
    expect(o.ready()).toBe(true);
    expect(o.pending()).toEqual(['c']);
    expect(o.status().find((s) => s.name === 'c')).toMatchObject({ loaded: false, lastResult: 'error', failures: 1, values: 0 });
    expect(results.at(-1)).toEqual(['c', expect.stringMatching(/^secrets: source c: cannot read .*c\.env: ENOENT$/), false]);
    expect(await held(o)).toHaveLength(2);
    // Retried on SIGHUP (refreshAll) once it is there.
    (await import('node:fs')).mkdirSync(join(d, 'missing'));
    writeFileSync(missing, 'C=gamma-value-333\n');
    await o.refreshAll({ quiet: true });
    expect(o.pending()).toEqual([]);
    expect(await held(o)).toContain('c/C=gamma-value-333 [gc]');
  });

  it('an instance that started without a source loaded is not ready until it loads or is removed', async () => {
    const d = tmp();
    writeFileSync(join(d, 'a.env'), 'A=alpha-value-111\n');
    const a = { name: 'a', type: 'dotenv', path: join(d, 'a.env'), groups: ['ga'] };
    const o = await open([a, { name: 'never', type: 'dotenv', path: join(d, 'never.env'), groups: ['g'] }]);
    expect(o.ready()).toBe(false);
    expect(o.pending()).toEqual(['never']);
    expect(await o.apply(parse([a]))).toEqual({ added: [], removed: ['never'], changed: [] });
    expect(o.ready()).toBe(true);
    expect(o.status().map((s) => s.name)).toEqual(['a']);
  });

  it('a config change also tries again a source not loaded yet', async () => {
    const d = tmp();
    const list = [{ name: 'late', type: 'dotenv', path: join(d, 'late.env'), groups: ['g'] }];
    const o = await open(list);
    expect(o.pending()).toEqual(['late']);
    writeFileSync(join(d, 'late.env'), 'L=late-value-444\n');
    expect(await o.apply(parse([...list, { name: 'e', type: 'env', prefix: 'E_', groups: ['g'] }]))).toEqual({ added: ['e'], removed: [], changed: [] });
    expect(o.pending()).toEqual([]);
    expect(o.ready()).toBe(true);
    expect(await held(o)).toEqual(['late/L=late-value-444 [g]']);
  });

  it('retires a removed source: protected with the groups it had for `retain`, then gone; no longer read', async () => {
    const d = tmp();
    writeFileSync(join(d, 'a.env'), 'A=alpha-value-111\n');
    writeFileSync(join(d, 'b.env'), 'B=beta-value-222\n');
    let t = 1_000_000;
    const a = { name: 'a', type: 'dotenv', path: join(d, 'a.env'), groups: ['ga'] };
    const o = await open([a, { name: 'b', type: 'dotenv', path: join(d, 'b.env'), groups: ['gb'], retain: '1h' }], { now: () => t });
    let told = 0;
    o.source.watch!(() => told++);
    expect(await o.apply(parse([a]))).toEqual({ added: [], removed: ['b'], changed: [] });
    expect(await held(o)).toEqual(['a/A=alpha-value-111 [ga]', 'b/B=beta-value-222 [gb]']);
    expect(o.status().find((s) => s.name === 'b')).toMatchObject({ removed: true, values: 0, retained: 1 });
    // No longer read: a change to its file is not picked up, by a reload or by its (stopped) watch.
    writeFileSync(join(d, 'b.env'), 'B=beta-value-NEW\n');
    await o.refreshAll();
    await new Promise((r) => setTimeout(r, 300));
    expect(await held(o)).not.toContain('b/B=beta-value-NEW [gb]');
    expect(told).toBe(0);
    t += 61 * 60 * 1000;
    expect(await held(o)).toEqual(['a/A=alpha-value-111 [ga]']);
    expect(o.status().map((s) => s.name)).toEqual(['a']);
  });

  it('changed groups apply to current values at once; values retired before keep the groups they had', async () => {
    const d = tmp();
    const path = join(d, 'a.env');
    writeFileSync(path, 'A=alpha-value-111\n');
    const o = await open([{ name: 'a', type: 'dotenv', path, groups: ['old'] }]);
    writeFileSync(path, 'A=alpha-value-NEW\n');
    await o.refreshAll({ quiet: true });
    expect(await o.apply(parse([{ name: 'a', type: 'dotenv', path, groups: ['new'] }]))).toEqual({ added: [], removed: [], changed: ['a'] });
    expect(await held(o)).toEqual(['a/A=alpha-value-111 [old]', 'a/A=alpha-value-NEW [new]']);
    expect(o.status()[0]).toMatchObject({ loaded: true, values: 1, retained: 1, groups: ['new'] });
  });

  it('a redefined source (new path) retires what the new definition no longer yields, with the old groups', async () => {
    const d = tmp();
    writeFileSync(join(d, 'v1.env'), 'KEPT=kept-value-111\nDROPPED=dropped-value-222\n');
    writeFileSync(join(d, 'v2.env'), 'KEPT=kept-value-111\nADDED=added-value-333\n');
    const o = await open([{ name: 's', type: 'dotenv', path: join(d, 'v1.env'), groups: ['old'] }]);
    await o.apply(parse([{ name: 's', type: 'dotenv', path: join(d, 'v2.env'), groups: ['new'] }]));
    expect(await held(o)).toEqual(['s/ADDED=added-value-333 [new]', 's/DROPPED=dropped-value-222 [old]', 's/KEPT=kept-value-111 [new]']);
    expect(o.status()[0]).toMatchObject({ loaded: true, values: 2, retained: 1 });
    // A new definition that fails to load: the old values stay protected (retired, old groups), nothing lost.
    await o.apply(parse([{ name: 's', type: 'dotenv', path: join(d, 'nope.env'), groups: ['newer'] }]));
    expect(o.pending()).toEqual(['s']);
    expect(o.ready()).toBe(true);
    expect(await held(o)).toEqual(['s/ADDED=added-value-333 [new]', 's/DROPPED=dropped-value-222 [old]', 's/KEPT=kept-value-111 [new]']);
  });

  it('reports what the set in use carries only once the registry has built that set', async () => {
    const d = tmp();
    const path = join(d, 'a.env');
    writeFileSync(path, 'A=alpha-value-111\n');
    const o = await open([{ name: 'a', type: 'dotenv', path, groups: ['g'] }]);
    await o.source.load(); // the registry's first build
    o.built(1);
    expect(o.status(1)[0]!.inUse).toEqual({ version: 1, values: 1, retained: 0 });
    writeFileSync(path, 'A=alpha-value-222\nB=beta-value-333\n');
    await o.refreshAll({ quiet: true });
    await o.source.load(); // a build starts from this load …
    expect(o.status(1)[0]).toMatchObject({ version: 2, values: 2, inUse: { version: 1, values: 1, retained: 0 } });
    o.built(2); // … and is built, but the registry still serves set 1
    expect(o.status(1)[0]!.inUse).toEqual({ version: 1, values: 1, retained: 0 });
    expect(o.status(2)[0]!.inUse).toEqual({ version: 2, values: 2, retained: 1 });
    // An added source not yet in the set in use reports version 0.
    await o.apply(parse([{ name: 'a', type: 'dotenv', path, groups: ['g'] }, { name: 'b', type: 'env', prefix: 'X_', groups: ['g'] }]));
    expect(o.status(2)[1]).toMatchObject({ name: 'b', version: 1, inUse: { version: 0, values: 0, retained: 0 } });
  });
});

describe('the set in use, through the secret registry', () => {
  it("moves a source's in-use version with the registry's swaps (load, then onLoaded, then current)", async () => {
    const d = tmp();
    const path = join(d, 'a.env');
    writeFileSync(path, 'A=alpha-value-111\n');
    const o = await open([{ name: 'a', type: 'dotenv', path, groups: ['g'] }]);
    const { createSecretRegistry } = await import('../../src/secrets/registry.ts');
    const r = await createSecretRegistry({ sources: [o.source], keyProvider: { getKey: async () => ok(Buffer.alloc(32, 7)) }, onLoaded: (info) => o.built(info.version) });
    if (!r.ok) throw r.error;
    const registry = r.value;
    try {
      const inUse = () => o.status(registry.current().version)[0]!.inUse;
      expect(inUse()).toEqual({ version: 1, values: 1, retained: 0 });
      writeFileSync(path, 'A=alpha-value-222\nB=beta-value-333\n');
      await o.refreshAll({ quiet: true });
      expect(o.status(registry.current().version)[0]).toMatchObject({ version: 2, inUse: { version: 1, values: 1 } });
      await registry.reload();
      expect(inUse()).toEqual({ version: 2, values: 2, retained: 1 });
      await o.apply(parse([{ name: 'a', type: 'dotenv', path, groups: ['g'] }, { name: 'b', type: 'env', prefix: 'B_', groups: ['g'] }]));
      expect(o.status(registry.current().version)[1]!.inUse).toEqual({ version: 0, values: 0, retained: 0 });
      await registry.reload();
      expect(o.status(registry.current().version)[1]!.inUse).toEqual({ version: 1, values: 0, retained: 0 });
    } finally {
      await registry.close();
    }
  });
});

describe('createInUse', () => {
  it('moves only to a set built from a load, and forgets older ones', () => {
    const u = createInUse<string>();
    expect(u.at(1)).toBeUndefined();
    u.handedOut('one');
    u.built(1);
    u.built(2); // a build without a load (an unavailable set) carries nothing new
    expect(u.at(2)).toBeUndefined();
    expect(u.at(1)).toBe('one');
    u.handedOut('three');
    u.built(3);
    expect(u.at(2)).toBe('one');
    expect(u.at(3)).toBe('three');
    expect(u.at(1)).toBe('three');
  });

  it('keeps only a few unread sets when nobody asks (no scrape)', () => {
    const u = createInUse<string>();
    for (let v = 1; v <= 100; v++) {
      u.handedOut(`load ${v}`);
      u.built(v);
    }
    expect(u.at(100)).toBe('load 100');
    expect(u.at(97)).toBe('load 100'); // forgotten once 100 was asked for
    const w = createInUse<string>();
    for (let v = 1; v <= 100; v++) {
      w.handedOut(`load ${v}`);
      w.built(v);
    }
    expect(w.at(50)).toBeUndefined(); // long gone: nothing to report but what was in use (nothing yet)
    expect(w.at(99)).toBe('load 99');
  });
});

describe('diffConfig and [[sources]]', () => {
  it('hands a changed sources list over to be applied live, not as needing a restart', () => {
    const home = tmp();
    const load = (flags: Record<string, unknown>) => {
      const r = loadConfig({ env: { FICTA_HOME: home }, flags: { gateway: { keyFile: 'k', tokensFile: 't' }, ...flags } });
      if (!r.ok) throw r.error;
      return r.value;
    };
    const base = load({ sources: [{ name: 'a', type: 'env', prefix: 'A_', groups: ['g'] }] });
    const next = load({ sources: [{ name: 'b', type: 'env', prefix: 'B_', groups: ['g'] }], detect: { mode: 'block' } });
    const change = diffConfig(base, next);
    expect(change.sources).toEqual([{ name: 'b', type: 'env', prefix: 'B_', groups: ['g'] }]);
    expect(change.restartNeeded).toEqual(['detect']);
    expect(diffConfig(base, base).sources).toBeUndefined();
  });
});
