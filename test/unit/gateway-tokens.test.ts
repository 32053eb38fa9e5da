// The gateway's token file, token store and tenancy: tokens stored as hashes only, checked by public id
// and SHA-256, revocation seen on reload, the last good set kept when the file breaks, 401 / 503 / 429.

import { mkdtempSync, readFileSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/config/duration.ts';
import { createTenancy } from '../../src/gateway/tenancy.ts';
import { addToken, emptyTokenFile, parseTokenFile, readTokenFile, revokeToken, tokenId } from '../../src/gateway/token-file.ts';
import { createTokenStore } from '../../src/gateway/tokens.ts';

let dir: string;
let path: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ficta-gw-tokens-'));
  path = join(dir, 'tokens.json');
  writeFileSync(path, emptyTokenFile());
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const req = (headers: Record<string, string> = {}): IncomingMessage => ({ headers }) as unknown as IncomingMessage;
const must = <T>(r: { ok: true; value: T } | { ok: false; error: Error }): T => {
  if (!r.ok) throw r.error;
  return r.value;
};

describe('token file', () => {
  it('stores only the SHA-256 and public id of a token, never the token', () => {
    const { token, entry } = must(addToken(path, 'alice', ['sre', 'platform', 'sre']));
    expect(token).toMatch(/^fgt_[A-Za-z0-9_-]{40}$/);
    expect(tokenId(token)).toBe(entry.id);
    expect(entry.groups).toEqual(['platform', 'sre']);
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain(token);
    expect(text).not.toContain(token.slice(12));
    expect(must(readTokenFile(path)).tokens).toHaveLength(1);
  });

  it('refuses a second active token for a name, allows one after revocation, and keeps the revoked entry', () => {
    must(addToken(path, 'bob', []));
    const again = addToken(path, 'bob', []);
    expect(again.ok).toBe(false);
    if (!again.ok) expect(again.error.message).toBe(`tokens: bob already has a token; revoke it first (ficta gateway token revoke bob)`);
    must(revokeToken(path, 'bob'));
    must(addToken(path, 'bob', ['x']));
    const file = must(readTokenFile(path));
    expect(file.tokens.map((t) => [t.name, t.revoked === undefined])).toEqual([
      ['bob', false],
      ['bob', true],
    ]);
    expect(revokeToken(path, 'nobody').ok).toBe(false);
  });

  it('names the entry and the problem in a broken file, never a hash', () => {
    const sha = 'a'.repeat(64);
    const bad = JSON.stringify({ version: 1, tokens: [{ name: 'carol', groups: ['g'], id: 'short', sha256: sha, created: '2026-01-01T00:00:00Z' }] });
    const r = parseTokenFile(bad, '/etc/t.json');
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.message).toBe('tokens: /etc/t.json: tokens[0].id (carol) must be 8 characters of A-Z a-z 0-9 _ -');
      expect(r.error.message).not.toContain(sha);
    }
    expect(parseTokenFile('{', 'f').ok).toBe(false);
    expect(parseTokenFile(JSON.stringify({ version: 2, tokens: [] }), 'f').ok).toBe(false);
  });
});

describe('token store', () => {
  it('finds the tenant of a token, not of a token with one character changed, and sees a revocation on reload', () => {
    const { token } = must(addToken(path, 'alice', ['platform']));
    const store = must(createTokenStore(path));
    expect(store.lookup(token)).toEqual({ name: 'alice', groups: ['platform'] });
    const flipped = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    expect(store.lookup(flipped)).toBeUndefined();
    expect(store.lookup('')).toBeUndefined();
    expect(store.lookup(`${token}x`)).toBeUndefined();
    must(revokeToken(path, 'alice'));
    expect(store.lookup(token)?.name).toBe('alice'); // until the file is read again
    expect(must(store.reloadIfChanged()!).changed).toBe(true);
    expect(store.lookup(token)).toBeUndefined();
    expect(store.counts()).toEqual({ active: 0, revoked: 1 });
  });

  it('keeps the last good set when the file breaks, and says so', () => {
    const { token } = must(addToken(path, 'dave', []));
    const store = must(createTokenStore(path));
    writeFileSync(path, '{"version": 1, "tokens": [');
    const r = store.reloadIfChanged();
    expect(r?.ok).toBe(false);
    expect(store.lastError()).toMatch(/not valid JSON/);
    expect(store.lookup(token)?.name).toBe('dave');
  });

  it('sees a file replaced by rename (as a Kubernetes ..data swap does)', () => {
    const { token } = must(addToken(path, 'erin', []));
    const store = must(createTokenStore(path));
    const next = join(dir, 'next.json');
    writeFileSync(next, emptyTokenFile());
    renameSync(next, path);
    expect(store.reloadIfChanged()?.ok).toBe(true);
    expect(store.lookup(token)).toBeUndefined();
  });

  it('refuses to start without a readable token file', () => {
    expect(createTokenStore(join(dir, 'missing.json')).ok).toBe(false);
  });
});

describe('tenancy', () => {
  it('takes the token from /t/<token>/ or x-ficta-token, strips the segment, and refuses a missing or unknown one with 401', () => {
    const { token } = must(addToken(path, 'alice', ['platform']));
    const t = createTenancy({ tokens: must(createTokenStore(path)), key: new Uint8Array(32), maxConcurrent: 4, ready: () => true });
    const a = t.authenticate(req(), `/t/${token}/anthropic/v1/messages?beta=true`);
    expect(a).toMatchObject({ ok: true, tenant: { name: 'alice', groups: ['platform'] }, target: '/anthropic/v1/messages?beta=true' });
    const b = t.authenticate(req({ 'x-ficta-token': token }), '/openai/v1/chat/completions');
    expect(b).toMatchObject({ ok: true, target: '/openai/v1/chat/completions' });
    for (const [headers, target] of [[{}, '/anthropic/v1/messages'], [{ 'x-ficta-token': 'nope' }, '/v1/messages'], [{}, '/t/fgt_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/v1/messages']] as const) {
      const r = t.authenticate(req(headers), target);
      expect(r).toMatchObject({ ok: false, status: 401, type: 'ficta_unauthorized' });
      if (!r.ok) expect(r.message).not.toContain(token);
    }
  });

  it('answers 503 ficta_not_ready before every source has loaded', () => {
    const { token } = must(addToken(path, 'alice', []));
    const t = createTenancy({ tokens: must(createTokenStore(path)), key: new Uint8Array(32), maxConcurrent: 4, ready: () => false });
    expect(t.authenticate(req(), `/t/${token}/v1/messages`)).toMatchObject({ ok: false, status: 503, type: 'ficta_not_ready' });
  });

  it('limits requests in flight per tenant (429 with retry-after), frees a slot on release, and counts each release once', () => {
    const a = must(addToken(path, 'alice', [])).token;
    const b = must(addToken(path, 'bob', [])).token;
    const t = createTenancy({ tokens: must(createTokenStore(path)), key: new Uint8Array(32), maxConcurrent: 2, ready: () => true });
    const first = t.authenticate(req(), `/t/${a}/v1/messages`);
    const second = t.authenticate(req(), `/t/${a}/v1/messages`);
    const third = t.authenticate(req(), `/t/${a}/v1/messages`);
    expect(third).toMatchObject({ ok: false, status: 429, type: 'ficta_too_many_requests', headers: { 'retry-after': '1' } });
    // Another tenant is not affected.
    expect(t.authenticate(req(), `/t/${b}/v1/messages`).ok).toBe(true);
    if (!first.ok || !second.ok) throw new Error('expected ok');
    first.release?.();
    first.release?.();
    expect(t.inFlight().get('alice')).toBe(1);
    expect(t.authenticate(req(), `/t/${a}/v1/messages`).ok).toBe(true);
    expect(t.authenticate(req(), `/t/${a}/v1/messages`).ok).toBe(false);
  });
});

describe('durations', () => {
  it('parses the config durations', () => {
    expect([parseDuration('500ms'), parseDuration('5s'), parseDuration('2m'), parseDuration('1h'), parseDuration('7d')]).toEqual([500, 5000, 120_000, 3_600_000, 604_800_000]);
    expect(parseDuration('5')).toBeUndefined();
    expect(parseDuration('1.5s')).toBeUndefined();
  });
});
