// One `[[sources]]` entry at run time: its current values, the values it retired (each with the groups it
// had when retired and when it stops being protected), its version and last read, and its schedule (a
// refresh timer; a directory or dotenv file also watched). What a read changed is worked out here.

import { watch } from 'node:fs';
import { dirname } from 'node:path';
import type { SourceValue } from './source-kinds.ts';
import type { SourceConfig } from './sources-config.ts';

/** A value no longer yielded by its source, still protected until `until` (epoch ms). */
export interface RetiredValue {
  name: string;
  until: number;
  /** The groups entitled when it was retired (a later change of the source's groups does not move them). */
  groups: readonly string[];
}

export interface SourceState {
  config: SourceConfig;
  retainMs: number;
  current: SourceValue[];
  /** value → its name, groups and when it stops being protected. */
  retired: Map<string, RetiredValue>;
  /** Loaded at least once under its current definition. */
  loaded: boolean;
  /** Grows by one with every read that changed its values. */
  version: number;
  lastLoadAt: number | undefined;
  error: string | undefined;
  /** Reads that failed (since the source was configured). */
  failures: number;
  /** Grows when what it reads (type, path, prefix, command) changes: a read of an older one is dropped. */
  generation: number;
  /** No longer in the config: read no more, kept only while it retains values. */
  removed: boolean;
  running: Promise<boolean> | undefined;
  again: boolean;
  /** A read running now was asked for by a schedule (or watch): tell the registry when it changed something. */
  notify: boolean;
  /** Stops its refresh timer and watch. */
  stop: () => void;
}

/** Debounce of directory and file change events (a Kubernetes swap is several renames). */
const WATCH_DEBOUNCE_MS = 100;

export function newState(config: SourceConfig, retainMs: number): SourceState {
  return {
    config,
    retainMs,
    current: [],
    retired: new Map(),
    loaded: false,
    version: 0,
    lastLoadAt: undefined,
    error: undefined,
    failures: 0,
    generation: 0,
    removed: false,
    running: undefined,
    again: false,
    notify: false,
    stop: () => undefined,
  };
}

/** What the source reads: a change here makes it a new definition whose values are read afresh. */
export function readingPart(c: SourceConfig): string {
  switch (c.type) {
    case 'dotenv':
    case 'dir':
      return JSON.stringify([c.type, c.path]);
    case 'env':
      return JSON.stringify([c.type, c.prefix]);
    case 'command':
      return JSON.stringify([c.type, c.command]);
  }
}

/** Moves every current value to the retired ones (a removed source, or one whose definition changed). */
export function retireAll(s: SourceState, now: number): void {
  for (const v of s.current) s.retired.set(v.value, { name: v.name, until: now + s.retainMs, groups: s.config.groups });
  if (s.current.length > 0) s.version++;
  s.current = [];
}

/**
 * Takes the values of a successful read: values no longer yielded are retired (with the groups they had),
 * values that come back are current again. True when anything changed.
 */
export function acceptRead(s: SourceState, next: SourceValue[], now: number): boolean {
  const first = !s.loaded;
  s.loaded = true;
  s.error = undefined;
  s.lastLoadAt = now;
  // The same values in the same order (the same text read again, or a directory whose files did not
  // change): nothing to retire, and the array in use stays (the registry's entries of it are reused).
  if (!first && sameValues(next, s.current)) return false;
  const nextValues = new Set(next.map((v) => v.value));
  let differs = first || next.length !== s.current.length;
  for (const old of s.current) {
    if (nextValues.has(old.value)) continue;
    differs = true;
    s.retired.set(old.value, { name: old.name, until: now + s.retainMs, groups: s.config.groups });
  }
  for (const v of next) if (s.retired.delete(v.value)) differs = true;
  if (!differs) {
    const before = new Map(s.current.map((v) => [v.name, v.value]));
    differs = next.some((v) => before.get(v.name) !== v.value);
  }
  s.current = next;
  if (differs) s.version++;
  return differs;
}

function sameValues(a: readonly SourceValue[], b: readonly SourceValue[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]!.name !== b[i]!.name || a[i]!.value !== b[i]!.value) return false;
  return true;
}

/** Starts the source's refresh timer and (dir, dotenv) its watch; `refresh` is called for each. */
export function schedule(s: SourceState, refresh: () => void): void {
  s.stop();
  const c = s.config;
  const every = c.type === 'env' ? undefined : c.refresh;
  const timer = every === undefined ? undefined : setInterval(refresh, every).unref();
  let watcher: ReturnType<typeof watch> | undefined;
  let pending: NodeJS.Timeout | undefined;
  if (c.type === 'dir' || c.type === 'dotenv') {
    const onEvent = (): void => {
      if (pending !== undefined) return;
      pending = setTimeout(() => {
        pending = undefined;
        refresh();
      }, WATCH_DEBOUNCE_MS).unref();
    };
    try {
      // The directory itself (its `..data` link is replaced) or the file's directory (editors and deploy
      // tools replace files by renaming).
      watcher = watch(c.type === 'dir' ? c.path : dirname(c.path), { persistent: false }, onEvent);
      watcher.on('error', () => undefined); // the refresh schedule still reads it
    } catch {
      // Not there yet: the schedule (dir) or SIGHUP (dotenv) reads it when it is.
    }
  }
  s.stop = () => {
    clearInterval(timer);
    clearTimeout(pending);
    watcher?.close();
    s.stop = () => undefined;
  };
}
