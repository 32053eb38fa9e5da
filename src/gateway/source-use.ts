// Which sources' versions the secret set in use carries: what a load handed the registry is remembered
// under the version of the set built from it, and becomes "in use" once the registry's current set has
// that version — so metrics move when requests use the values, not when a source was read.

export interface InUse<T> {
  /** A load handed this to the registry (the set being built carries it). */
  handedOut(value: T): void;
  /** The registry built set `version` from the latest load. */
  built(version: number): void;
  /** What the set of `version` (the one requests use now) carries; the last known one if that set is not known. */
  at(version: number): T | undefined;
}

/** Sets remembered beyond the one in use (a reload builds one at a time; a few cover any race). */
const MAX_KEPT = 4;

export function createInUse<T>(): InUse<T> {
  let pending: T | undefined;
  const builtSets = new Map<number, T>();
  let inUse: T | undefined;
  let inUseVersion = -1;
  return {
    handedOut(value) {
      pending = value;
    },
    built(version) {
      if (pending === undefined) return;
      builtSets.set(version, pending);
      pending = undefined;
      // Unread (nothing asked since: no scrape) entries of older sets go, so an instance nobody scrapes keeps
      // a few, not one per reload.
      for (const v of builtSets.keys()) if (builtSets.size > MAX_KEPT && v < version) builtSets.delete(v);
    },
    at(version) {
      if (version === inUseVersion) return inUse;
      const carried = builtSets.get(version);
      if (carried === undefined) return inUse;
      inUse = carried;
      inUseVersion = version;
      for (const v of builtSets.keys()) if (v <= version) builtSets.delete(v);
      return inUse;
    },
  };
}
