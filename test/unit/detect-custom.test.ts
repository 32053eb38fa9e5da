// The config's own kinds on their own: custom detectors (prefix, charset, whole length, suffix, checksums,
// keywords, and the refusals at load), terms (case, word boundaries, names) and opt-in PII (cards, IBANs,
// emails, the allow list), through the same detector and finder as the built-in kinds.

import { describe, expect, it } from 'vitest';
import { base62, crc32 } from '../../src/detect/checksum.ts';
import { DetectConfigSchema } from '../../src/detect/config.ts';
import { customKind, type CustomRule } from '../../src/detect/custom.ts';
import { customRuleProblems } from '../../src/detect/custom-check.ts';
import { createDetector } from '../../src/detect/detector.ts';
import { createCredentialFinder } from '../../src/detect/find.ts';
import type { Kind } from '../../src/detect/kind.ts';
import { piiKinds } from '../../src/detect/pii/index.ts';
import { termKind } from '../../src/detect/terms.ts';
import { mulberry32 } from '../../src/util/prng.ts';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const rand = (rnd: () => number, n: number, alphabet = ALNUM): string => Array.from({ length: n }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join('');

const finder = (extra: Kind[], allow: string[] = []) => {
  const f = createCredentialFinder(createDetector({ builtins: false, extra, allow }));
  return (text: string) => f.find(Buffer.from(text, 'utf8')).map((c) => `${c.kind}:${c.value}`);
};

const ACME: CustomRule = { name: 'acme-token', prefix: ['acme_live_', 'acme_test_'], charset: 'A-Za-z0-9', length: [30, 40] };

describe('custom detectors', () => {
  const rnd = mulberry32(7);
  it('finds a prefixed token by its charset and whole length, with either prefix, in text and JSON', () => {
    const find = finder([customKind(ACME)]);
    const live = `acme_live_${rand(rnd, 24)}`;
    const test = `acme_test_${rand(rnd, 30)}`;
    expect(find(`key=${live} and "${test}"`)).toEqual([`acme-token:${live}`, `acme-token:${test}`]);
    expect(find(`{"k":"${live}\\n"}`)).toEqual([`acme-token:${live}`]);
    // Whole length 30..40 counts the prefix: 10 + 19 is too short, 10 + 31 too long, a glued word is no token.
    expect(find(`acme_live_${rand(rnd, 19)}`)).toEqual([]);
    expect(find(`acme_live_${rand(rnd, 31)}`)).toEqual([]);
    expect(find(`xacme_live_${rand(rnd, 24)}`)).toEqual([]);
    expect(find(`acme_live_${rand(rnd, 12)}-${rand(rnd, 12)}`)).toEqual([]);
  });

  it('checks the suffix, a GitHub-style CRC32 and a Luhn digit: a value that fails is not a match', () => {
    const body = rand(rnd, 30);
    const crc = `corp_${body}${base62(crc32(Buffer.from(body)))}`;
    const find = finder([customKind({ name: 'corp', prefix: 'corp_', charset: 'A-Za-z0-9', length: [41, 41], checksum: 'crc32-base62' })]);
    expect(find(`t ${crc}`)).toEqual([`corp:${crc}`]);
    expect(find(`t ${crc.slice(0, 20)}${crc[20] === 'A' ? 'B' : 'A'}${crc.slice(21)}`)).toEqual([]);
    const luhn = finder([customKind({ name: 'member', prefix: 'MBR-', charset: '0-9', length: [17, 17], suffix: '-X', checksum: 'luhn' })]);
    expect(luhn('id MBR-79927398713-X.')).toEqual(['member:MBR-79927398713-X']);
    expect(luhn('id MBR-79927398714-X.')).toEqual([]);
    expect(luhn('id MBR-79927398713 and more')).toEqual([]);
  });

  it('with keywords, finds a token only within keywordDistance bytes after one (case-insensitive)', () => {
    const v = rand(rnd, 32, '0123456789abcdef');
    const find = finder([customKind({ name: 'billing-key', charset: '0-9a-f', length: [32, 32], keywords: ['billing_key'], keywordDistance: 8 })]);
    expect(find(`BILLING_KEY = "${v}"`)).toEqual([`billing-key:${v}`]);
    expect(find(`billing_key: ${' '.repeat(20)}${v}`)).toEqual([]);
    expect(find(`sha: ${v}`)).toEqual([]);
    const both = finder([customKind({ name: 'ops', prefix: 'ops_', charset: 'a-z0-9', length: [24, 24], keywords: ['vault'] })]);
    const t = `ops_${rand(rnd, 20, 'abcdefghijklmnopqrstuvwxyz0123456789')}`;
    expect(both(`vault token ${t}`)).toEqual([`ops:${t}`]);
    expect(both(`token ${t}`)).toEqual([]);
  });

  it('refuses at load, naming the rule: a short prefix, a charset-only rule, a rule that matches the hard negatives', () => {
    const msgs = (rules: CustomRule[]) => customRuleProblems(rules).map((p) => p.message);
    expect(msgs([{ name: 'short', prefix: 'ab', charset: 'A-Z', length: [10, 20] }])).toEqual([expect.stringMatching(/^custom detector short refused: a prefix shorter than 3 bytes/)]);
    expect(msgs([{ name: 'bare', charset: 'A-Za-z0-9', length: [32, 40] }])).toEqual([expect.stringMatching(/^custom detector bare refused: a rule with only a charset/)]);
    expect(msgs([{ name: 'shas', prefix: 'sha512-', charset: 'A-Za-z0-9+/=', length: [20, 120] }])).toEqual([expect.stringMatching(/^custom detector shas refused: it matches an integrity string/)]);
    expect(msgs([{ name: 'ids', charset: '0-9a-f-', length: [36, 36], keywords: ['sessionId'] }])).toEqual([expect.stringMatching(/^custom detector ids refused: it matches a UUID/)]);
    expect(msgs([ACME])).toEqual([]);
    // Through the config schema: the error names the path and the rule.
    const parsed = DetectConfigSchema.safeParse({ custom: [ACME, { name: 'short', prefix: 'ab', charset: 'A-Z', length: [10, 20] }] });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['custom', 1]);
    expect(parsed.error?.issues[0]?.message).toMatch(/short refused/);
  });
});

describe('terms', () => {
  const kind = termKind([
    { name: 'project', value: 'Falcon' },
    { name: 'customer', value: 'Acme Corp' },
    { name: 'acme', value: 'Acme' },
    { name: 'host', value: 'db7.corp.internal' },
    { name: 'person', value: 'Müller' },
  ])!;
  const find = finder([kind]);
  it('matches every ASCII casing on word boundaries, each casing as written', () => {
    expect(find('Falcon, FALCON and falcon; fAlCoN!')).toEqual(['term:Falcon', 'term:FALCON', 'term:falcon', 'term:fAlCoN']);
    expect(find('falconry Falcons superfalcon falcon2')).toEqual([]);
    expect(find('/srv/falcon/bin, falcon_api, falcon-web, api.falcon.io')).toEqual(['term:falcon', 'term:falcon', 'term:falcon', 'term:falcon']);
    expect(find('"a\\nFalcon\\tb"')).toEqual(['term:Falcon']);
  });
  it('prefers the longest term and names each by its own name', () => {
    expect(find('ACME CORP bought Acme Corporation; acme')).toEqual(['term:ACME CORP', 'term:Acme', 'term:acme']);
    expect(kind.label!('ACME CORP')).toBe('customer');
    expect(kind.label!('acme')).toBe('acme');
    expect(find('ssh db7.CORP.internal')).toEqual(['term:db7.CORP.internal']);
    expect(find('Herr MÜLLER, Herr Müller')).toEqual(['term:Müller']);
  });
  it('refuses a term too short to be safe', () => {
    expect(() => termKind([{ name: 'x', value: 'ab' }])).toThrow(/term x refused: it is shorter than 3 bytes/);
  });
});

describe('PII (opt-in)', () => {
  const find = finder(piiKinds(['payment-card', 'iban', 'email'], ['noreply@', '@acme.example']));
  it('finds card numbers of the major networks with a valid Luhn digit, plain, spaced or dashed', () => {
    for (const n of ['4111111111111111', '4111 1111 1111 1111', '5555-5555-5555-4444', '3782 822463 10005', '6011000990139424', '3530111333300000', '2223003122003222']) {
      expect(find(`card: ${n}.`), n).toEqual([`payment-card:${n}`]);
    }
    expect(find('| Visa | 4012 8888 8888 1881 |')).toEqual(['payment-card:4012 8888 8888 1881']);
    expect(find('{"card":4242424242424242,"n":"4000056655665556"}')).toEqual(['payment-card:4242424242424242', 'payment-card:4000056655665556']);
  });
  it('leaves alone numbers with a wrong Luhn digit, outside the IIN ranges, too short, or inside longer numbers', () => {
    expect(find('4111 1111 1111 1112 and 4242424242424241')).toEqual([]);
    expect(find('9111111111111111 1234567812345670 7992739871')).toEqual([]);
    expect(find('id 14111111111111111, v1.4111111111111111, +4111111111111111, ts 1732712345678')).toEqual([]);
    expect(find('41 11 11 11 11 11 11 11')).toEqual([]);
  });
  it('finds IBANs of several countries with and without spaces, checked mod 97 and by length', () => {
    for (const n of ['DE89370400440532013000', 'DE89 3704 0044 0532 0130 00', 'GB82 WEST 1234 5698 7654 32', 'FR1420041010050500013M02606', 'NL91ABNA0417164300', 'CH9300762011623852957', 'NO9386011117947']) {
      expect(find(`IBAN ${n}, thanks`), n).toEqual([`iban:${n}`]);
    }
    expect(find('DE89370400440532013001 DE8937040044053201300 GB82 WEST 1234 5698 7654')).toEqual([]);
    expect(find('"iban":"\\nDE89370400440532013000"')).toEqual(['iban:DE89370400440532013000']);
  });
  it('finds emails in text and mail headers; leaves alone scp remotes, URL users, versions and the allow list', () => {
    expect(find('write to jane.doe+ai@mail.example.com.')).toEqual(['email:jane.doe+ai@mail.example.com']);
    expect(find('From: Jane Doe <jane@corp.io>\nTo: bob_s@b.co.uk\nCc: "X" <x.y@z.de>')).toEqual(['email:jane@corp.io', 'email:bob_s@b.co.uk', 'email:x.y@z.de']);
    expect(find('"text":"hi\\njane@corp.io"')).toEqual(['email:jane@corp.io']);
    expect(find('git@github.com:acme/app.git https://user@example.com/x icon@2x.png pkg@1.2.3 @types/node a@localhost')).toEqual([]);
    expect(find('noreply@corp.io NoReply@corp.io bob@acme.example bob@mail.acme.example bob@acme.example.org')).toEqual(['email:bob@acme.example.org']);
  });
});
