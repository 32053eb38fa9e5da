// The request path as log lines may show it: the access token masked and every registered value replaced
// by its placeholder (a secret in a path segment, `/v1/x;m=<value>/y`, never reaches a log).

import { redactTarget, pathOfTarget } from '../redact/url.ts';
import type { SecretRegistry } from '../secrets/registry.ts';
import { TOKEN_SEGMENT } from './access.ts';

/** The loggable path of a raw target (query dropped); undefined when the secrets are unavailable to redact it. */
export function loggablePath(registry: SecretRegistry, rawTarget: string, token: string | undefined): string | undefined {
  const snap = registry.current();
  if (snap.kind !== 'ready') return undefined;
  let path = pathOfTarget(rawTarget);
  let prefix = '';
  if (token !== undefined && path.startsWith(TOKEN_SEGMENT)) {
    const slash = path.indexOf('/', TOKEN_SEGMENT.length);
    prefix = `${TOKEN_SEGMENT}…`;
    path = slash === -1 ? '' : path.slice(slash);
  }
  return prefix + redactTarget(snap.set, path, new Map());
}
