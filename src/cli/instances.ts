// The registry of running ficta proxies of this user, for `ficta status` and `ficta doctor`: one small
// JSON file per process under FICTA_HOME/run (0700), rewritten at most once a second while its counts
// change, removed when the proxy stops. Entries whose process is gone are cleaned by whoever reads them.

import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureHome } from '../config/home.ts';
import type { RunReport } from '../server/stats.ts';
import { writeAtomic } from '../util/atomic-file.ts';

/** How often a running proxy refreshes its entry (only when its counts changed). */
export const REFRESH_MS = 1000;

/** What a running proxy publishes about itself; the token is masked. */
export interface InstanceEntry {
  pid: number;
  /** The command that started it: serve, run, claude, codex, … */
  mode: string;
  /** `http://127.0.0.1:PORT`, with the token segment masked when there is one. */
  url: string;
  host: string;
  port: number;
  startedAt: number;
  version: string;
  requests: number;
  blocks: number;
  upstreamErrors: number;
}

/** The directory holding the entries. */
export function instancesDir(home: string): string {
  return join(home, 'run');
}

/**
 * The file holding a proxy's dashboard key (`ficta ui` presents it to get a one-time link): next to its
 * entry, mode 0600 in a 0700 directory, so only this user can read it; removed with the entry.
 */
export function uiKeyFile(home: string, pid: number): string {
  return join(instancesDir(home), `${pid}.ui-key`);
}

/** Writes this process's dashboard key; returns the function that removes it. */
export function publishUiKey(home: string, pid: number, key: string): () => void {
  const file = uiKeyFile(home, pid);
  try {
    ensureHome(home);
    mkdirSync(instancesDir(home), { recursive: true, mode: 0o700 });
    rmSync(file, { force: true });
    writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(file, 0o600);
  } catch {
    // Without the file `ficta ui` says the proxy has no dashboard it can open; the proxy itself is unaffected.
  }
  const remove = (): void => {
    rmSync(file, { force: true });
    process.off('exit', remove);
  };
  process.on('exit', remove);
  return remove;
}

/** A running proxy's dashboard key, or undefined when it has none (dashboard off, or gone). */
export function readUiKey(home: string, pid: number): string | undefined {
  try {
    const key = readFileSync(uiKeyFile(home, pid), 'utf8').trim();
    return key === '' ? undefined : key;
  } catch {
    return undefined;
  }
}

/** Publishes this process's entry and keeps it current; returns the function that removes it. */
export function publishInstance(home: string, entry: Omit<InstanceEntry, 'requests' | 'blocks' | 'upstreamErrors'>, report: () => RunReport): () => void {
  ensureHome(home);
  const dir = instancesDir(home);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `${entry.pid}.json`);
  let last = '';
  const write = (): void => {
    const r = report();
    const text = `${JSON.stringify({ ...entry, requests: r.requests, blocks: r.blocks, upstreamErrors: r.upstreamErrors } satisfies InstanceEntry)}\n`;
    if (text === last) return;
    last = text;
    try {
      writeAtomic(file, text);
    } catch {
      // The registry is a convenience: a full or read-only disk never stops the proxy.
    }
  };
  write();
  const timer = setInterval(write, REFRESH_MS);
  timer.unref();
  const remove = (): void => {
    clearInterval(timer);
    rmSync(file, { force: true });
    process.off('exit', remove);
  };
  // A proxy that exits without stopping (an uncaught error) still removes its entry.
  process.on('exit', remove);
  return remove;
}

/** The entries of live processes, oldest first; entries of processes that are gone are removed. */
export function listInstances(home: string): InstanceEntry[] {
  const dir = instancesDir(home);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: InstanceEntry[] = [];
  for (const name of names) {
    if (!/^\d+\.json$/.test(name)) continue;
    const path = join(dir, name);
    let entry: InstanceEntry;
    try {
      entry = JSON.parse(readFileSync(path, 'utf8')) as InstanceEntry;
    } catch {
      continue; // being written, or not ours
    }
    if (typeof entry.pid !== 'number' || !isAlive(entry.pid)) {
      rmSync(path, { force: true });
      if (typeof entry.pid === 'number') rmSync(uiKeyFile(home, entry.pid), { force: true });
      continue;
    }
    out.push(entry);
  }
  return out.sort((a, b) => a.startedAt - b.startedAt);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    // ESRCH: gone. EPERM: the pid now belongs to another user's process, so it is not this ficta either.
    return false;
  }
}
