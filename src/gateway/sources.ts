// The organisation's sources at run time (`[[sources]]`): each is read on its own schedule (a directory
// is also watched, so Kubernetes' atomic `..data` swap is seen), keeps its last good values when a read
// fails, and keeps a removed or replaced value for `retain` (agents' contexts still hold it). A changed
// `[[sources]]` list is applied live (`apply`): added sources join once they have loaded, removed ones
// retire their values. The registry sees them as one SecretSource whose load() never fails: a source
// that has never loaded makes a starting instance not ready instead, so no request is served without it.

import type { FictaError } from '../errors.ts';
import { parseDuration } from '../config/duration.ts';
import { ok } from '../util/result.ts';
import { nextTask } from '../util/steps.ts';
import type { SecretEntry, SecretSource } from '../secrets/types.ts';
import { readSource, type SourceValue } from './source-kinds.ts';
import { acceptRead, newState, readingPart, retireAll, schedule, type SourceState } from './source-state.ts';
import { createInUse } from './source-use.ts';
import { DEFAULT_RETAIN, type SourceConfig } from './sources-config.ts';

/** What a source contributes to one secret set: names and counts, never values. */
export interface SourceUse {
  /** The source's version carried by the set (0: none of its values yet). */
  version: number;
  values: number;
  retained: number;
}

/** One source as the admin side reports it: names, counts and times, never values. */
export interface SourceStatus {
  name: string;
  type: string;
  groups: string[];
  /** Increments on every read that changed its values (the latest read; the set in use may be older: `inUse`). */
  version: number;
  /** Values it currently holds (retired ones still retained not included). */
  values: number;
  /** Retired values still protected (removed or replaced less than `retain` ago). */
  retained?: number;
  /** What the secret set requests use now holds of it (when the caller names that set's version). */
  inUse?: SourceUse;
  /** Loaded at least once under its current definition. */
  loaded: boolean;
  /** No longer configured: listed only while it still retains values. */
  removed?: true;
  /** Reads that failed since it was configured. */
  failures: number;
  /** Epoch ms of the last successful load. */
  lastLoadAt?: number;
  lastResult: 'ok' | 'error';
  /** The last failure's message (names a path or a command, never a value). */
  error?: string;
}

/** Names of the sources a changed `[[sources]]` list added, removed and changed. */
export interface SourcesChange {
  added: string[];
  removed: string[];
  changed: string[];
}

export interface OrgSources {
  /** What the registry loads: every source's current and retained values, with their source and groups. */
  readonly source: SecretSource;
  /**
   * Every source has loaded at least once; once true it stays true (a source added later and not yet
   * loaded leaves a ready instance ready: it was protected before and loses nothing).
   */
  ready(): boolean;
  /** Configured sources not loaded under their current definition. */
  pending(): string[];
  /** `setVersion`: the version of the set requests use, to report what it carries (`inUse`). */
  status(setVersion?: number): SourceStatus[];
  /** The registry built set `version` from the latest load(): what it carries is known from now on. */
  built(version: number): void;
  /**
   * Reads every source again now (SIGHUP). Resolves true when anything changed; the registry is told too,
   * unless `quiet` (the caller reloads it itself).
   */
  refreshAll(options?: { quiet?: boolean }): Promise<boolean>;
  /**
   * Applies a changed `[[sources]]` list: added sources, changed definitions and sources not loaded yet
   * are read now unless `read` is false; removed ones retire their values. The registry is not told: the
   * caller reloads it.
   */
  apply(configs: readonly SourceConfig[], options?: { read?: boolean }): Promise<SourcesChange>;
  close(): void;
}

export interface OrgSourcesOptions {
  env: NodeJS.ProcessEnv;
  /** `[gateway] retain` in ms, for sources without their own (default 7 days). */
  retainMs?: number;
  /** Told about each read: its result (a failure keeps the last good values) and whether it ever loaded. */
  onResult?: (source: string, error: FictaError | undefined, values: number, loaded: boolean) => void;
  now?: () => number;
}

/** Retired values are swept at least this often. */
const MAX_SWEEP_MS = 60 * 60 * 1000;

/** Reads every source once (failures keep the source not ready) and starts their schedules. */
export async function createOrgSources(configs: readonly SourceConfig[], options: OrgSourcesOptions): Promise<OrgSources> {
  const now = options.now ?? Date.now;
  const defaultRetain = options.retainMs ?? (parseDuration(DEFAULT_RETAIN) as number);
  const retainOf = (c: SourceConfig): number => c.retain ?? defaultRetain;
  /** Configured sources in config order, then removed ones still retaining values. */
  let states: SourceState[] = configs.map((c) => newState(c, retainOf(c)));
  const listeners = new Set<() => void>();
  const changed = (): void => {
    for (const l of listeners) l();
  };
  const live = (): SourceState[] => states.filter((s) => !s.removed);
  let wasReady = false;
  const allLoaded = (): boolean => live().every((s) => s.loaded);
  const latch = (): void => {
    if (!wasReady && allLoaded()) wasReady = true;
  };
  let closed = false;

  /**
   * A source's entries as the registry takes them, made again only when its values, retired values or
   * groups changed: a reload after one source changed reuses every other source's (long-lived) objects.
   */
  const handed = new WeakMap<SourceState, { current: SourceValue[]; groups: readonly string[]; version: number; retired: number; entries: SecretEntry[] }>();
  const entriesOf = (s: SourceState): SecretEntry[] => {
    const last = handed.get(s);
    if (last !== undefined && last.current === s.current && last.groups === s.config.groups && last.version === s.version && last.retired === s.retired.size) return last.entries;
    const name = s.config.name;
    const entries: SecretEntry[] = [];
    for (const v of s.current) entries.push({ name: v.name, value: v.value, source: name, groups: s.config.groups });
    for (const [value, r] of s.retired) entries.push({ name: r.name, value, source: name, groups: r.groups });
    handed.set(s, { current: s.current, groups: s.config.groups, version: s.version, retired: s.retired.size, entries });
    return entries;
  };

  const readOnce = async (s: SourceState): Promise<boolean> => {
    const generation = s.generation;
    const r = await readSource(s.config, options.env);
    // Reads that finish together are taken one task each: a reload of 10 sources of 1,000 values each
    // otherwise parses and compares them all in one stretch of the request thread.
    await nextTask();
    // A read of a definition since replaced, or of a source since removed, is dropped.
    if (s.removed || closed || s.generation !== generation) return false;
    if (!r.ok) {
      s.error = r.error.message;
      s.failures++;
      options.onResult?.(s.config.name, r.error, s.current.length, s.loaded);
      return false;
    }
    const differs = acceptRead(s, r.value, now());
    latch();
    options.onResult?.(s.config.name, undefined, r.value.length, true);
    return differs;
  };

  /** One read at a time per source; a request for another during one runs once more after it. */
  const refresh = (s: SourceState, notify: boolean): Promise<boolean> => {
    if (notify) s.notify = true;
    if (s.running !== undefined) {
      s.again = true;
      return s.running;
    }
    s.running = (async () => {
      let differs = false;
      try {
        do {
          s.again = false;
          if (await readOnce(s)) differs = true;
        } while (s.again);
      } finally {
        s.running = undefined;
      }
      if (differs && s.notify) changed();
      s.notify = false;
      return differs;
    })();
    return s.running;
  };

  const sweep = (): boolean => {
    const t = now();
    let any = false;
    for (const s of states) {
      for (const [value, r] of s.retired) {
        if (r.until > t) continue;
        s.retired.delete(value);
        any = true;
      }
    }
    states = states.filter((s) => !s.removed || s.retired.size > 0);
    return any;
  };
  let sweepTimer: NodeJS.Timeout | undefined;
  const scheduleSweep = (): void => {
    clearInterval(sweepTimer);
    const minRetain = Math.min(MAX_SWEEP_MS, ...states.map((s) => s.retainMs));
    sweepTimer = setInterval(() => {
      if (sweep()) changed();
    }, Math.max(1000, minRetain)).unref();
  };

  await Promise.all(states.map((s) => refresh(s, false)));
  latch();
  for (const s of states) schedule(s, () => void refresh(s, true));
  scheduleSweep();

  const inUse = createInUse<Map<SourceState, SourceUse>>();

  return {
    source: {
      kind: 'sources',
      async load() {
        sweep();
        const out: SecretEntry[] = [];
        const carried = new Map<SourceState, SourceUse>();
        for (const s of states) {
          for (const e of entriesOf(s)) out.push(e);
          carried.set(s, { version: s.version, values: s.current.length, retained: s.retired.size });
        }
        inUse.handedOut(carried);
        return ok(out);
      },
      watch(onChange) {
        listeners.add(onChange);
        return () => listeners.delete(onChange);
      },
    },
    ready: () => {
      latch();
      return wasReady;
    },
    pending: () => live().filter((s) => !s.loaded).map((s) => s.config.name),
    built: (version) => inUse.built(version),
    status: (setVersion) => {
      const carried = setVersion === undefined ? undefined : inUse.at(setVersion);
      return states.map((s): SourceStatus => ({
        name: s.config.name,
        type: s.config.type,
        groups: [...s.config.groups],
        version: s.version,
        values: s.current.length,
        retained: s.retired.size,
        ...(carried === undefined ? {} : { inUse: carried.get(s) ?? { version: 0, values: 0, retained: 0 } }),
        loaded: s.loaded,
        ...(s.removed ? { removed: true as const } : {}),
        failures: s.failures,
        ...(s.lastLoadAt === undefined ? {} : { lastLoadAt: s.lastLoadAt }),
        lastResult: s.error === undefined && s.loaded ? 'ok' : 'error',
        ...(s.error === undefined ? {} : { error: s.error }),
      }));
    },
    async refreshAll(refreshOptions = {}) {
      const results = await Promise.all(live().map((s) => refresh(s, refreshOptions.quiet !== true)));
      return results.some(Boolean);
    },
    async apply(next, applyOptions = {}) {
      latch();
      const t = now();
      const change: SourcesChange = { added: [], removed: [], changed: [] };
      const byName = new Map(live().map((s) => [s.config.name, s]));
      const retiredByName = new Map(states.filter((s) => s.removed).map((s) => [s.config.name, s]));
      const kept: SourceState[] = [];
      const toRead: SourceState[] = [];
      for (const c of next) {
        const s = byName.get(c.name);
        if (s === undefined) {
          const fresh = newState(c, retainOf(c));
          // A name removed earlier and added again takes over what it still retains (with those groups).
          const earlier = retiredByName.get(c.name);
          if (earlier !== undefined) {
            fresh.retired = earlier.retired;
            fresh.version = earlier.version;
            retiredByName.delete(c.name);
          }
          kept.push(fresh);
          toRead.push(fresh);
          change.added.push(c.name);
          continue;
        }
        byName.delete(c.name);
        kept.push(s);
        if (JSON.stringify(s.config) === JSON.stringify(c)) continue;
        change.changed.push(c.name);
        if (readingPart(s.config) !== readingPart(c)) {
          // A new definition: the old one's values are retired (protected, restored to the groups they had)
          // until the new one yields them again; it is not loaded until it has been read.
          retireAll(s, t);
          s.generation++;
          s.loaded = false;
          s.error = undefined;
          toRead.push(s);
        }
        // Groups apply to its current values at once; a new `retain` to values retired from now on.
        s.config = c;
        s.retainMs = retainOf(c);
      }
      for (const s of byName.values()) {
        s.stop();
        retireAll(s, t);
        s.removed = true;
        change.removed.push(s.config.name);
      }
      // A source still not loaded is tried again too (its file may have appeared since).
      for (const s of kept) if (!s.loaded && !toRead.includes(s)) toRead.push(s);
      states = [...kept, ...byName.values(), ...retiredByName.values()];
      for (const s of kept) if (change.added.includes(s.config.name) || change.changed.includes(s.config.name)) schedule(s, () => void refresh(s, true));
      sweep();
      scheduleSweep();
      if (applyOptions.read !== false) await Promise.all(toRead.map((s) => refresh(s, false)));
      return change;
    },
    close() {
      closed = true;
      for (const s of states) s.stop();
      clearInterval(sweepTimer);
      listeners.clear();
    },
  };
}
