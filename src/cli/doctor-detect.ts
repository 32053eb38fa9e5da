// The detection and discovery part of `ficta doctor`: what zero-config discovery would register for the
// command line checked (counts and variable names, never values) and which detection mode applies.

import type { Config } from '../config/schema.ts';
import { createDetector } from '../detect/detector.ts';
import { createCredentialFinder } from '../detect/find.ts';
import { KINDS } from '../detect/kinds.ts';
import { isFictaError } from '../errors.ts';
import { discoverSources } from '../secrets/discover.ts';
import type { AddCheck } from './doctor-checks.ts';
import { formatDiscoveryNotice } from './discovery-notice.ts';

/**
 * Discovery as serve would run it here (secrets.discover: "auto" only without env file and vault);
 * returns how many secrets it would register.
 */
export function checkDiscovery(config: Config, env: NodeJS.ProcessEnv, cwd: string, vaultUsed: boolean, add: AddCheck): number {
  const mode = config.secrets.discover;
  if (mode === false || (mode === 'auto' && (config.secrets.envFiles.length > 0 || vaultUsed))) return 0;
  const finder = config.detect.mode === 'off' ? undefined : createCredentialFinder(createDetector({ allow: config.detect.allow }));
  try {
    const found = discoverSources({ cwd, env, ...(finder === undefined ? {} : { finder }) });
    formatDiscoveryNotice(found).forEach((msg) => add('ok', 'secrets', msg));
    return found.reduce((n, d) => n + d.count, 0);
  } catch (error) {
    if (!isFictaError(error)) throw error;
    add('fail', 'secrets', error.message);
    return 0;
  }
}

/** The detection mode serve would use. */
export function checkDetection(config: Config, add: AddCheck): void {
  const { mode, allow, custom, pii } = config.detect;
  const terms = config.secrets.terms.length;
  // Counts only: a term is never shown.
  if (terms > 0) add('ok', 'detect', `${terms} term${terms === 1 ? '' : 's'} (secrets.terms) redacted in any case on word boundaries${mode === 'off' ? ', detection off or not' : ''}`);
  if (mode === 'off') {
    add('warn', 'detect', 'off (--detect off / detect.mode): credentials nobody registered reach the provider as they are');
    return;
  }
  if (custom.length > 0) add('ok', 'detect', `${custom.length} custom detector${custom.length === 1 ? '' : 's'} (detect.custom): ${custom.map((r) => r.name).join(', ')}; try one with ficta detect test NAME STRING`);
  if (pii.length > 0) add('ok', 'detect', `personal data (detect.pii): ${pii.join(', ')}`);
  const kinds = KINDS.length - KINDS.filter((k) => allow.includes(k.name)).length;
  add('ok', 'detect', `${mode}: credentials of ${kinds} well-known formats nobody registered are ${mode === 'redact' ? 'redacted' : 'refused (403)'}${allow.length > 0 ? ` (detect.allow: ${allow.length} entr${allow.length === 1 ? 'y' : 'ies'})` : ''}`);
}
