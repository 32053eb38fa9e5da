// The dashboard's one action and its undo: allow a host for a secret whose restore was withheld. Where the
// host is kept follows where the secret came from — a vault record's hosts (sealed, lasting), else the
// running proxy's `[secrets.hosts]`, or `restore.allowHosts` for a detected credential (every secret then) —
// and it applies to the next request: the registry reloads, or the restore policy is swapped.

import { FictaError } from '../errors.ts';
import { DETECTED_PREFIX } from '../redact/secret-set.ts';
import type { RestoreConfig } from '../sinks/config.ts';
import { parseHostPattern } from '../sinks/hosts.ts';
import { err, ok, type Result } from '../util/result.ts';
import type { SecretCatalog } from './catalog.ts';

/** Where a grant was written. */
export type GrantPlace = 'vault' | 'secrets.hosts' | 'restore.allowHosts';

export interface GrantPart {
  name: string;
  place: GrantPlace;
  /** False when the host was already allowed there (then undo leaves it). */
  added: boolean;
}

export interface HostGrant {
  id: number;
  /** The secret's display name (names sharing one value joined with "|"). */
  secret: string;
  host: string;
  parts: GrantPart[];
  at: number;
  by: string;
  undone?: { at: number; by: string };
}

export interface GrantDeps {
  catalog: SecretCatalog;
  /** The vault's change of a record's hosts, when the proxy uses the vault. */
  changeVaultHosts?: ((name: string, change: { add?: readonly string[]; remove?: readonly string[] }) => Result<string[]>) | undefined;
  /** The running proxy's `[secrets.hosts]` (read at every registry load). */
  runtimeHosts: Record<string, string[]>;
  getRestore(): RestoreConfig;
  setRestore(config: RestoreConfig): void;
  /** Rebuilds the secret set (hosts included); resolves when the next request will see it. */
  reload(): Promise<void>;
  /** One audit line per action: who, what, when. */
  audit(action: 'allow_host' | 'undo_allow_host', grant: HostGrant, by: string): void;
}

export interface HostGrants {
  allow(secret: string, host: string, by: string): Promise<Result<HostGrant>>;
  undo(id: number, by: string): Promise<Result<HostGrant>>;
  /** Every grant of this proxy's life, newest first. */
  list(): HostGrant[];
}

/** Grants kept for the page and for undo (a person clicks these; far fewer are ever made). */
const MAX_GRANTS = 200;

export function createHostGrants(deps: GrantDeps): HostGrants {
  const grants: HostGrant[] = [];
  let nextId = 0;

  const placeOf = (name: string): GrantPlace => {
    if (name.startsWith(DETECTED_PREFIX)) return 'restore.allowHosts';
    return deps.changeVaultHosts !== undefined && deps.catalog.sourceOf(name) === 'vault' ? 'vault' : 'secrets.hosts';
  };
  const hostsOf = (name: string): readonly string[] => deps.catalog.entries().find((e) => e.name === name)?.hosts ?? [];

  const apply = (part: { name: string; place: GrantPlace }, host: string, add: boolean): Result<boolean> => {
    switch (part.place) {
      case 'restore.allowHosts': {
        const c = deps.getRestore();
        const had = c.allowHosts.includes(host);
        if (add === had) return ok(false);
        deps.setRestore({ ...c, allowHosts: add ? [...c.allowHosts, host] : c.allowHosts.filter((h) => h !== host) });
        return ok(true);
      }
      case 'secrets.hosts': {
        const list = deps.runtimeHosts[part.name] ?? [];
        const had = list.includes(host);
        if (add === had) return ok(false);
        deps.runtimeHosts[part.name] = add ? [...list, host] : list.filter((h) => h !== host);
        return ok(true);
      }
      case 'vault': {
        // Undo removes what this grant added; an add that the record (as last loaded) already had is a no-op.
        if (add && hostsOf(part.name).includes(host)) return ok(false);
        const r = (deps.changeVaultHosts as NonNullable<GrantDeps['changeVaultHosts']>)(part.name, add ? { add: [host] } : { remove: [host] });
        return r.ok ? ok(true) : r;
      }
    }
  };

  return {
    async allow(secret, host, by) {
      const parsed = parseHostPattern(host);
      if (!parsed.ok) return parsed;
      const names = secret.startsWith(DETECTED_PREFIX) ? [secret] : secret.split('|');
      if (names.some((n) => n === '')) return err(new FictaError('FICTA_UI_BAD_REQUEST', 'ui: no secret named'));
      const parts: GrantPart[] = [];
      for (const name of names) {
        const place = placeOf(name);
        const r = apply({ name, place }, parsed.value, true);
        if (!r.ok) return r;
        parts.push({ name, place, added: r.value });
      }
      const grant: HostGrant = { id: ++nextId, secret, host: parsed.value, parts, at: Date.now(), by };
      grants.unshift(grant);
      if (grants.length > MAX_GRANTS) grants.pop();
      await deps.reload();
      deps.audit('allow_host', grant, by);
      return ok(grant);
    },
    async undo(id, by) {
      const grant = grants.find((g) => g.id === id);
      if (grant === undefined) return err(new FictaError('FICTA_UI_NOT_FOUND', 'ui: no such action to undo'));
      if (grant.undone !== undefined) return err(new FictaError('FICTA_UI_ALREADY_UNDONE', 'ui: this action was already undone'));
      for (const part of grant.parts) {
        if (!part.added) continue;
        const r = apply(part, grant.host, false);
        if (!r.ok) return r;
      }
      grant.undone = { at: Date.now(), by };
      await deps.reload();
      deps.audit('undo_allow_host', grant, by);
      return ok(grant);
    },
    list: () => [...grants],
  };
}
