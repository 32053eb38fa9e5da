// The organisation's sources at run time (`[[sources]]`): each is read on its own schedule (a directory
// is also watched, so Kubernetes' atomic `..data` swap is seen), keeps its last good values when a read
// fails, and keeps a removed or replaced value for `retain` (agents' contexts still hold it). The registry
// sees them as one SecretSource whose load() never fails: a source that has never loaded makes the
// instance not ready instead, so a request is never served without it.

import { watch, type FSWatcher } from 'node:fs';
import { dirname } from 'node:path';
import type { FictaError } from '../errors.ts';
import { parseDuration } from '../config/duration.ts';
import { ok } from '../util/result.ts';
import type { SecretEntry, SecretSource } from '../secrets/types.ts';
import { readSource, type SourceValue } from './source-kinds.ts';
import { DEFAULT_RETAIN, type SourceConfig } from './sources-config.ts';

/** One source as the admin side reports it: names, counts and times, never values. */
export interface SourceStatus {
  name: string;
  type: string;
  groups: string[];
  /** Increments on every load that changed its values. */
  version: number;
  /** Values it currently holds (retired ones still retained not included). */
  values: number;
  /** Retired values still protected (removed or replaced less than `retain` ago). */
  retained?: number;
  /** Epoch ms of the last successful load. */
  lastLoadAt?: number;
  lastResult: 'ok' | 'error';
  /** The last failure's message (names a path or a command, never a value). */
  error?: string;
}

export interface OrgSources {
  /** What the registry loads: every source's current and retained values, with their source and groups. */
  readonly source: SecretSource;
  /** Every source has loaded at least once. */
  ready(): boolean;
  status(): SourceStatus[];
  /** Reads every source again now (SIGHUP); the registry is told when anything changed. */
  refreshAll(): Promise<void>;
  close(): void;
}

export interface OrgSourcesOptions {
  env: NodeJS.ProcessEnv;
  /** `[gateway] retain` in ms, for sources without their own (default 7 days). */
  retainMs?: number;
  /** Told about each read: its result (a failure keeps the last good values). */
  onResult?: (source: string, error: FictaError | undefined, values: number) => void;
  now?: () => number;
}

/** Debounce of directory and file change events (a Kubernetes swap is several renames). */
const WATCH_DEBOUNCE_MS = 100;
/** Retired values are swept at least this often. */
const MAX_SWEEP_MS = 60 * 60 * 1000;

interface State {
  config: SourceConfig;
  retainMs: number;
  current: SourceValue[];
  /** value → its name and when it stops being protected. */
  retired: Map<string, { name: string; until: number }>;
  loaded: boolean;
  version: number;
  lastLoadAt: number | undefined;
  error: string | undefined;
  running: Promise<void> | undefined;
  again: boolean;
}

/** Reads every source once (failures keep the source not ready) and starts their schedules. */
export async function createOrgSources(configs: readonly SourceConfig[], options: OrgSourcesOptions): Promise<OrgSources> {
  const now = options.now ?? Date.now;
  const defaultRetain = options.retainMs ?? (parseDuration(DEFAULT_RETAIN) as number);
  const states: State[] = configs.map((config) => ({
    config,
    retainMs: config.retain ?? defaultRetain,
    current: [],
    retired: new Map(),
    loaded: false,
    version: 0,
    lastLoadAt: undefined,
    error: undefined,
    running: undefined,
    again: false,
  }));
  const listeners = new Set<() => void>();
  const changed = (): void => {
    for (const l of listeners) l();
  };

  const readOnce = async (s: State): Promise<void> => {
    const r = await readSource(s.config, options.env);
    if (!r.ok) {
      s.error = r.error.message;
      options.onResult?.(s.config.name, r.error, s.current.length);
      return;
    }
    s.error = undefined;
    s.lastLoadAt = now();
    const next = r.value;
    const first = !s.loaded;
    s.loaded = true;
    const nextValues = new Set(next.map((v) => v.value));
    let differs = first || next.length !== s.current.length;
    for (const old of s.current) {
      if (nextValues.has(old.value)) continue;
      differs = true;
      s.retired.set(old.value, { name: old.name, until: now() + s.retainMs });
    }
    for (const v of next) if (s.retired.delete(v.value)) differs = true;
    if (!differs) {
      const before = new Map(s.current.map((v) => [v.name, v.value]));
      differs = next.some((v) => before.get(v.name) !== v.value);
    }
    s.current = next;
    options.onResult?.(s.config.name, undefined, next.length);
    if (differs) {
      s.version++;
      changed();
    }
  };

  /** One read at a time per source; a request for another during one runs once more after it. */
  const refresh = (s: State): Promise<void> => {
    if (s.running !== undefined) {
      s.again = true;
      return s.running;
    }
    s.running = (async () => {
      try {
        do {
          s.again = false;
          await readOnce(s);
        } while (s.again);
      } finally {
        s.running = undefined;
      }
    })();
    return s.running;
  };

  await Promise.all(states.map((s) => refresh(s)));

  const timers: NodeJS.Timeout[] = [];
  const watchers: FSWatcher[] = [];
  for (const s of states) {
    const c = s.config;
    const every = c.type === 'env' ? undefined : c.refresh;
    if (every !== undefined) timers.push(setInterval(() => void refresh(s), every).unref());
    if (c.type === 'dir' || c.type === 'dotenv') {
      let pending: NodeJS.Timeout | undefined;
      const onEvent = (): void => {
        if (pending !== undefined) return;
        pending = setTimeout(() => {
          pending = undefined;
          void refresh(s);
        }, WATCH_DEBOUNCE_MS).unref();
      };
      try {
        // The directory itself (its `..data` link is replaced) or the file's directory (editors and
        // deploy tools replace files by renaming).
        const w = watch(c.type === 'dir' ? c.path : dirname(c.path), { persistent: false }, onEvent);
        w.on('error', () => undefined); // the refresh schedule still reads it
        watchers.push(w);
      } catch {
        // Not there yet: the schedule (dir) or SIGHUP (dotenv) reads it when it is.
      }
    }
  }
  const minRetain = Math.min(MAX_SWEEP_MS, ...states.map((s) => s.retainMs));
  timers.push(setInterval(() => sweep(), Math.max(1000, minRetain)).unref());

  const sweep = (): void => {
    const t = now();
    let any = false;
    for (const s of states) {
      for (const [value, r] of s.retired) {
        if (r.until > t) continue;
        s.retired.delete(value);
        any = true;
      }
    }
    if (any) changed();
  };

  return {
    source: {
      kind: 'sources',
      async load() {
        sweep();
        const out: SecretEntry[] = [];
        for (const s of states) {
          const groups = s.config.groups;
          for (const v of s.current) out.push({ name: v.name, value: v.value, source: s.config.name, groups });
          for (const [value, r] of s.retired) out.push({ name: r.name, value, source: s.config.name, groups });
        }
        return ok(out);
      },
      watch(onChange) {
        listeners.add(onChange);
        return () => listeners.delete(onChange);
      },
    },
    ready: () => states.every((s) => s.loaded),
    status: () =>
      states.map((s): SourceStatus => ({
        name: s.config.name,
        type: s.config.type,
        groups: [...s.config.groups],
        version: s.version,
        values: s.current.length,
        retained: s.retired.size,
        ...(s.lastLoadAt === undefined ? {} : { lastLoadAt: s.lastLoadAt }),
        lastResult: s.error === undefined && s.loaded ? 'ok' : 'error',
        ...(s.error === undefined ? {} : { error: s.error }),
      })),
    async refreshAll() {
      await Promise.all(states.map((s) => refresh(s)));
    },
    close() {
      for (const t of timers) clearInterval(t);
      for (const w of watchers) w.close();
      listeners.clear();
    },
  };
}
