// Detection on its own: every generated positive found with its kind and exact value, no hard negative
// found, checksums, boundaries, escaped private key blocks, AWS key pairs, URL passwords and the allow list.

import { describe, expect, it } from 'vitest';
import { negatives, positives } from '../../fixtures/detect/corpus.ts';
import { sampleOf } from '../../fixtures/detect/tokens.ts';
import { createDetector } from '../../src/detect/detector.ts';
import { createCredentialFinder, type Credential } from '../../src/detect/find.ts';
import { kindByName, KINDS } from '../../src/detect/kinds.ts';
import { mulberry32 } from '../../src/util/prng.ts';

const finder = createCredentialFinder(createDetector());
const find = (text: string): Credential[] => finder.find(Buffer.from(text, 'utf8'));
const kinds = (text: string): string[] => find(text).map((c) => c.kind);
const sample = (name: string, seed = 1, variant = 0): string => sampleOf(kindByName(name)!, mulberry32(seed), variant).secret;

describe('credential detection', () => {
  it('covers at least 80 kinds, each with a name, anchors or a companion, a source and a unique name', () => {
    expect(KINDS.length).toBeGreaterThanOrEqual(80);
    expect(new Set(KINDS.map((k) => k.name)).size).toBe(KINDS.length);
    for (const k of KINDS) {
      expect(k.source, k.name).toMatch(/^https:\/\//);
      expect(k.grammars !== undefined || k.confirm !== undefined || k.anchors.length === 0, k.name).toBe(true);
    }
  });

  it('finds every generated credential of every kind, in every surrounding, with its kind and exact value', () => {
    const corpus = positives();
    expect(corpus.length).toBeGreaterThanOrEqual(KINDS.length * 5);
    const missed: string[] = [];
    const extra: string[] = [];
    for (const p of corpus) {
      const found = find(p.text);
      for (const c of p.credentials) if (!found.some((f) => f.kind === c.kind && f.value === c.secret)) missed.push(`${p.label} (${c.kind})`);
      for (const f of found) if (!p.credentials.some((c) => c.kind === f.kind && c.secret === f.value)) extra.push(`${p.label}: ${f.kind}`);
    }
    expect(missed).toEqual([]);
    expect(extra).toEqual([]);
  });

  it('finds nothing in the hard negatives: hashes, UUIDs, blobs, lock files, minified JS, placeholders, examples', () => {
    const hits = negatives().flatMap((n) => find(n.text).map((f) => `${n.label}: ${f.kind}`));
    expect(hits).toEqual([]);
  });

  it('checks the CRC32 of GitHub and npm tokens: one changed character makes the token unverified', () => {
    for (const name of ['github-classic-pat', 'github-oauth-token', 'github-app-token', 'npm-token']) {
      const token = sample(name);
      expect(find(`t=${token}`).map((f) => [f.kind, f.verdict]), name).toEqual([[name, 'verified']]);
      const flipped = token.slice(0, 10) + (token[10] === 'A' ? 'B' : 'A') + token.slice(11);
      expect(find(`t=${flipped}`).map((f) => [f.kind, f.verdict]), name).toEqual([[name, 'unverified']]);
    }
  });

  it('checks the Bech32 checksum of age secret keys', () => {
    const key = sample('age-secret-key');
    expect(kinds(key)).toEqual(['age-secret-key']);
    const last = key.at(-1) === 'Q' ? 'P' : 'Q';
    expect(kinds(key.slice(0, -1) + last)).toEqual([]);
  });

  it('wants a token bounded on both sides, but reads JSON and percent escapes as separators', () => {
    const token = sample('github-classic-pat');
    expect(kinds(`x${token}`)).toEqual([]);
    expect(kinds(`${token}x`)).toEqual([]);
    expect(kinds(`"lines\\n${token}\\tmore"`)).toEqual(['github-classic-pat']);
    expect(kinds(`"\\u0022${token}\\u0022"`)).toEqual(['github-classic-pat']);
    expect(kinds(`token%3D${token}%26x`)).toEqual(['github-classic-pat']);
    // Inside a longer run of the token's own alphabet it is part of something else.
    expect(kinds(`ab+${sample('easypost-key')}/cd`)).toEqual([]);
  });

  it('reports a private key block escaped in JSON (once or twice) as the block itself', () => {
    const block = sample('private-key');
    const once = JSON.stringify(block);
    const twice = JSON.stringify(JSON.stringify({ key: block }));
    for (const text of [block, once, twice, block.replace(/\n/g, '\r\n')]) {
      const found = find(text);
      expect(found.map((f) => f.kind)).toEqual(['private-key']);
      expect(found[0]!.value.replace(/\r\n/g, '\n')).toBe(block);
    }
    // A head of a key file is still a key; a block with almost nothing in it is not.
    const head = block.split('\n').slice(0, 8).join('\n');
    expect(kinds(head)).toEqual(['private-key']);
    expect(kinds('-----BEGIN PRIVATE KEY-----\nanything\n-----END PRIVATE KEY-----')).toEqual([]);
  });

  it('finds the AWS secret key written next to its key id, before or after it, and not a hex SHA', () => {
    const pair = sampleOf(kindByName('aws-secret-access-key')!, mulberry32(3));
    const id = pair.also![0]!.secret;
    const after = find(`AWS_ACCESS_KEY_ID=${id}\nAWS_SECRET_ACCESS_KEY=${pair.secret}\n`);
    expect(after.map((f) => [f.kind, f.value === id || f.value === pair.secret])).toEqual([['aws-access-key-id', true], ['aws-secret-access-key', true]]);
    const before = find(`{"SecretAccessKey": "${pair.secret}", "AccessKeyId": "${id}"}`);
    expect(before.map((f) => f.kind).sort()).toEqual(['aws-access-key-id', 'aws-secret-access-key']);
    const sha = 'e83c5163316f89bfbde7d9ab23ca2e25604af290';
    expect(kinds(`AWS_ACCESS_KEY_ID=${id}\ncommit ${sha}\n`)).toEqual(['aws-access-key-id']);
  });

  it('takes the password of a URL, never a template, a stand-in, the user again or a placeholder', () => {
    expect(find('postgres://app:Wq3x9LmZp2@db:5432/app').map((f) => f.value)).toEqual(['Wq3x9LmZp2']);
    expect(find('"jdbc:mysql://admin:Tr0ub4dor9@db.internal/app"').map((f) => f.value)).toEqual(['Tr0ub4dor9']);
    for (const t of [
      'postgres://user:${DB_PASSWORD}@db/app',
      'postgres://user:password@db/app',
      'mongodb://mongo:mongo@db/app',
      'https://user:~ficta_abcdefghijklmnopqrst@api.example',
      'https://user:xxxxxxxx@api.example',
      'redis://:$REDIS_PASS@cache:6379',
      'see https://example.com/a:b@c',
    ]) expect(kinds(t), t).toEqual([]);
  });

  it('leaves allowed kinds and allowed exact values alone', () => {
    const test = sample('stripe-test-key');
    const live = sample('stripe-secret-key');
    const allowing = createCredentialFinder(createDetector({ allow: ['stripe-test-key', live] }));
    expect(allowing.find(Buffer.from(`${test} ${live}`)).map((f) => f.kind)).toEqual([]);
    expect(kinds(`${test} ${live}`)).toEqual(['stripe-test-key', 'stripe-secret-key']);
  });

  it('accepts a JWT whose header names an algorithm: signed, or unsigned as unverified', () => {
    const jwt = sample('jwt');
    expect(find(`Authorization: Bearer ${jwt}`).map((f) => [f.kind, f.verdict])).toEqual([['jwt', 'format']]);
    const [h, p] = jwt.split('.');
    expect(find(`${h}.${p}`).map((f) => [f.kind, f.verdict, f.value])).toEqual([['jwt', 'unverified', `${h}.${p}`]]);
    expect(kinds(`${h}.${Buffer.from('not json').toString('base64url')}AAAAAAAA`)).toEqual([]);
    expect(kinds(`${Buffer.from('{"alg":"none"}').toString('base64url')}.${p}`)).toEqual([]);
    expect(kinds(`${Buffer.from('{"typ":"JWT"}').toString('base64url')}.${p}.${'s'.repeat(10)}Zq8k2LmN3pQr5tUv`)).toEqual([]);
  });
});
