// Webhook URLs whose path is the credential, beyond the chat and automation hooks in business.ts:
// Microsoft Teams incoming webhooks, IFTTT Maker keys and Make (Integromat) scenario hooks. The host
// stays readable; what follows it is redacted.

import { B64URL, charset, HEX_LOWER, LOWER_NUM } from '../charset.ts';
import { prefixed } from '../define.ts';
import { ANCHOR, run, type Part } from '../grammar.ts';
import type { Kind } from '../kind.ts';

const UUID: readonly Part[] = [run(HEX_LOWER, 8), '-', run(HEX_LOWER, 4), '-', run(HEX_LOWER, 4), '-', run(HEX_LOWER, 4), '-', run(HEX_LOWER, 12)];

/** Anchors also as PHP's JSON writes them (every slash `\/`); the grammars read `\/` as a slash. */
const withEscapedSlashes = (anchors: readonly string[]): string[] => [...anchors, ...anchors.map((a) => a.replaceAll('/', '\\/'))];

const TEAMS_PATH: readonly Part[] = [...UUID, '@', ...UUID, '/IncomingWebhook/', run(HEX_LOWER, 32), '/', ...UUID];

export const WEBHOOK_KINDS: readonly Kind[] = [
  prefixed(
    'teams-webhook-url',
    'Microsoft Teams incoming webhook URL (Office 365 connector)',
    withEscapedSlashes(['.webhook.office.com/webhookb2/']),
    // Newer URLs end in a `/V2…` signature segment; older ones end at the connector's id.
    [...TEAMS_PATH, '/', run(B64URL, 20, 120)],
    'https://learn.microsoft.com/en-us/microsoftteams/platform/webhooks-and-connectors/how-to/add-incoming-webhook',
    { valueAfterAnchor: true, edge: '', structured: true, alternatives: [TEAMS_PATH] },
  ),
  prefixed('ifttt-webhook-key', 'IFTTT Webhooks (Maker) key in a URL', withEscapedSlashes(['maker.ifttt.com/use/']), [run(B64URL, 20, 64)], 'https://ifttt.com/maker_webhooks', {
    valueAfterAnchor: true,
    edge: '',
  }),
  {
    name: 'ifttt-webhook-trigger-key',
    title: 'IFTTT Webhooks (Maker) key in a trigger URL',
    anchors: withEscapedSlashes(['/with/key/']),
    grammars: [{ parts: ['maker.ifttt.com/trigger/', run(charset('A-Za-z0-9_.-'), 1, 64), ANCHOR, run(B64URL, 20, 64)], valueAfterAnchor: true, edge: '' }],
    checksum: false,
    source: 'https://ifttt.com/maker_webhooks',
  },
  prefixed(
    'make-webhook-url',
    'Make (Integromat) scenario webhook URL',
    withEscapedSlashes(['hook.eu1.make.com/', 'hook.eu2.make.com/', 'hook.us1.make.com/', 'hook.us2.make.com/', 'hook.integromat.com/']),
    [run(LOWER_NUM, 32)],
    'https://www.make.com/en/help/tools/webhooks',
    { valueAfterAnchor: true, edge: '' },
  ),
];
