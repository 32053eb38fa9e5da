// Applies `[secrets.hosts]` to secret sources: each entry named there gets those hosts added to its own
// (a vault record may already carry some), so the compiled secret set knows where every secret may go.

import type { SecretEntry, SecretSource } from '../secrets/types.ts';
import { ok } from '../util/result.ts';

/** Wraps sources so their entries carry the configured hosts of their name; returns them as they are when none are configured. */
export function withConfiguredHosts(sources: readonly SecretSource[], hostsByName: Readonly<Record<string, readonly string[]>>): SecretSource[] {
  if (Object.keys(hostsByName).length === 0) return [...sources];
  const hostsFor = new Map(Object.entries(hostsByName));
  const addHosts = (e: SecretEntry): SecretEntry => {
    const extra = hostsFor.get(e.name);
    if (extra === undefined || extra.length === 0) return e;
    return { ...e, hosts: [...new Set([...(e.hosts ?? []), ...extra])] };
  };
  return sources.map((source): SecretSource => ({
    kind: source.kind,
    async load() {
      const r = await source.load();
      return r.ok ? ok(r.value.map(addHosts)) : r;
    },
    ...(source.watch === undefined ? {} : { watch: source.watch.bind(source) }),
    ...(source.close === undefined ? {} : { close: source.close.bind(source) }),
  }));
}
