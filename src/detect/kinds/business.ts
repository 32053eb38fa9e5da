// Credential kinds of business and collaboration services: Slack (tokens and webhooks), other webhooks,
// Stripe and payment providers, e-mail and messaging, commerce, productivity and developer-tool SaaS.

import { ALNUM, B64_PAD, B64URL, charset, DIGIT, HEX, HEX_LOWER, LOWER_NUM, UPPER_NUM } from '../charset.ts';
import { prefixed } from '../define.ts';
import { ANCHOR, run, type Part } from '../grammar.ts';
import type { Kind } from '../kind.ts';

const SLACK_TOKENS = 'https://api.slack.com/concepts/token-types';
const SLACK_WEBHOOKS = 'https://api.slack.com/messaging/webhooks';
const STRIPE_KEYS = 'https://docs.stripe.com/keys';
const UUID: readonly Part[] = [run(HEX_LOWER, 8), '-', run(HEX_LOWER, 4), '-', run(HEX_LOWER, 4), '-', run(HEX_LOWER, 4), '-', run(HEX_LOWER, 12)];

/** Slack's numeric ids then a secret: `xoxb-<team>-<bot>-<secret>`, `xoxp-<team>-<user>-<id>-<secret>`. */
const slackIds = (segments: number, secret: Part): readonly Part[] => {
  const parts: Part[] = [run(DIGIT, 6, 15)];
  for (let k = 1; k < segments; k++) parts.push('-', run(DIGIT, 6, 15));
  parts.push('-', secret);
  return parts;
};

const SLACK_EDGE = charset('A-Za-z0-9-');

/**
 * A webhook URL's secret path after its host (the host stays readable). Each anchor also joins with its
 * slashes written `\/` (PHP's json_encode writes every slash so); the runs read `\/` as a slash.
 */
const webhook = (name: string, title: string, anchors: readonly string[], parts: readonly Part[], source: string, alternatives: ReadonlyArray<readonly Part[]> = []): Kind =>
  prefixed(name, title, [...anchors, ...anchors.map((a) => a.replaceAll('/', '\\/'))], parts, source, { valueAfterAnchor: true, edge: '', alternatives });

/** Stripe's documentation key, published for trying the API in test mode. */
const STRIPE_DOCS_TEST_KEY = 'sk_test_4eC39HqLyjWDarjtT1zdp7dc';

export const BUSINESS_KINDS: readonly Kind[] = [
  // Slack documents the prefixes and the numeric ids, not the secret's length: shorter secrets (older
  // and workspace tokens) are accepted down to 10 characters. A `-` may not follow (`…-####` is an id
  // list with a stand-in, not a token).
  prefixed('slack-bot-token', 'Slack bot token', ['xoxb-'], slackIds(2, run(ALNUM, 24)), SLACK_TOKENS, {
    alternatives: [slackIds(1, run(ALNUM, 10, 48)), slackIds(2, run(ALNUM, 10, 48))],
    edge: SLACK_EDGE,
  }),
  prefixed('slack-user-token', 'Slack user token', ['xoxp-'], slackIds(3, run(HEX_LOWER, 32)), SLACK_TOKENS, {
    alternatives: [slackIds(3, run(ALNUM, 10, 48)), slackIds(2, run(ALNUM, 10, 48)), slackIds(1, run(ALNUM, 10, 48))],
    edge: SLACK_EDGE,
  }),
  prefixed('slack-legacy-token', 'Slack workspace, legacy, session or refresh token', ['xoxa-', 'xoxs-', 'xoxo-', 'xoxr-', 'xoxa-2-'], slackIds(3, run(ALNUM, 10, 64)), SLACK_TOKENS, {
    // Workspace and refresh tokens without the numeric ids: 8 to 48 letters and digits.
    alternatives: [slackIds(2, run(ALNUM, 10, 64)), slackIds(1, run(ALNUM, 10, 64)), [run(ALNUM, 8, 48)]],
    edge: SLACK_EDGE,
  }),
  prefixed('slack-config-token', 'Slack configuration access or refresh token', ['xoxe.xoxp-1-', 'xoxe.xoxb-1-', 'xoxe-1-'], [run(ALNUM, 100, 300)], 'https://api.slack.com/authentication/config-tokens'),
  prefixed('slack-app-token', 'Slack app-level token', ['xapp-'], [run(DIGIT, 1), '-', run(UPPER_NUM, 9, 12), '-', run(DIGIT, 10, 16), '-', run(HEX_LOWER, 64)], SLACK_TOKENS),
  webhook('slack-webhook-url', 'Slack incoming webhook or workflow trigger URL', ['hooks.slack.com/services/'], [run(UPPER_NUM, 8, 12), '/', run(UPPER_NUM, 8, 12), '/', run(ALNUM, 20, 32)], SLACK_WEBHOOKS),
  webhook('slack-workflow-webhook-url', 'Slack workflow webhook URL', ['hooks.slack.com/workflows/', 'hooks.slack.com/triggers/'], [run(UPPER_NUM, 8, 12), '/', run(UPPER_NUM, 8, 12), '/', run(DIGIT, 10, 20), '/', run(ALNUM, 20, 40)], 'https://slack.com/help/articles/360041352714', [
    [run(UPPER_NUM, 8, 12), '/', run(DIGIT, 10, 20), '/', run(ALNUM, 20, 40)],
    [run(ALNUM, 24, 64)],
  ]),
  webhook('discord-webhook-url', 'Discord webhook URL', ['discord.com/api/webhooks/', 'discordapp.com/api/webhooks/'], [run(DIGIT, 17, 20), '/', run(B64URL, 60, 80)], 'https://discord.com/developers/docs/resources/webhook'),
  webhook('zapier-webhook-url', 'Zapier catch hook URL', ['hooks.zapier.com/hooks/catch/'], [run(DIGIT, 4, 12), '/', run(LOWER_NUM, 5, 12)], 'https://help.zapier.com/hc/en-us/articles/8496288690317', [
    // A catch hook written as one opaque key (`…/catch/<16 letters and digits>`).
    [run(ALNUM, 16, 40)],
  ]),
  webhook('tines-webhook-url', 'Tines webhook URL', ['.tines.com/webhook/'], [run(LOWER_NUM, 32), '/', run(LOWER_NUM, 32)], 'https://www.tines.com/docs/actions/types/webhook'),
  prefixed('stripe-secret-key', 'Stripe live (or prod) secret key', ['sk_live_', 'sk_prod_'], [run(ALNUM, 24, 247)], STRIPE_KEYS),
  prefixed('stripe-restricted-key', 'Stripe live (or prod) restricted key', ['rk_live_', 'rk_prod_'], [run(ALNUM, 24, 247)], STRIPE_KEYS),
  prefixed('stripe-test-key', 'Stripe test-mode secret or restricted key', ['sk_test_', 'rk_test_'], [run(ALNUM, 24, 247)], STRIPE_KEYS, { examples: [STRIPE_DOCS_TEST_KEY] }),
  prefixed('stripe-webhook-secret', 'Stripe (and Svix-style) webhook signing secret', ['whsec_'], [run(B64_PAD, 32, 88)], 'https://docs.stripe.com/webhooks#verify-events', { structured: true }),
  prefixed('paypal-braintree-token', 'PayPal Braintree access token', ['access_token$production$', 'access_token$sandbox$'], [run(ALNUM, 16), '$', run(HEX_LOWER, 32)], 'https://developer.paypal.com/braintree/docs/guides/authorization/overview'),
  prefixed('square-access-token', 'Square access token', ['EAAA'], [run(B64URL, 60)], 'https://developer.squareup.com/docs/build-basics/access-tokens', {
    // Sandbox and older tokens are shorter (22 characters and up after EAAA).
    alternatives: [[run(charset('A-Za-z0-9_=-'), 60)], [run(B64URL, 22, 59)]],
  }),
  prefixed('square-legacy-token', 'Square OAuth access token, application secret or sandbox key (legacy sq0…-)', ['sq0atp-', 'sq0csp-', 'sq0ige-'], [run(B64URL, 22, 43)], 'https://developer.squareup.com/docs/build-basics/access-tokens'),
  prefixed('facebook-access-token', 'Meta (Facebook, Instagram) Graph API access token', ['EAA'], [run(ALNUM, 90, 400)], 'https://developers.facebook.com/docs/facebook-login/guides/access-tokens'),
  prefixed('razorpay-key', 'Razorpay API key id', ['rzp_live_', 'rzp_test_'], [run(ALNUM, 14)], 'https://razorpay.com/docs/api/authentication/'),
  prefixed('flutterwave-secret-key', 'Flutterwave secret key or encryption key', ['FLWSECK-', 'FLWSECK_TEST-'], [run(ALNUM, 32), '-X'], 'https://developer.flutterwave.com/docs/authentication', {
    // The encryption key: the same prefix and 12 hex digits.
    alternatives: [[run(HEX, 12)]],
  }),
  prefixed('duffel-token', 'Duffel access token', ['duffel_live_', 'duffel_test_'], [run(charset('A-Za-z0-9_=-'), 43)], 'https://duffel.com/docs/api/overview/making-requests/authentication'),
  prefixed('easypost-key', 'EasyPost production or test API key', ['EZAK', 'EZTK'], [run(ALNUM, 54)], 'https://docs.easypost.com/docs/authentication'),
  prefixed('shippo-token', 'Shippo live or test API token', ['shippo_live_', 'shippo_test_'], [run(HEX_LOWER, 40)], 'https://docs.goshippo.com/docs/guides_general/authentication/'),
  prefixed('sendgrid-api-key', 'SendGrid (Twilio) API key', ['SG.'], [run(B64URL, 22), '.', run(B64URL, 43)], 'https://www.twilio.com/docs/sendgrid/ui/account-and-settings/api-keys', {
    // Key id and secret of other lengths (`-` and `_` included), or 66 characters that may hold `=`.
    alternatives: [[run(B64URL, 20, 24), '.', run(B64URL, 39, 50)], [run(charset('A-Za-z0-9=_.-'), 66)]],
  }),
  prefixed('brevo-api-key', 'Brevo (Sendinblue) API or SMTP key', ['xkeysib-', 'xsmtpsib-'], [run(HEX_LOWER, 64), '-', run(ALNUM, 16)], 'https://developers.brevo.com/docs/getting-started'),
  {
    name: 'mailchimp-api-key',
    title: 'Mailchimp Marketing API key',
    anchors: ['-us'],
    grammars: [{ parts: [run(HEX_LOWER, 32), ANCHOR, run(DIGIT, 1, 2)] }],
    checksum: false,
    source: 'https://mailchimp.com/developer/marketing/guides/quick-start/#generate-your-api-key',
  },
  prefixed('twilio-api-key', 'Twilio API key SID', Array.from('0123456789abcdef', (h) => `SK${h}`), [run(HEX_LOWER, 31)], 'https://www.twilio.com/docs/iam/api-keys'),
  // Issued as 32 hex digits; copies of custom-app and private-app tokens run up to 48 characters.
  prefixed('shopify-token', 'Shopify admin, custom-app, private-app or shared secret', ['shpat_', 'shpca_', 'shppa_', 'shpss_'], [run(ALNUM, 32, 48)], 'https://shopify.dev/docs/apps/build/authentication-authorization/access-token-types/generate-app-access-tokens-admin'),
  prefixed('clickup-api-token', 'ClickUp personal API token', ['pk_'], [run(DIGIT, 1, 12), '_', run(UPPER_NUM, 32)], 'https://clickup.com/api/developer-portal/authentication/#personal-token'),
  prefixed('postman-api-key', 'Postman API key', ['PMAK-'], [run(ALNUM, 24), '-', run(ALNUM, 34)], 'https://learning.postman.com/docs/developer/postman-api/authentication/', {
    alternatives: [[run(ALNUM, 59)]],
  }),
  prefixed('linear-api-key', 'Linear personal API key', ['lin_api_'], [run(ALNUM, 40)], 'https://linear.app/developers/graphql#personal-api-keys'),
  prefixed('notion-token', 'Notion integration token', ['ntn_'], [run(ALNUM, 46)], 'https://developers.notion.com/docs/authorization'),
  prefixed('notion-legacy-token', 'Notion integration token (legacy secret_)', ['secret_'], [run(ALNUM, 43)], 'https://developers.notion.com/docs/authorization'),
  prefixed('figma-token', 'Figma personal access or OAuth token', ['figd_', 'figp_', 'figr_', 'figu_'], [run(B64URL, 40)], 'https://www.figma.com/developers/api#access-tokens', {
    // 40 characters that end in base64 padding.
    alternatives: [[run(B64URL, 38), '=='], [run(B64URL, 39), '=']],
  }),
  prefixed('airtable-pat', 'Airtable personal access token', ['pat'], [run(ALNUM, 14), '.', run(HEX_LOWER, 64)], 'https://airtable.com/developers/web/guides/personal-access-tokens'),
  prefixed('hubspot-private-app-token', 'HubSpot private app access token', ['pat-na1-', 'pat-eu1-'], UUID, 'https://developers.hubspot.com/docs/api/private-apps', { structured: true }),
  prefixed('typeform-token', 'Typeform personal access token', ['tfp_'], [run(charset('A-Za-z0-9_=.-'), 40, 59)], 'https://www.typeform.com/developers/get-started/personal-access-token/'),
  prefixed('adafruit-io-key', 'Adafruit IO key', ['aio_'], [run(ALNUM, 28)], 'https://io.adafruit.com/api/docs/#authentication'),
  prefixed('frameio-token', 'Frame.io developer token', ['fio-u-'], [run(charset('A-Za-z0-9_=-'), 64)], 'https://developer.frame.io/docs/getting-started/authentication'),
  prefixed('contentful-pat', 'Contentful personal access token', ['CFPAT-'], [run(B64URL, 43)], 'https://www.contentful.com/developers/docs/references/authentication/'),
  // base64 of {"u":" — Mapbox secret tokens are sk. + a JWT-like payload and signature.
  prefixed('mapbox-secret-token', 'Mapbox secret access token', ['sk.eyJ1Ijoi'], [run(B64URL, 20, 300), '.', run(B64URL, 20, 30)], 'https://docs.mapbox.com/help/glossary/access-token/'),
  {
    name: 'maxmind-license-key',
    title: 'MaxMind license key',
    anchors: ['_mmk'],
    grammars: [{ parts: [run(ALNUM, 6), '_', run(ALNUM, 29), ANCHOR] }],
    checksum: false,
    source: 'https://dev.maxmind.com/license-key',
  },
  prefixed('readme-api-key', 'ReadMe API key', ['rdme_'], [run(LOWER_NUM, 70)], 'https://docs.readme.com/main/reference/intro/authentication'),
  prefixed('settlemint-token', 'SettleMint personal, service or application token', ['sm_pat_', 'sm_sat_', 'sm_aat_'], [run(LOWER_NUM, 16)], 'https://console.settlemint.com/documentation/platform-components/security-and-authentication/personal-access-tokens'),
  prefixed('intra42-client-secret', '42 (intra) OAuth client secret', ['s-s4t2ud-', 's-s4t2af-'], [run(HEX_LOWER, 64)], 'https://api.intra.42.fr/apidoc/guides/getting_started'),
  prefixed('saladcloud-api-key', 'SaladCloud API key', ['salad_cloud_org_', 'salad_cloud_user_'], [run(ALNUM, 40, 60)], 'https://docs.salad.com/reference/api-usage'),
  {
    name: 'telegram-bot-token',
    title: 'Telegram bot token',
    anchors: [':AA'],
    grammars: [{ parts: [run(DIGIT, 8, 10), ANCHOR, run(B64URL, 33)] }],
    checksum: false,
    source: 'https://core.telegram.org/bots/api#authorizing-your-bot',
  },
];
