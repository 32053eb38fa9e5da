// When each tenant last made a request: every instance merges what it saw into `gateway.lastUsedFile`
// (name → ISO time, the later time wins) once a minute and when it stops; `ficta gateway token list`
// reads it. Two instances writing in the same instant can lose one update of at most a minute.

import { readFileSync } from 'node:fs';
import { writeAtomic } from '../util/atomic-file.ts';

/** How often an instance writes what it saw (a "last used" finer than a minute is not worth the writes). */
export const LAST_USED_FLUSH_MS = 60_000;

/** Reads the file; an absent or unreadable one is empty (it is a convenience, never a reason to fail). */
export function readLastUsed(path: string): Record<string, string> {
  try {
    const doc = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return {};
    const out: Record<string, string> = {};
    for (const [name, at] of Object.entries(doc)) if (typeof at === 'string' && !Number.isNaN(Date.parse(at))) out[name] = at;
    return out;
  } catch {
    return {};
  }
}

/** Merges `seen` (name → epoch ms) into the file; returns false when it could not be written. */
export function mergeLastUsed(path: string, seen: ReadonlyMap<string, number>): boolean {
  if (seen.size === 0) return true;
  const current = readLastUsed(path);
  let changed = false;
  for (const [name, at] of seen) {
    const prev = current[name] === undefined ? 0 : Date.parse(current[name]);
    if (at > prev) {
      current[name] = new Date(at).toISOString();
      changed = true;
    }
  }
  if (!changed) return true;
  try {
    writeAtomic(path, `${JSON.stringify(current, null, 2)}\n`);
    return true;
  } catch {
    return false;
  }
}
