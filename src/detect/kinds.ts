// Every credential kind ficta detects, in one list: the order is the kind index used in secret indices
// and reports, so new kinds are appended.

import type { Kind } from './kind.ts';
import { AI_KINDS } from './kinds/ai.ts';
import { BUSINESS_KINDS } from './kinds/business.ts';
import { CLOUD_KINDS } from './kinds/cloud.ts';
import { KEY_KINDS } from './kinds/keys.ts';
import { SOURCE_CONTROL_KINDS } from './kinds/source-control.ts';
import { WEBHOOK_KINDS } from './kinds/webhooks.ts';

/** All kinds, by family. */
export const KINDS: readonly Kind[] = [...SOURCE_CONTROL_KINDS, ...CLOUD_KINDS, ...AI_KINDS, ...BUSINESS_KINDS, ...KEY_KINDS, ...WEBHOOK_KINDS];

/** The kind called `name`, or undefined. */
export function kindByName(name: string): Kind | undefined {
  return KINDS.find((k) => k.name === name);
}
