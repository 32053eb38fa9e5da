// Restore hosts sealed with vault records: the payload layouts (frozen vectors), adding and removing hosts,
// persistence through reopen and rekey, the frozen v1 fixture vault taking hosts, and hosts reaching the
// proxy's secret source.

import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { decodeRecord, encodeRecord } from '../../src/vault/format.ts';
import { unlockVault } from '../../src/vault/open.ts';
import { createVaultSecretSource } from '../../src/vault/source.ts';
import { PASSPHRASE, expectCode, makeVault, tempHome, type TempHome } from './vault-helpers.ts';

let t: TempHome;
afterEach(() => t?.cleanup());

const PAYLOAD = { name: 'GH', source: 'prompt', createdAt: 1_700_000_000_000, updatedAt: 1_700_000_000_001, value: Buffer.from('ghp_vector-0001') };

describe('record payload layouts', () => {
  test('a record without hosts keeps layout 1, byte for byte as before hosts existed', () => {
    expect(encodeRecord(PAYLOAD).toString('hex')).toBe(
      '0100024748000670726f6d70744278bcfe568000004278bcfe568010000000000f6768705f766563746f722d3030303100000000000000000000000000000000',
    );
    expect(encodeRecord({ ...PAYLOAD, hosts: [] }).equals(encodeRecord(PAYLOAD))).toBe(true);
  });

  test('a record with hosts is layout 2: the hosts follow the value inside the sealed body (frozen vector)', () => {
    const enc = encodeRecord({ ...PAYLOAD, hosts: ['api.github.com', '*.githubusercontent.com'] });
    expect(enc.toString('hex')).toBe(
      '0200024748000670726f6d70744278bcfe568000004278bcfe568010000000000f6768705f766563746f722d303030310002000e6170692e6769746875622e636f6d00172a2e67697468756275736572636f6e74656e742e636f6d00000000000000000000000000000000000000000000000000000000000000000000000000',
    );
    const dec = decodeRecord(enc);
    expect(dec?.hosts).toEqual(['api.github.com', '*.githubusercontent.com']);
    expect(dec !== null && Buffer.from(dec.value).toString()).toBe('ghp_vector-0001');
  });

  test('a damaged hosts section is unreadable, not silently empty', () => {
    const enc = encodeRecord({ ...PAYLOAD, hosts: ['api.github.com'] });
    const countAt = enc.indexOf(Buffer.from('ghp_vector-0001')) + 15;
    const zero = Buffer.from(enc);
    zero.writeUInt16BE(0, countAt);
    expect(decodeRecord(zero)).toBeNull();
    const long = Buffer.from(enc);
    long.writeUInt16BE(0xffff, countAt + 2);
    expect(decodeRecord(long)).toBeNull();
  });
});

describe('vault hosts', () => {
  test('add --host, add and remove hosts later, kept through reopen and rekey; listing shows them', async () => {
    t = tempHome();
    const v = await makeVault(t.path);
    expect(v.add('GITHUB_TOKEN', 'ghp_value-with-hosts-01', { hosts: ['api.github.com'] })).toEqual({ ok: true, value: 'added' });
    expect(v.add('OTHER', 'other-value-without-hosts')).toEqual({ ok: true, value: 'added' });
    expect(v.changeHosts('GITHUB_TOKEN', { add: ['github.com', 'api.github.com'] })).toEqual({ ok: true, value: ['api.github.com', 'github.com'] });
    expect(v.changeHosts('GITHUB_TOKEN', { remove: ['api.github.com'] })).toEqual({ ok: true, value: ['github.com'] });
    expectCode(v.changeHosts('MISSING', { add: ['x.example'] }), 'FICTA_VAULT_NAME_UNKNOWN');
    expect(v.rekey().ok).toBe(true);
    v.close();
    const again = await unlockVault(t.path, PASSPHRASE);
    if (!again.ok) throw again.error;
    const entries = again.value.entries();
    expect(entries.ok && entries.value.map((e) => [e.name, e.hosts])).toEqual([['GITHUB_TOKEN', ['github.com']], ['OTHER', undefined]]);
    const list = again.value.list();
    expect(list.ok && list.value.map((l) => [l.name, l.hosts])).toEqual([['GITHUB_TOKEN', ['github.com']], ['OTHER', undefined]]);
    again.value.close();
  });

  test('the same value added again with new hosts keeps value, source and time and adds the hosts', async () => {
    t = tempHome();
    const v = await makeVault(t.path);
    v.add('K', 'the-value-000000', { source: 'stdin' });
    const before = v.list();
    expect(v.add('K', 'the-value-000000', { source: 'prompt', hosts: ['api.example.com'] })).toEqual({ ok: true, value: 'unchanged' });
    const after = v.list();
    expect(after.ok && before.ok && after.value[0]).toEqual(before.ok && { ...before.value[0], hosts: ['api.example.com'] });
    // A replaced value keeps the hosts it had.
    expect(v.add('K', 'a-new-value-0000', { replace: true })).toEqual({ ok: true, value: 'replaced' });
    expect(v.list().ok && (v.list() as { ok: true; value: Array<{ hosts?: string[] }> }).value[0]?.hosts).toEqual(['api.example.com']);
    v.close();
  });

  test('the frozen format-1 vault takes hosts on an existing record and still opens with every secret', async () => {
    const fixture = join(import.meta.dirname, '../../fixtures/vault/v1');
    const passphrase = readFileSync(join(fixture, 'passphrase.txt'), 'utf8').trimEnd();
    t = tempHome();
    mkdirSync(t.home, { recursive: true, mode: 0o700 });
    copyFileSync(join(fixture, 'vault.db'), t.path);
    const v = await unlockVault(t.path, { kind: 'passphrase', passphrase });
    if (!v.ok) throw v.error;
    expect(v.value.changeHosts('FIXTURE_GITHUB_TOKEN', { add: ['api.github.com'] }).ok).toBe(true);
    v.value.close();
    const again = await unlockVault(t.path, { kind: 'passphrase', passphrase });
    if (!again.ok) throw again.error;
    const entries = again.value.entries();
    expect(entries.ok && Object.fromEntries(entries.value.map((e) => [e.name, e.hosts ?? []]))).toEqual({
      FIXTURE_GITHUB_TOKEN: ['api.github.com'],
      FIXTURE_OPENAI_KEY: [],
      FIXTURE_UNICODE: [],
      FIXTURE_MULTILINE: [],
    });
    expect(again.value.verify().ok).toBe(true);
    again.value.close();
  });

  test('the proxy\'s vault source hands each secret\'s hosts to the registry', async () => {
    t = tempHome();
    const v = await makeVault(t.path);
    v.add('DB_PASSWORD', 'db-password-value-01', { hosts: ['db.internal'] });
    const source = createVaultSecretSource(v);
    const loaded = await source.load();
    expect(loaded.ok && loaded.value.map((e) => e.hosts)).toEqual([['db.internal']]);
    source.close();
  });
});
