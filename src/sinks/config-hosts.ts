// Applies `[secrets.hosts]` to secret sources: each entry named there gets those hosts added to its own
// (a vault record may already carry some), so the compiled secret set knows where every secret may go.
// The table may be a live one (the dashboard's "allow this host"): it is then read at every load.

import type { SecretEntry, SecretSource } from '../secrets/types.ts';
import { ok } from '../util/result.ts';

/**
 * Wraps sources so their entries carry the configured hosts of their name. A plain table that names nothing
 * returns the sources as they are; a function is asked at every load (a table that changes at run time).
 */
export function withConfiguredHosts(
  sources: readonly SecretSource[],
  hostsByName: Readonly<Record<string, readonly string[]>> | (() => Readonly<Record<string, readonly string[]>>),
): SecretSource[] {
  if (typeof hostsByName !== 'function' && Object.keys(hostsByName).length === 0) return [...sources];
  const table = typeof hostsByName === 'function' ? hostsByName : () => hostsByName;
  const addHosts = (hostsFor: Readonly<Record<string, readonly string[]>>, e: SecretEntry): SecretEntry => {
    const extra = Object.hasOwn(hostsFor, e.name) ? hostsFor[e.name] : undefined;
    if (extra === undefined || extra.length === 0) return e;
    return { ...e, hosts: [...new Set([...(e.hosts ?? []), ...extra])] };
  };
  return sources.map((source): SecretSource => ({
    kind: source.kind,
    async load() {
      const r = await source.load();
      if (!r.ok) return r;
      const hostsFor = table();
      return ok(r.value.map((e) => addHosts(hostsFor, e)));
    },
    ...(source.watch === undefined ? {} : { watch: source.watch.bind(source) }),
    ...(source.close === undefined ? {} : { close: source.close.bind(source) }),
  }));
}
