// The unlocked vault: add, replace, remove, import, list, rekey and passwd. Every change is one SQLite
// transaction (BEGIN IMMEDIATE) that also re-seals the vault state (the set MAC); every read verifies the
// whole committed snapshot, and a write first re-verifies whatever another process committed.

import type { SecretEntry } from '../secrets/types.ts';
import { err, ok, type Result } from '../util/result.ts';
import { vaultError } from './errors.ts';
import { FORMAT_VERSION, MAX_RECORD_HOSTS, xorInto, type RecordPayload, type StatePayload } from './format.ts';
import { DEFAULT_KDF_PRESET, createKdfParams, deriveKek, type KdfParams, type KdfPreset, type VaultCredential } from './kdf.ts';
import { createDataKey, headerChecksum, nameIndex, rowDigest, wipeDataKey, wrapDataKey, type DataKey } from './keyring.ts';
import { checkName, checkTerm, checkValue, codePoints, valueProblem, type SkipReason } from './rules.ts';
import { checkSet, headerInfo, headerKdfColumns, openRecord, openState, readHeader, sealRecord, sealState, syncKeyRing, type VaultInfo } from './rows.ts';
import { KEY_BYTES, equalBytes, wipe } from './seal.ts';
import { toVaultError, type HeaderRow, type VaultStore } from './store.ts';

/** An import reports progress every this many entries (tests use it to kill a process mid-transaction). */
const PROGRESS_EVERY = 500;

/** What `vault list` shows of a record: never its value. */
export interface VaultListing {
  name: string;
  /** Value length in characters (code points). */
  length: number;
  source: string;
  addedAt: number;
  updatedAt: number;
  /** Hosts it may be restored towards in tool calls (present only when it has some). */
  hosts?: string[];
  /** A term (`vault add --term`): matched in any case on word boundaries (present only when true). */
  term?: true;
}

export type AddOutcome = 'added' | 'replaced' | 'unchanged';
export type { SkipReason };

export interface ImportItem { name: string; value: string; source: string }
export interface ImportReport {
  added: string[];
  updated: string[];
  unchanged: string[];
  skipped: Array<{ name: string; reason: SkipReason }>;
  /** Values stored under a new name because their name already held another value in this import (`rename`). */
  renamed: Array<{ name: string; as: string; source: string }>;
}

export interface ImportOptions {
  /** Update names already in the vault with another value (otherwise that fails the whole import). */
  replace?: boolean;
  /**
   * A name given different values within the import: store each later value as NAME_2, NAME_3, … instead
   * of failing the whole import (the first value keeps the name).
   */
  rename?: boolean;
  onProgress?: (done: number, total: number) => void;
}

interface Snapshot {
  /** PRAGMA data_version when it was read; our own commits update the snapshot in place instead. */
  version: number;
  records: Map<string, { entry: SecretEntry; listing: VaultListing }>;
}

interface Tx {
  snapshot: Snapshot;
  header: HeaderRow;
  active: DataKey;
  state: StatePayload;
  nextId: () => number;
  changed: boolean;
}

/** An unlocked vault. Reads verify the whole committed snapshot; writes are single transactions. */
export class Vault {
  readonly path: string;
  private readonly store: VaultStore;
  private readonly vaultId: Buffer;
  private kek: Buffer;
  private kdf: KdfParams;
  private readonly keys = new Map<number, DataKey>();
  private placeholder: Buffer = Buffer.alloc(KEY_BYTES);
  private generation = 0;
  private cache: Snapshot | undefined;

  constructor(store: VaultStore, kek: Buffer, kdf: KdfParams, vaultId: Buffer) {
    this.store = store;
    this.path = store.path;
    this.kek = kek;
    this.kdf = kdf;
    this.vaultId = Buffer.from(vaultId);
  }

  /** The sealed placeholder key of the proxy (a copy). */
  placeholderKey(): Buffer {
    return Buffer.from(this.placeholder);
  }

  /** Header facts and the record count. */
  info(): Result<VaultInfo> {
    return this.attempt(() => headerInfo(this.store, readHeader(this.store).row));
  }

  /** Changes whenever another connection commits to the file. */
  dataVersion(): number {
    return this.store.dataVersion();
  }

  /** Reads and verifies the whole vault; `phase` decides how a KEK that no longer opens the keys is reported. */
  verify(phase: 'unlock' | 'reload' = 'reload'): Result<number> {
    return this.attempt(() => this.load(phase).records.size);
  }

  /** Every secret with its value, from one verified snapshot (reused until the file changes). */
  entries(): Result<SecretEntry[]> {
    return this.attempt(() => Array.from(this.load('reload').records.values(), (r) => r.entry));
  }

  /** Names, lengths, sources and times, sorted by name; never values. */
  list(): Result<VaultListing[]> {
    return this.attempt(() => Array.from(this.load('reload').records.values(), (r) => ({ ...r.listing })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
  }

  /** True when a secret with this name is stored (a blind-index look-up, nothing unsealed). */
  has(name: string): Result<boolean> {
    const n = checkName(name);
    if (!n.ok) return n;
    return this.attempt(() => this.store.read(() => {
      const h = readHeader(this.store);
      syncKeyRing(this.keys, this.kek, this.vaultId, h.row, h.keys, 'reload');
      return this.store.recordByIndex(nameIndex(this.activeKey(h.row), name)) !== undefined;
    }));
  }

  /** Adds a secret; an existing name with a different value needs `replace`. `hosts` are added to the record's. */
  add(name: string, value: string, options: { replace?: boolean; source?: string; hosts?: readonly string[]; term?: boolean } = {}): Result<AddOutcome> {
    const n = checkName(name);
    if (!n.ok) return n;
    const v = options.term === true ? checkTerm(name, value) : checkValue(name, value);
    if (!v.ok) return v;
    const bytes = v.value;
    return this.attempt(() => this.mutate((tx) => {
      const outcome = this.put(tx, name, value, bytes, options.source ?? 'prompt', options.replace ?? false, Date.now(), options.hosts ?? [], options.term === true);
      if (outcome === 'conflict') throw vaultError('FICTA_VAULT_NAME_EXISTS', `${name} is already in the vault with another value (use --replace to change it)`);
      return outcome;
    }));
  }

  /**
   * Adds and removes hosts a secret may be restored towards in tool calls (normalised patterns); the record
   * is re-sealed at its next version in one transaction. Returns the record's hosts afterwards.
   */
  changeHosts(name: string, change: { add?: readonly string[]; remove?: readonly string[] }): Result<string[]> {
    const n = checkName(name);
    if (!n.ok) return n;
    return this.attempt(() => this.mutate((tx) => {
      const index = nameIndex(tx.active, name);
      const existing = this.store.recordByIndex(index);
      if (existing === undefined) throw vaultError('FICTA_VAULT_NAME_UNKNOWN', `no secret named ${name} in the vault`);
      const { payload, plain } = openRecord(this.keys, this.vaultId, existing, [existing]);
      try {
        const before = payload.hosts ?? [];
        const drop = new Set(change.remove ?? []);
        const hosts = [...new Set([...before, ...(change.add ?? [])])].filter((h) => !drop.has(h));
        if (hosts.length > MAX_RECORD_HOSTS) throw vaultError('FICTA_VAULT_HOSTS_INVALID', `${name} would have more than ${MAX_RECORD_HOSTS} hosts`);
        if (hosts.length === before.length && hosts.every((h, i) => h === before[i])) return hosts;
        const row = sealRecord(this.vaultId, tx.active, existing.id, existing.version + 1, index, { ...payload, hosts });
        this.store.updateRecord(row);
        xorInto(tx.state.acc, rowDigest(tx.active, existing));
        xorInto(tx.state.acc, rowDigest(tx.active, row));
        tx.changed = true;
        const prev = tx.snapshot.records.get(name);
        if (prev !== undefined) tx.snapshot.records.set(name, { entry: { ...prev.entry, hosts }, listing: withHosts(prev.listing, hosts) });
        return hosts;
      } finally {
        wipe(plain);
      }
    }));
  }

  /** Removes a secret by name. */
  remove(name: string): Result<void> {
    const n = checkName(name);
    if (!n.ok) return n;
    return this.attempt(() => this.mutate((tx) => {
      const row = this.store.recordByIndex(nameIndex(tx.active, name));
      if (row === undefined) throw vaultError('FICTA_VAULT_NAME_UNKNOWN', `no secret named ${name} in the vault`);
      this.store.deleteRecord(row.id);
      xorInto(tx.state.acc, rowDigest(tx.active, row));
      tx.state.count -= 1;
      tx.changed = true;
      tx.snapshot.records.delete(name);
    }));
  }

  /** Imports many secrets in one transaction: all of them, or (on any error) none. */
  import(items: readonly ImportItem[], options: ImportOptions = {}): Result<ImportReport> {
    const report: ImportReport = { added: [], updated: [], unchanged: [], skipped: [], renamed: [] };
    const accepted: ImportItem[] = [];
    for (const item of items) {
      if (!checkName(item.name).ok) { report.skipped.push({ name: item.name, reason: 'invalid name' }); continue; }
      const problem = valueProblem(item.value);
      if (problem !== undefined) { report.skipped.push({ name: item.name, reason: problem }); continue; }
      accepted.push(item);
    }
    // A name set twice to different values (two files, or one file twice) must not drop one of them
    // silently: the value left out would reach the provider raw. Fail naming it, or rename on request.
    const taken = (name: string): boolean => {
      const h = this.has(name);
      return !h.ok || h.value;
    };
    const resolved = resolveDuplicates(accepted, options.rename === true ? taken : undefined, report);
    if (!resolved.ok) return resolved;
    const valid = resolved.value;
    const conflicts: string[] = [];
    return this.attempt(() => this.mutate((tx) => {
      const now = Date.now();
      let done = 0;
      for (const item of valid.values()) {
        const outcome = this.put(tx, item.name, item.value, Buffer.from(item.value, 'utf8'), item.source, options.replace ?? false, now, []);
        if (outcome === 'added') report.added.push(item.name);
        else if (outcome === 'replaced') report.updated.push(item.name);
        else if (outcome === 'unchanged') report.unchanged.push(item.name);
        else conflicts.push(item.name);
        done += 1;
        if (options.onProgress !== undefined && done % PROGRESS_EVERY === 0) options.onProgress(done, valid.size);
      }
      if (conflicts.length > 0) {
        const shown = conflicts.slice(0, 10).join(', ') + (conflicts.length > 10 ? `, … (${conflicts.length} in all)` : '');
        throw vaultError('FICTA_VAULT_NAME_EXISTS', `import: already in the vault with other values: ${shown}; nothing was imported (use --replace to update them)`);
      }
      return report;
    }));
  }

  /** A new data key; every record and the state re-sealed under it, old keys dropped, in one transaction. */
  rekey(): Result<{ records: number; keyId: number }> {
    let fresh: DataKey | undefined;
    const result = this.attempt(() => this.mutate((tx) => {
      const old = tx.active;
      const keyId = Math.max(...this.keys.keys()) + 1;
      const dk = createDataKey(keyId);
      fresh = dk;
      const oldAcc = Buffer.alloc(32);
      const acc = Buffer.alloc(32);
      let count = 0;
      for (const row of this.store.records()) {
        xorInto(oldAcc, rowDigest(old, row));
        const { payload, plain } = openRecord(this.keys, this.vaultId, row, [row]);
        const next = sealRecord(this.vaultId, dk, row.id, row.version + 1, nameIndex(dk, payload.name), payload);
        wipe(plain);
        this.store.updateRecord(next);
        xorInto(acc, rowDigest(dk, next));
        count += 1;
      }
      // Re-sealing must not launder damage: the rows being re-sealed must be the rows the state vouches for.
      checkSet(tx.state, count, oldAcc);
      const keyRow = wrapDataKey(this.kek, this.vaultId, dk, this.kdf);
      this.store.putKey(keyRow);
      this.store.deleteKeysExcept(keyId);
      this.store.updateHeaderKeys({ ...headerKdfColumns(this.kdf), active_key: keyId,
        checksum: headerChecksum({ format: FORMAT_VERSION, vaultId: this.vaultId, createdAt: tx.header.created_at, kdf: this.kdf, activeKey: keyId }, [keyRow]) });
      tx.active = dk;
      tx.state.acc = acc;
      tx.changed = true;
      return { records: count, keyId };
    }));
    if (result.ok && fresh !== undefined) {
      for (const dk of this.keys.values()) wipeDataKey(dk);
      this.keys.clear();
      this.keys.set(fresh.keyId, fresh);
    } else if (fresh !== undefined) wipeDataKey(fresh);
    return result;
  }

  /** Re-wraps the data keys under a new passphrase or key file (records are untouched). */
  async passwd(credential: VaultCredential, options: { kdf?: KdfPreset } = {}): Promise<Result<void>> {
    const preset = options.kdf ?? (credential.kind === 'passphrase' && this.kdf.kind === 'argon2id' ? this.kdf.preset as KdfPreset : DEFAULT_KDF_PRESET);
    const kdf = createKdfParams(credential.kind, preset);
    const kek = await deriveKek(credential, kdf);
    if (!kek.ok) return kek;
    const result = this.attempt(() => this.store.write(() => {
      this.load('reload'); // verifies the records first when another process changed them
      const h = readHeader(this.store);
      syncKeyRing(this.keys, this.kek, this.vaultId, h.row, h.keys, 'reload');
      const rows = [...this.keys.values()].sort((a, b) => a.keyId - b.keyId).map((dk) => wrapDataKey(kek.value, this.vaultId, dk, kdf));
      for (const row of rows) this.store.putKey(row);
      this.store.updateHeaderKeys({ ...headerKdfColumns(kdf), active_key: h.row.active_key,
        checksum: headerChecksum({ format: FORMAT_VERSION, vaultId: this.vaultId, createdAt: h.row.created_at, kdf, activeKey: h.row.active_key }, rows) });
    }));
    if (!result.ok) { wipe(kek.value); return result; }
    wipe(this.kek);
    this.kek = kek.value;
    this.kdf = kdf;
    return ok(undefined);
  }

  /** Forgets the keys (best effort: JavaScript strings already handed out cannot be wiped) and closes the file. */
  close(): void {
    this.forget();
    this.store.close();
  }

  /** Wipes key material without closing the store. */
  forget(): void {
    wipe(this.kek);
    wipe(this.placeholder);
    for (const dk of this.keys.values()) wipeDataKey(dk);
    this.keys.clear();
    this.cache = undefined;
  }

  // --- internals ---

  /** The verified contents, read again only when another connection committed since the last read. */
  private load(phase: 'unlock' | 'reload'): Snapshot {
    // Read before the snapshot: a commit landing in between only causes one extra reload later.
    const version = this.store.dataVersion();
    if (this.cache !== undefined && this.cache.version === version) return this.cache;
    this.cache = undefined;
    const decoder = new TextDecoder('utf-8', { fatal: true });
    const records: Snapshot['records'] = new Map();
    this.snapshot(phase, (p) => {
      const value = decoder.decode(p.value);
      const hosts = p.hosts ?? [];
      const term = p.term === true ? ({ term: true } as const) : {};
      records.set(p.name, {
        entry: { name: p.name, value, source: 'vault', ...(hosts.length === 0 ? {} : { hosts }), ...term },
        listing: { ...withHosts({ name: p.name, length: codePoints(value), source: p.source, addedAt: p.createdAt, updatedAt: p.updatedAt }, hosts), ...term },
      });
    });
    this.cache = { version, records };
    return this.cache;
  }

  private attempt<T>(fn: () => T): Result<T> {
    try {
      return ok(fn());
    } catch (error) {
      return err(toVaultError(error, this.path));
    }
  }

  /** Reads one committed snapshot, verifies every row and the set MAC, and hands each payload to `visit`. */
  private snapshot(phase: 'unlock' | 'reload', visit: (p: RecordPayload) => void): StatePayload {
    return this.store.read(() => {
      const h = readHeader(this.store);
      this.checkVaultId(h.row);
      syncKeyRing(this.keys, this.kek, this.vaultId, h.row, h.keys, phase);
      const active = this.activeKey(h.row);
      const state = openState(this.store, this.vaultId, active);
      const rows = this.store.records();
      const acc = Buffer.alloc(32);
      for (const row of rows) {
        const { payload, plain } = openRecord(this.keys, this.vaultId, row, rows);
        try { visit(payload); } finally { wipe(plain); }
        xorInto(acc, rowDigest(active, row));
      }
      checkSet(state, rows.length, acc);
      this.checkGeneration(state);
      wipe(this.placeholder);
      this.placeholder = state.placeholderKey;
      return state;
    });
  }

  /** Runs `fn` in one BEGIN IMMEDIATE transaction and re-seals the state when it changed anything. */
  private mutate<T>(fn: (tx: Tx) => T): T {
    const committed = this.store.write(() => {
      // Verify the whole vault again only when another process committed since we last did: a write never
      // builds on a tampered file, and a run of writes from one process stays O(1) each.
      const snapshot = this.load('reload');
      const h = readHeader(this.store);
      this.checkVaultId(h.row);
      syncKeyRing(this.keys, this.kek, this.vaultId, h.row, h.keys, 'reload');
      const active = this.activeKey(h.row);
      const state = openState(this.store, this.vaultId, active);
      this.checkGeneration(state);
      let next = this.store.nextRecordId();
      const tx: Tx = { snapshot: copySnapshot(snapshot), header: h.row, active, state, nextId: () => next++, changed: false };
      const result = fn(tx);
      if (tx.changed) {
        state.generation += 1;
        this.store.putState(sealState(tx.active, this.vaultId, state));
      }
      return { result, snapshot: tx.snapshot, generation: state.generation };
    });
    // Only now is it committed. Our own commit does not move data_version, so the cached snapshot is
    // advanced by what the transaction did instead of being read again.
    this.generation = committed.generation;
    this.cache = committed.snapshot;
    return committed.result;
  }

  /** Inserts or replaces one record inside a transaction; `hosts` are added to the record's own. */
  private put(tx: Tx, name: string, text: string, value: Buffer, source: string, replace: boolean, now: number, hosts: readonly string[], asTerm = false): AddOutcome | 'conflict' {
    const index = nameIndex(tx.active, name);
    const existing = this.store.recordByIndex(index);
    let isTerm = asTerm;
    const remember = (createdAt: number, updatedAt: number, recordSource: string, all: readonly string[]): void => {
      const term = isTerm ? ({ term: true } as const) : {};
      tx.snapshot.records.set(name, {
        entry: { name, value: text, source: 'vault', ...(all.length === 0 ? {} : { hosts: [...all] }), ...term },
        listing: { ...withHosts({ name, length: codePoints(text), source: recordSource, addedAt: createdAt, updatedAt }, all), ...term },
      });
    };
    if (hosts.length > MAX_RECORD_HOSTS) throw vaultError('FICTA_VAULT_HOSTS_INVALID', `${name} would have more than ${MAX_RECORD_HOSTS} hosts`);
    if (existing === undefined) {
      const row = sealRecord(this.vaultId, tx.active, tx.nextId(), 1, index, { name, source, createdAt: now, updatedAt: now, value, hosts, term: isTerm });
      this.store.insertRecord(row);
      xorInto(tx.state.acc, rowDigest(tx.active, row));
      tx.state.count += 1;
      tx.changed = true;
      remember(now, now, source, hosts);
      return 'added';
    }
    const { payload, plain } = openRecord(this.keys, this.vaultId, existing, [existing]);
    const same = equalBytes(payload.value, value);
    const { createdAt, updatedAt } = payload;
    const before = payload.hosts ?? [];
    const all = [...new Set([...before, ...hosts])];
    const oldSource = payload.source;
    const wasTerm = payload.term === true;
    wipe(plain);
    if (!same && !replace) return 'conflict';
    // A record stays a term while its value stays; `--term` makes one.
    isTerm = asTerm || (same && wasTerm);
    if (same && all.length === before.length && isTerm === wasTerm) return 'unchanged';
    if (all.length > MAX_RECORD_HOSTS) throw vaultError('FICTA_VAULT_HOSTS_INVALID', `${name} would have more than ${MAX_RECORD_HOSTS} hosts`);
    // Same value with new hosts: only the hosts change (the value keeps its source and time).
    const next = same ? { name, source: oldSource, createdAt, updatedAt, value, hosts: all, term: isTerm } : { name, source, createdAt, updatedAt: now, value, hosts: all, term: isTerm };
    const row = sealRecord(this.vaultId, tx.active, existing.id, existing.version + 1, index, next);
    this.store.updateRecord(row);
    xorInto(tx.state.acc, rowDigest(tx.active, existing));
    xorInto(tx.state.acc, rowDigest(tx.active, row));
    tx.changed = true;
    remember(createdAt, next.updatedAt, next.source, all);
    return same && isTerm === wasTerm ? 'unchanged' : 'replaced';
  }

  private activeKey(h: HeaderRow): DataKey {
    const dk = this.keys.get(h.active_key);
    if (dk === undefined) throw vaultError('FICTA_VAULT_CORRUPT', `the active data key ${h.active_key} is missing from the key ring`);
    return dk;
  }

  private checkVaultId(h: HeaderRow): void {
    if (!equalBytes(h.vault_id, this.vaultId)) throw vaultError('FICTA_VAULT_UNAVAILABLE', `${this.path} was replaced by another vault`);
  }

  private checkGeneration(state: StatePayload): void {
    if (state.generation < this.generation) {
      throw vaultError('FICTA_VAULT_ROLLED_BACK', `the vault went back to an older copy (generation ${state.generation} after ${this.generation}); nothing was changed`);
    }
    this.generation = state.generation;
  }
}

/** A listing with its hosts, when it has any (listings without hosts keep their earlier shape). */
function withHosts(listing: VaultListing, hosts: readonly string[]): VaultListing {
  const { hosts: _old, ...rest } = listing;
  return hosts.length === 0 ? rest : { ...rest, hosts: [...hosts] };
}

/** A copy a transaction may change; it replaces the cache only once the transaction committed. */
function copySnapshot(s: Snapshot): Snapshot {
  return { version: s.version, records: new Map(s.records) };
}

/**
 * One item per name: equal values for a name collapse into one (the first keeps its position); different
 * values fail with FICTA_VAULT_DUPLICATE_NAME naming each such name and where it came from, or, when
 * `taken` (renaming) is given, later values take the first NAME_2, NAME_3, … used neither in the import
 * nor in the vault (recorded in the report).
 */
function resolveDuplicates(items: readonly ImportItem[], taken: ((name: string) => boolean) | undefined, report: ImportReport): Result<Map<string, ImportItem>> {
  const byName = new Map<string, ImportItem[]>();
  for (const item of items) {
    const list = byName.get(item.name);
    if (list === undefined) byName.set(item.name, [item]);
    else if (!list.some((o) => o.value === item.value)) list.push(item);
  }
  const conflicts = [...byName.entries()].filter(([, list]) => list.length > 1);
  if (conflicts.length > 0 && taken === undefined) {
    const shown = conflicts.slice(0, 5).map(([name, list]) => `${name} (${[...new Set(list.map((i) => i.source))].join(', ')})`).join('; ');
    const more = conflicts.length > 5 ? `; … (${conflicts.length} names in all)` : '';
    return err(vaultError('FICTA_VAULT_DUPLICATE_NAME', `import: a name is set to different values: ${shown}${more}; nothing was imported (keep one value per name, or use --rename to store the others as NAME_2, …)`));
  }
  const out = new Map<string, ImportItem>();
  for (const [name, list] of byName) out.set(name, list[0] as ImportItem);
  for (const [name, list] of conflicts) {
    let n = 2;
    for (const item of list.slice(1)) {
      while (byName.has(`${name}_${n}`) || out.has(`${name}_${n}`) || taken?.(`${name}_${n}`) === true) n++;
      const as = `${name}_${n}`;
      if (!checkName(as).ok) return err(vaultError('FICTA_VAULT_NAME_INVALID', `import: ${name} is set to different values and ${as} is not a valid name`));
      out.set(as, { ...item, name: as });
      report.renamed.push({ name, as, source: item.source });
    }
  }
  return ok(out);
}
