// The live set of tenants' tokens in a running gateway: looked up by public id and checked in constant
// time, reloaded when the token file changes (a revoked token stops working without a restart), and
// the last-used time of each tenant (kept in memory; written to `lastUsedFile` when one is configured).

import { statSync } from 'node:fs';
import { type Result } from '../util/result.ts';
import { readTokenFile, tokenId, tokenMatches, type TokenEntry } from './token-file.ts';
import type { Tenant } from './tenant.ts';

export interface TokenStore {
  /** The tenant a token belongs to, or undefined (unknown, revoked, malformed). */
  lookup(token: string): Tenant | undefined;
  /** Reads the file again; on failure the last good set stays in use. */
  reload(): Result<{ changed: boolean; active: number; revoked: number }>;
  /** Reloads when the file's identity (inode, size, mtime) changed since the last read. */
  reloadIfChanged(): Result<{ changed: boolean; active: number; revoked: number }> | undefined;
  counts(): { active: number; revoked: number };
  /** Last request per tenant name (epoch ms), since this instance started. */
  lastUsed(): ReadonlyMap<string, number>;
  /** Whether the last attempt to read the file failed (the previous set is then in use). */
  lastError(): string | undefined;
}

interface Snapshot {
  byId: Map<string, TokenEntry[]>;
  tenants: Map<TokenEntry, Tenant>;
  active: number;
  revoked: number;
  stamp: string;
}

/** Loads the token file; the first read must succeed (a gateway never starts without its tenants). */
export function createTokenStore(path: string, now: () => number = Date.now): Result<TokenStore> {
  const used = new Map<string, number>();
  let error: string | undefined;
  const first = load(path);
  if (!first.ok) return first;
  let snap = first.value;

  const reload = (): Result<{ changed: boolean; active: number; revoked: number }> => {
    const next = load(path);
    if (!next.ok) {
      error = next.error.message;
      return next;
    }
    error = undefined;
    const changed = next.value.stamp !== snap.stamp;
    snap = next.value;
    return { ok: true, value: { changed, active: snap.active, revoked: snap.revoked } };
  };

  return {
    ok: true,
    value: {
      lookup(token) {
        const id = tokenId(token);
        if (id === undefined) return undefined;
        for (const entry of snap.byId.get(id) ?? []) {
          if (!tokenMatches(entry, token)) continue;
          const tenant = snap.tenants.get(entry);
          if (tenant !== undefined) used.set(tenant.name, now());
          return tenant;
        }
        return undefined;
      },
      reload,
      reloadIfChanged() {
        const stamp = fileStamp(path);
        if (stamp !== undefined && stamp === snap.stamp && error === undefined) return undefined;
        return reload();
      },
      counts: () => ({ active: snap.active, revoked: snap.revoked }),
      lastUsed: () => used,
      lastError: () => error,
    },
  };
}

function load(path: string): Result<Snapshot> {
  // The stamp is taken before the read: a change while reading is seen at the next check.
  const stamp = fileStamp(path) ?? '';
  const file = readTokenFile(path);
  if (!file.ok) return file;
  const byId = new Map<string, TokenEntry[]>();
  const tenants = new Map<TokenEntry, Tenant>();
  let active = 0;
  let revoked = 0;
  for (const entry of file.value.tokens) {
    if (entry.revoked !== undefined) {
      revoked++;
      continue;
    }
    active++;
    const list = byId.get(entry.id) ?? [];
    list.push(entry);
    byId.set(entry.id, list);
    tenants.set(entry, Object.freeze({ name: entry.name, groups: Object.freeze([...entry.groups]) }));
  }
  return { ok: true, value: { byId, tenants, active, revoked, stamp } };
}

/** Inode, size and modification time of what `path` points at (a Kubernetes `..data` swap changes the inode). */
export function fileStamp(path: string): string | undefined {
  try {
    const st = statSync(path);
    return `${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return undefined;
  }
}
