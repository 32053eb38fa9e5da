// Every kind, every layout: positives drawn from each grammar of each kind (alternatives included; seeded),
// with the verdict the match must carry (verified when a checksum holds, unverified when it fails, format
// when the layout has none); near misses drawn from the same grammars (cut below the shortest layout,
// glued to a word byte) that must not be found; the wrong-checksum set as unverified; and handwritten
// values in the layouts the providers document for the variants added from the shared corpus.

import { describe, expect, it } from 'vitest';
import { unverifiedPositives } from '../../fixtures/detect/corpus.ts';
import { sampleOfGrammar } from '../../fixtures/detect/tokens.ts';
import { createDetector } from '../../src/detect/detector.ts';
import { createCredentialFinder, type Credential } from '../../src/detect/find.ts';
import { ANCHOR, type Run } from '../../src/detect/grammar.ts';
import type { Kind } from '../../src/detect/kind.ts';
import { KINDS } from '../../src/detect/kinds.ts';
import { mulberry32 } from '../../src/util/prng.ts';

const finder = createCredentialFinder(createDetector());
const find = (text: string): Credential[] => finder.find(Buffer.from(text, 'utf8'));
const SEEDS = [1, 2, 3];
const GRAMMAR_KINDS = KINDS.filter((k) => k.confirm === undefined && (k.grammars?.length ?? 0) > 0);
/** Kinds whose values the generic generator cannot draw (a padding or length rule checked apart). */
const CHECKED = new Set(['azure-storage-account-key', 'azure-shared-access-key']);

/** Fewest bytes any grammar of the kind needs after its anchor. */
function minAfter(kind: Kind): number {
  let min = Infinity;
  for (const g of kind.grammars ?? []) {
    const at = g.parts.indexOf(ANCHOR);
    let n = 0;
    for (const p of g.parts.slice(at + 1)) n += typeof p === 'string' ? p.length : (p as Run).min;
    min = Math.min(min, n);
  }
  return min;
}

const startsWithAnchor = (kind: Kind): boolean => (kind.grammars ?? []).every((g) => g.parts[0] === ANCHOR);

describe('every kind in every layout', () => {
  it('finds a value drawn from each grammar of each kind, with its kind, exact value and verdict', () => {
    const wrong: string[] = [];
    let cases = 0;
    for (const kind of GRAMMAR_KINDS) {
      if (CHECKED.has(kind.name)) continue;
      kind.grammars!.forEach((g, gi) => {
        for (const seed of SEEDS) {
          const rnd = mulberry32(seed * 1000 + gi);
          for (const valid of g.verify === undefined ? [true] : [true, false]) {
            const s = sampleOfGrammar(kind, gi, rnd, seed, valid);
            const want = g.verify === undefined ? 'format' : valid ? 'verified' : 'unverified';
            const got = find(`export TOKEN="${s.text}"\n`);
            cases++;
            if (!got.some((c) => c.kind === kind.name && c.value === s.secret && c.verdict === want)) {
              wrong.push(`${kind.name} grammar ${gi} seed ${seed} ${want}: ${got.map((c) => `${c.kind}/${c.verdict}`).join(',') || 'nothing'}`);
            }
          }
        }
      });
    }
    expect(wrong).toEqual([]);
    expect(cases).toBeGreaterThan(KINDS.length * 3);
  });

  it('finds none of the near misses: cut below the shortest layout, or glued to a word byte', () => {
    const found: string[] = [];
    for (const kind of GRAMMAR_KINDS) {
      if (CHECKED.has(kind.name)) continue;
      const rnd = mulberry32(7);
      kind.grammars!.forEach((g, gi) => {
        const s = sampleOfGrammar(kind, gi, rnd, gi);
        const anchor = kind.anchors.find((a) => s.text.includes(a))!;
        const at = s.text.indexOf(anchor) + anchor.length;
        if (!startsWithAnchor(kind)) return;
        // One byte short of what the shortest layout needs after the anchor.
        const cut = s.text.slice(0, at + minAfter(kind) - 1);
        for (const c of find(`TOKEN=${cut}\n`)) found.push(`${kind.name} grammar ${gi} cut: ${c.kind}`);
        if (g.valueAfterAnchor !== true) {
          for (const c of find(`TOKEN=Q${s.text}\n`)) if (c.kind === kind.name) found.push(`${kind.name} grammar ${gi} glued: ${c.kind}`);
        }
      });
    }
    expect(found).toEqual([]);
  });

  it('reports the right shape with a wrong checksum as unverified', () => {
    for (const p of unverifiedPositives()) {
      const got = find(p.text);
      expect(got.map((c) => [c.kind, c.value, c.verdict]), p.label).toEqual(p.credentials.map((c) => [c.kind, c.secret, 'unverified']));
    }
  });
});

/** Random characters of an alphabet, seeded: values written in a documented layout, not copied from anywhere. */
function chars(rnd: () => number, alphabet: string, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += alphabet[Math.floor(rnd() * alphabet.length)];
  return s;
}
const rnd = mulberry32(0xd0c5);
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const ALNUM = `ABCDEFGHIJKLMNOPQRSTUVWXYZ${LOWER}0123456789`;
const HEX = '0123456789abcdef';
const b64url = (o: object): string => Buffer.from(JSON.stringify(o)).toString('base64url');
const uuid = (): string => `${chars(rnd, HEX, 8)}-${chars(rnd, HEX, 4)}-${chars(rnd, HEX, 4)}-${chars(rnd, HEX, 4)}-${chars(rnd, HEX, 12)}`;

/** [kind, value, text around it, verdict], each in the layout its provider (or the rule citing it) documents. */
const HANDWRITTEN: ReadonlyArray<[string, string, string, string]> = [
  // GitHub: app installation tokens now carry the installation id and a JWT; up to 255 word characters.
  ['github-app-token', `ghs_4815162342_${b64url({ alg: 'RS256', typ: 'JWT' })}.${b64url({ iss: '4815162342', exp: 1900000000 })}.${chars(rnd, ALNUM, 43)}`, 'GH_TOKEN=%s', 'format'],
  ['github-user-token', `ghu_${chars(rnd, ALNUM, 30)}_${chars(rnd, ALNUM, 60)}`, 'token: %s', 'format'],
  ['github-fine-grained-pat', `github_pat_${chars(rnd, `${LOWER}0123456789`, 82)}`, '"token": "%s"', 'format'],
  ['gitlab-pat', `glpat-${chars(rnd, `${ALNUM}_-`, 22)}`, 'GITLAB_TOKEN=%s', 'format'],
  ['atlassian-api-token', `ATCTT3xFfG${chars(rnd, ALNUM, 14)}=${chars(rnd, ALNUM, 8)}`, '<secret>%s</secret>', 'format'],
  ['sendgrid-api-key', `SG.${chars(rnd, `${ALNUM}-`, 21)}.${chars(rnd, `${ALNUM}_-`, 49)}`, "sendgrid = '%s'", 'format'],
  ['sendgrid-api-key', `SG.${chars(rnd, `${LOWER}0123456789`, 20)}=${chars(rnd, `${LOWER}0123456789`, 20)}-${chars(rnd, `${LOWER}0123456789`, 23)}=`, '"%s"', 'format'],
  ['shopify-token', `shpca_${chars(rnd, ALNUM, 38)}`, '// custom app\n%s\n', 'format'],
  ['shopify-token', `shppa_${chars(rnd, HEX, 32)}`, 'SHOPIFY_PASSWORD=%s', 'format'],
  ['slack-legacy-token', `xoxr-${chars(rnd, `${LOWER}0123456789`, 12)}`, '"refresh_token": "%s"', 'format'],
  ['square-access-token', `EAAA${chars(rnd, ALNUM, 22)}`, 'SQUARE_TOKEN="%s"', 'format'],
  ['square-legacy-token', `sq0ige-${chars(rnd, `${ALNUM}_-`, 27)}`, "square = '%s'", 'format'],
  ['newrelic-user-key', `NRAK-${chars(rnd, `${LOWER}0123456789`, 27)}`, 'NEW_RELIC_API_KEY=%s', 'format'],
  ['postman-api-key', `PMAK-${chars(rnd, ALNUM, 59)}`, "postman = '%s'", 'format'],
  ['pulumi-access-token', `pul-${chars(rnd, `${LOWER}0123456789`, 40)}`, 'PULUMI_ACCESS_TOKEN=%s', 'format'],
  ['rubygems-api-key', `rubygems_${chars(rnd, `${LOWER}0123456789`, 48)}`, 'GEM_HOST_API_KEY=%s', 'format'],
  ['tailscale-key', `tskey-client-${chars(rnd, ALNUM, 40)}_${chars(rnd, ALNUM, 30)}-${chars(rnd, ALNUM, 20)}_${chars(rnd, ALNUM, 10)}`, "TS_AUTHKEY='%s'", 'format'],
  ['cloudflare-origin-ca-key', `v1.0-${chars(rnd, `${LOWER}0123456789`, 24)}-${chars(rnd, HEX, 146)}`, 'ca_key: "%s"', 'format'],
  ['figma-token', `figp_${chars(rnd, ALNUM, 38)}==`, 'FIGMA_TOKEN=%s', 'format'],
  ['flutterwave-secret-key', `FLWSECK_TEST-${chars(rnd, HEX, 12)}`, '$key = "%s";', 'format'],
  ['jfrog-reference-token', `cmVmdGtuOjAxOj${chars(rnd, ALNUM, 50)}`, 'ARTIFACTORY_TOKEN=%s', 'format'],
  ['jfrog-reference-token', `cmVmd${chars(rnd, `${LOWER}0123456789`, 59)}`, 'token := "%s"', 'format'],
  ['stripe-secret-key', `sk_prod_${chars(rnd, ALNUM, 99)}`, 'STRIPE_KEY=%s', 'format'],
  ['stripe-restricted-key', `rk_prod_${chars(rnd, ALNUM, 99)}`, 'STRIPE_KEY=%s', 'format'],
  ['zapier-webhook-url', chars(rnd, ALNUM, 16), "hook = 'https://hooks.zapier.com/hooks/catch/%s'", 'format'],
  ['teams-webhook-url', `${uuid()}@${uuid()}/IncomingWebhook/${chars(rnd, HEX, 32)}/${uuid()}/V2${chars(rnd, `${ALNUM}_-`, 40)}`, 'TEAMS_WEBHOOK=https://contoso.webhook.office.com/webhookb2/%s', 'format'],
  ['teams-webhook-url', `${uuid()}@${uuid()}/IncomingWebhook/${chars(rnd, HEX, 32)}/${uuid()}`, '"url": "https://contoso.webhook.office.com/webhookb2/%s"', 'format'],
  ['ifttt-webhook-key', chars(rnd, `${ALNUM}_-`, 22), 'open https://maker.ifttt.com/use/%s', 'format'],
  ['ifttt-webhook-trigger-key', chars(rnd, `${ALNUM}_-`, 22), 'curl -X POST https://maker.ifttt.com/trigger/door_open/with/key/%s', 'format'],
  ['make-webhook-url', chars(rnd, `${LOWER}0123456789`, 32), 'MAKE_HOOK=https://hook.eu2.make.com/%s', 'format'],
  ['jwt', `${b64url({ typ: 'JWT', alg: 'HS256' })}.${b64url({ sub: '42', name: 'test' })}.${chars(rnd, `${ALNUM}_-`, 43)}`, 'Authorization: Bearer %s', 'format'],
  ['jwt', `${b64url({ typ: 'JWT', alg: 'HS256' })}.${b64url({ name: 'test', role: 'employee' })}`, 'jwt = %s', 'unverified'],
];

describe('handwritten values in the documented layouts', () => {
  for (const [kind, value, around, verdict] of HANDWRITTEN) {
    it(`${kind}: ${around.replace('%s', '…')}`, () => {
      const got = find(around.replace('%s', value));
      expect(got.map((c) => [c.kind, c.value, c.verdict])).toEqual([[kind, value, verdict]]);
      // Near miss: a byte the layout cannot hold, in the middle of its body, leaves nothing of this kind whole.
      const mid = Math.floor(value.length * 0.6);
      const broken = `${value.slice(0, mid)}#${value.slice(mid + 1)}`;
      expect(find(around.replace('%s', broken)).filter((c) => c.kind === kind && c.value === value)).toEqual([]);
    });
  }

  it('leaves the documented examples alone: GitHub\u2019s REST docs token, the jwt.io token, Stripe\u2019s docs key', () => {
    expect(find('curl -H "Authorization: token ghp_16C7e42F292c6912E7710c838347Ae178B4a"')).toEqual([]);
    expect(find('stripe.api_key = "sk_test_4eC39HqLyjWDarjtT1zdp7dc"')).toEqual([]);
  });
});
