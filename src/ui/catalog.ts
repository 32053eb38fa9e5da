// The names the dashboard lists on its Secrets page: each registered secret's name, where it came from and
// the hosts it may be restored towards, recorded as the sources load (never a value).

import type { SecretEntry, SecretSource } from '../secrets/types.ts';

export interface CatalogEntry {
  name: string;
  /** As the source says it: `vault`, `env-file:/path/.env`, `env:NAME`, `discovered:./.env`, … */
  source: string;
  hosts: readonly string[];
}

export interface SecretCatalog {
  /** Wraps sources so every successful load records its entries' names, sources and hosts. */
  wrap(sources: readonly SecretSource[]): SecretSource[];
  /** The entries of the last load of every source, in source order. */
  entries(): CatalogEntry[];
  /** The source of a name (the first source naming it), or undefined. */
  sourceOf(name: string): string | undefined;
}

export function createSecretCatalog(): SecretCatalog {
  const bySource: CatalogEntry[][] = [];
  const describe = (e: SecretEntry): CatalogEntry => ({ name: e.name, source: e.source, hosts: [...(e.hosts ?? [])] });
  return {
    wrap(sources) {
      return sources.map((source, i): SecretSource => {
        bySource[i] = [];
        return {
          kind: source.kind,
          async load() {
            const r = await source.load();
            if (r.ok) bySource[i] = r.value.map(describe);
            return r;
          },
          ...(source.watch === undefined ? {} : { watch: source.watch.bind(source) }),
          ...(source.close === undefined ? {} : { close: source.close.bind(source) }),
        };
      });
    },
    entries: () => bySource.flat(),
    sourceOf(name) {
      for (const list of bySource) for (const e of list) if (e.name === name) return e.source;
      return undefined;
    },
  };
}
