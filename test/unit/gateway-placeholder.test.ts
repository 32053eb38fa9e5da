// The gateway's per-tenant placeholders: a keyed Feistel permutation of a fingerprint and a tenant check
// field. Round trips for the tenant, fails for every other tenant, and cannot be recomputed without the key.

import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createGatewayKeys } from '../../src/gateway/tenant-placeholder.ts';
import { derivePlaceholder, placeholderId } from '../../src/redact/placeholder.ts';
import { mulberry32 } from '../../src/util/prng.ts';

const KEY = Buffer.alloc(32, 9);
const GRAMMAR = /^~ficta_[a-z2-7]{20}$/;

describe('gateway placeholders', () => {
  const keys = createGatewayKeys(KEY);

  it('keep the grammar and open back to the fingerprint under the same tenant', () => {
    for (let i = 0; i < 2000; i++) {
      const fp = keys.fingerprint(`value-${i}-abcdefgh`);
      const t = keys.tenant(`tenant-${i % 37}`);
      const p = t.placeholder(fp);
      expect(p).toMatch(GRAMMAR);
      expect(t.open(placeholderId(p))).toBe(fp);
    }
  });

  it('are deterministic per tenant and value, and differ between tenants', () => {
    const fp = keys.fingerprint('shared-secret-value-1');
    const a = keys.tenant('alice').placeholder(fp);
    expect(createGatewayKeys(KEY).tenant('alice').placeholder(createGatewayKeys(KEY).fingerprint('shared-secret-value-1'))).toBe(a);
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) seen.add(keys.tenant(`t${i}`).placeholder(fp));
    expect(seen.size).toBe(1000);
  });

  it("another tenant's placeholder fails the check (no false opening in 5,000 tries)", () => {
    let opened = 0;
    for (let i = 0; i < 5_000; i++) {
      const fp = keys.fingerprint(`v${i}`);
      const p = keys.tenant(`owner-${i % 100}`).placeholder(fp);
      if (keys.tenant(`other-${i % 97}`).open(placeholderId(p)) !== undefined) opened++;
    }
    expect(opened).toBe(0);
  });

  it('forged ids (5,000 random base32 ids) never open', () => {
    const prng = mulberry32(21);
    const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
    const t = keys.tenant('alice');
    let opened = 0;
    for (let i = 0; i < 5_000; i++) {
      let id = '';
      for (let k = 0; k < 20; k++) id += alphabet[Math.floor(prng() * 32)];
      if (t.open(id) !== undefined) opened++;
    }
    expect(opened).toBe(0);
    expect(t.open('short')).toBeUndefined();
    expect(t.open('0'.repeat(20))).toBeUndefined();
  });

  it('depend on the gateway key: without it a guess of the value cannot be recomputed', () => {
    const value = 'guessable-password-1';
    const p = keys.tenant('alice').placeholder(keys.fingerprint(value));
    const other = createGatewayKeys(randomBytes(32));
    expect(other.tenant('alice').placeholder(other.fingerprint(value))).not.toBe(p);
    // Unkeyed or single-user-scheme derivations an attacker could compute from the guess do not match either.
    expect(derivePlaceholder(Buffer.alloc(32), value)).not.toBe(p);
    expect(derivePlaceholder(Buffer.from(createHmac('sha256', 'alice').update(value).digest()), value)).not.toBe(p);
    expect(p.slice(7)).not.toContain(createHmac('sha256', Buffer.alloc(0)).update(value).digest('hex').slice(0, 8));
  });

  it('refuse a key that is not 32 bytes', () => {
    expect(() => createGatewayKeys(Buffer.alloc(16))).toThrow(/32 bytes/);
  });
});
