// The vault API: create, open and unlock a vault file; add, replace, remove, import, list, rekey, passwd and
// status. Every change is one SQLite transaction that also re-seals the vault state (the set MAC), and every
// read verifies the whole snapshot, so a damaged or tampered file is an error — never a silent new vault.

import { chmodSync, closeSync, fsyncSync, linkSync, openSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { MIN_SECRET_LENGTH, type SecretEntry } from '../secrets/types.ts';
import { err, ok, type Result } from '../util/result.ts';
import { vaultError } from './errors.ts';
import { FORMAT_VERSION, decodeRecord, decodeState, encodeRecord, encodeState, recordAd, stateAd, xorInto, type RecordPayload, type StatePayload } from './format.ts';
import { DEFAULT_KDF_PRESET, checkKdfParams, createKdfParams, deriveKek, type KdfParams, type KdfPreset, type VaultCredential } from './kdf.ts';
import { createDataKey, headerChecksum, kdfFromHeader, nameIndex, rowDigest, unwrapDataKey, wipeDataKey, wrapDataKey, type DataKey } from './keyring.ts';
import { KEY_BYTES, equalBytes, initSeal, open, randomKeyBytes, seal, wipe } from './seal.ts';
import { createVaultStore, openVaultStore, toVaultError, type HeaderRow, type KeyRow, type RecordRow, type VaultStore } from './store.ts';

export const VAULT_FILE = 'vault.db';
/** Names follow the dotenv grammar, so every `.env` name can be imported. */
const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
export const MAX_NAME_LENGTH = 128;
/** Longest accepted value: PEM private keys, the largest secrets users register, are under 8 KiB. */
export const MAX_VALUE_BYTES = 64 * 1024;
/** An import reports progress every this many entries (tests use it to kill a process mid-transaction). */
const PROGRESS_EVERY = 500;
const VAULT_ID_BYTES = 16;
/** A UTF-16 surrogate without its pair cannot be stored as UTF-8 (String#isWellFormed is ES2024). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export interface VaultInfo {
  path: string;
  format: number;
  vaultId: string;
  createdAt: number;
  kdf: { kind: KdfParams['kind']; preset: string; ops: number; mem: number };
  records: number;
  /** False when the header checksum does not match (accidental damage). */
  headerIntact: boolean;
}

/** What `vault list` shows of a record: never its value. */
export interface VaultListing {
  name: string;
  /** Value length in characters (code points). */
  length: number;
  source: string;
  addedAt: number;
  updatedAt: number;
}

export type AddOutcome = 'added' | 'replaced' | 'unchanged';
export type SkipReason = 'empty' | 'too short' | 'too long' | 'invalid name' | 'invalid text';

export interface ImportItem { name: string; value: string; source: string }
export interface ImportReport {
  added: string[];
  updated: string[];
  unchanged: string[];
  skipped: Array<{ name: string; reason: SkipReason }>;
}

export interface CreateVaultOptions {
  kdf?: KdfPreset;
  /** The proxy's existing placeholder key, so placeholders stay stable; random when absent. */
  placeholderKey?: Buffer;
}

/** The vault file inside a ficta home. */
export function vaultPath(home: string): string {
  return join(home, VAULT_FILE);
}

/** Checks a secret name. */
export function checkName(name: string): Result<string> {
  if (name.length === 0 || name.length > MAX_NAME_LENGTH || !NAME.test(name)) {
    return err(vaultError('FICTA_VAULT_NAME_INVALID', `invalid name "${name.slice(0, MAX_NAME_LENGTH)}": use letters, digits, _ . - (at most ${MAX_NAME_LENGTH}), not starting with a digit`));
  }
  return ok(name);
}

/** Why a value cannot be registered, or undefined when it can. */
export function valueProblem(value: string): SkipReason | undefined {
  if (value.length === 0) return 'empty';
  if (LONE_SURROGATE.test(value)) return 'invalid text';
  // Characters (code points), as the proxy's registry counts them: what the vault accepts, the proxy uses.
  if (codePoints(value) < MIN_SECRET_LENGTH) return 'too short';
  if (Buffer.byteLength(value, 'utf8') > MAX_VALUE_BYTES) return 'too long';
  return undefined;
}

function checkValue(name: string, value: string): Result<Buffer> {
  const problem = valueProblem(value);
  if (problem === undefined) return ok(Buffer.from(value, 'utf8'));
  const what = problem === 'too short' ? `shorter than ${MIN_SECRET_LENGTH} characters (it would match ordinary text)`
    : problem === 'too long' ? `longer than ${MAX_VALUE_BYTES} bytes` : problem === 'empty' ? 'empty' : 'not valid Unicode text';
  return err(vaultError('FICTA_VAULT_VALUE_INVALID', `the value of ${name} is ${what}`));
}

/** Creates a new vault at `path`, atomically; fails with FICTA_VAULT_EXISTS rather than overwrite anything. */
export async function createVault(path: string, credential: VaultCredential, options: CreateVaultOptions = {}): Promise<Result<Vault>> {
  await initSeal();
  if (options.placeholderKey !== undefined && options.placeholderKey.length !== KEY_BYTES) {
    return err(vaultError('FICTA_VAULT_KEY_FILE_INVALID', 'the placeholder key must be 32 bytes'));
  }
  if (exists(path)) return err(vaultError('FICTA_VAULT_EXISTS', `a vault already exists at ${path}; it was left untouched`));
  const kdf = createKdfParams(credential.kind, options.kdf ?? DEFAULT_KDF_PRESET);
  const kekResult = await deriveKek(credential, kdf);
  if (!kekResult.ok) return kekResult;
  const kek = kekResult.value;

  // Built under a temporary name and linked into place: a crash leaves no half-made vault, and link()
  // refuses to replace a vault another process created meanwhile.
  const tmp = join(dirname(path), `.${basename(path)}.init-${process.pid}-${randomKeyBytes(4).toString('hex')}`);
  const dk = createDataKey(1);
  const vaultId = randomKeyBytes(VAULT_ID_BYTES);
  const placeholderKey = Buffer.from(options.placeholderKey ?? randomKeyBytes(KEY_BYTES));
  try {
    closeSync(openSync(tmp, 'wx', 0o600));
    const store = createVaultStore(tmp);
    try {
      const keyRow = wrapDataKey(kek, vaultId, dk, kdf);
      const createdAt = Date.now();
      const checksum = headerChecksum({ format: FORMAT_VERSION, vaultId, createdAt, kdf, activeKey: dk.keyId }, [keyRow]);
      const state: StatePayload = { count: 0, generation: 1, acc: Buffer.alloc(32), placeholderKey };
      store.write(() => {
        store.insertHeader({ format: FORMAT_VERSION, vault_id: vaultId, created_at: createdAt, kdf: kdf.kind, kdf_preset: kdf.preset, kdf_salt: kdf.salt, kdf_ops: kdf.ops, kdf_mem: kdf.mem, active_key: dk.keyId, checksum });
        store.putKey(keyRow);
        store.putState(sealState(dk, vaultId, state));
      });
    } finally {
      store.close();
    }
    try {
      linkSync(tmp, path);
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === 'EEXIST') return err(vaultError('FICTA_VAULT_EXISTS', `a vault already exists at ${path}; it was left untouched`));
      throw cause;
    }
    syncDirectory(dirname(path));
  } catch (error) {
    wipe(kek);
    wipeDataKey(dk);
    return err(toVaultError(error, path));
  } finally {
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${tmp}${suffix}`, { force: true });
  }
  const opened = openVaultStore(path);
  if (!opened.ok) return opened;
  const vault = new Vault(opened.value, kek, kdf, vaultId);
  const verified = vault.verify('unlock');
  if (!verified.ok) { vault.close(); return verified; }
  wipeDataKey(dk);
  return ok(vault);
}

/** Opens an existing vault file without unlocking it (header checks only). */
export async function openVault(path: string): Promise<Result<LockedVault>> {
  await initSeal();
  const store = openVaultStore(path);
  if (!store.ok) return store;
  try {
    const header = readHeader(store.value);
    return ok(new LockedVault(store.value, header.row));
  } catch (error) {
    store.value.close();
    return err(toVaultError(error, path));
  }
}

/** Opens and unlocks the vault at `path` in one step. */
export async function unlockVault(path: string, credential: VaultCredential): Promise<Result<Vault>> {
  const locked = await openVault(path);
  if (!locked.ok) return locked;
  const vault = await locked.value.unlock(credential);
  if (!vault.ok) locked.value.close();
  return vault;
}

/** A vault whose header was read and checked, waiting for its passphrase or key file. */
export class LockedVault {
  readonly path: string;
  private readonly store: VaultStore;
  private readonly header: HeaderRow;

  constructor(store: VaultStore, header: HeaderRow) {
    this.store = store;
    this.path = store.path;
    this.header = header;
  }

  /** How this vault is unlocked: "passphrase" or "key-file". */
  get credentialKind(): VaultCredential['kind'] {
    return this.header.kdf === 'key-file' ? 'key-file' : 'passphrase';
  }

  /** Header facts and the record count, without unlocking. */
  info(): VaultInfo {
    return headerInfo(this.store, this.header);
  }

  /** Derives the KEK from `credential`, unwraps the data keys and verifies every record. */
  async unlock(credential: VaultCredential): Promise<Result<Vault>> {
    const kdf = checkKdfParams(kdfFromHeader(this.header));
    if (!kdf.ok) return kdf;
    const kek = await deriveKek(credential, kdf.value);
    if (!kek.ok) return kek;
    const vault = new Vault(this.store, kek.value, kdf.value, this.header.vault_id);
    const verified = vault.verify('unlock');
    if (!verified.ok) {
      vault.forget();
      return verified;
    }
    tightenMode(this.path);
    return ok(vault);
  }

  close(): void {
    this.store.close();
  }
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
      this.syncKeys(h.row, h.keys, 'reload');
      return this.store.recordByIndex(nameIndex(this.activeKey(h.row), name)) !== undefined;
    }));
  }

  /** Adds a secret; an existing name with a different value needs `replace`. */
  add(name: string, value: string, options: { replace?: boolean; source?: string } = {}): Result<AddOutcome> {
    const n = checkName(name);
    if (!n.ok) return n;
    const v = checkValue(name, value);
    if (!v.ok) return v;
    const bytes = v.value;
    return this.attempt(() => this.mutate((tx) => {
      const outcome = this.put(tx, name, value, bytes, options.source ?? 'prompt', options.replace ?? false, Date.now());
      if (outcome === 'conflict') throw vaultError('FICTA_VAULT_NAME_EXISTS', `${name} is already in the vault with another value (use --replace to change it)`);
      return outcome;
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
  import(items: readonly ImportItem[], options: { replace?: boolean; onProgress?: (done: number, total: number) => void } = {}): Result<ImportReport> {
    const report: ImportReport = { added: [], updated: [], unchanged: [], skipped: [] };
    const valid = new Map<string, ImportItem>();
    for (const item of items) {
      if (!checkName(item.name).ok) { report.skipped.push({ name: item.name, reason: 'invalid name' }); continue; }
      const problem = valueProblem(item.value);
      valid.delete(item.name); // a later duplicate wins, and keeps its own position
      if (problem !== undefined) { report.skipped.push({ name: item.name, reason: problem }); continue; }
      valid.set(item.name, item);
    }
    const conflicts: string[] = [];
    return this.attempt(() => this.mutate((tx) => {
      const now = Date.now();
      let done = 0;
      for (const item of valid.values()) {
        const outcome = this.put(tx, item.name, item.value, Buffer.from(item.value, 'utf8'), item.source, options.replace ?? false, now);
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
        const { payload, plain } = this.openRecord(row, [row]);
        const next = this.sealRecord(dk, row.id, row.version + 1, nameIndex(dk, payload.name), payload);
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
      this.syncKeys(h.row, h.keys, 'reload');
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
      records.set(p.name, {
        entry: { name: p.name, value, source: 'vault' },
        listing: { name: p.name, length: codePoints(value), source: p.source, addedAt: p.createdAt, updatedAt: p.updatedAt },
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
      this.syncKeys(h.row, h.keys, phase);
      const active = this.activeKey(h.row);
      const state = this.openState(active);
      const rows = this.store.records();
      const acc = Buffer.alloc(32);
      for (const row of rows) {
        const { payload, plain } = this.openRecord(row, rows);
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
      this.syncKeys(h.row, h.keys, 'reload');
      const active = this.activeKey(h.row);
      const state = this.openState(active);
      this.checkGeneration(state);
      let next = this.store.nextRecordId();
      const tx: Tx = { snapshot: copySnapshot(snapshot), header: h.row, active, state, nextId: () => next++, changed: false };
      const result = fn(tx);
      if (tx.changed) {
        state.generation += 1;
        this.store.putState(sealState(tx.active, this.vaultId, state));
        this.generation = state.generation;
      }
      return { result, snapshot: tx.snapshot };
    });
    // Our own commit does not move data_version, so the snapshot is advanced by what the transaction did.
    this.cache = committed.snapshot;
    return committed.result;
  }

  /** Inserts or replaces one record inside a transaction. */
  private put(tx: Tx, name: string, text: string, value: Buffer, source: string, replace: boolean, now: number): AddOutcome | 'conflict' {
    const index = nameIndex(tx.active, name);
    const existing = this.store.recordByIndex(index);
    const remember = (createdAt: number): void => {
      tx.snapshot.records.set(name, {
        entry: { name, value: text, source: 'vault' },
        listing: { name, length: codePoints(text), source, addedAt: createdAt, updatedAt: now },
      });
    };
    if (existing === undefined) {
      const row = this.sealRecord(tx.active, tx.nextId(), 1, index, { name, source, createdAt: now, updatedAt: now, value });
      this.store.insertRecord(row);
      xorInto(tx.state.acc, rowDigest(tx.active, row));
      tx.state.count += 1;
      tx.changed = true;
      remember(now);
      return 'added';
    }
    const { payload, plain } = this.openRecord(existing, [existing]);
    const same = equalBytes(payload.value, value);
    const createdAt = payload.createdAt;
    wipe(plain);
    if (same) return 'unchanged';
    if (!replace) return 'conflict';
    const row = this.sealRecord(tx.active, existing.id, existing.version + 1, index, { name, source, createdAt, updatedAt: now, value });
    this.store.updateRecord(row);
    xorInto(tx.state.acc, rowDigest(tx.active, existing));
    xorInto(tx.state.acc, rowDigest(tx.active, row));
    tx.changed = true;
    remember(createdAt);
    return 'replaced';
  }

  private sealRecord(dk: DataKey, id: number, version: number, index: Buffer, payload: RecordPayload): RecordRow {
    const plain = encodeRecord(payload);
    const { nonce, sealed } = seal(dk.record, plain, recordAd(this.vaultId, id, dk.keyId, version, index));
    wipe(plain);
    return { id, name_index: index, key_id: dk.keyId, version, nonce, sealed };
  }

  /** Opens a record or throws the most precise tamper error; `all` lets it recognise a row moved from elsewhere. */
  private openRecord(row: RecordRow, all: readonly RecordRow[]): { payload: RecordPayload; plain: Uint8Array } {
    const dk = this.keys.get(row.key_id);
    const plain = dk === undefined ? null : open(dk.record, row.nonce, row.sealed, recordAd(this.vaultId, row.id, row.key_id, row.version, row.name_index));
    if (plain === null) {
      if (dk !== undefined) {
        for (const other of all) {
          if (other.id === row.id) continue;
          const moved = open(dk.record, row.nonce, row.sealed, recordAd(this.vaultId, other.id, row.key_id, row.version, row.name_index));
          if (moved !== null) {
            wipe(moved);
            throw vaultError('FICTA_VAULT_RECORD_SWAPPED', `record ${row.id} holds the sealed data of record ${other.id}: rows were swapped; nothing was changed`);
          }
        }
      }
      throw vaultError('FICTA_VAULT_RECORD_TAMPERED', `record ${row.id} failed authentication (altered or damaged); nothing was changed`);
    }
    const payload = decodeRecord(plain);
    if (payload === null) {
      wipe(plain);
      throw vaultError('FICTA_VAULT_RECORD_TAMPERED', `record ${row.id} has an unreadable payload; nothing was changed`);
    }
    return { payload, plain };
  }

  private openState(active: DataKey): StatePayload {
    const row = this.store.state();
    if (row === undefined) throw vaultError('FICTA_VAULT_STATE_TAMPERED', 'the vault state row is missing; nothing was changed');
    const plain = row.key_id === active.keyId ? open(active.state, row.nonce, row.sealed, stateAd(this.vaultId, active.keyId)) : null;
    const state = plain === null ? null : decodeState(plain);
    wipe(plain);
    if (state === null) throw vaultError('FICTA_VAULT_STATE_TAMPERED', 'the vault state failed authentication (altered or damaged); nothing was changed');
    return state;
  }

  /** Unwraps key rows this process does not hold yet, and drops keys that left the ring. */
  private syncKeys(h: HeaderRow, rows: readonly KeyRow[], phase: 'unlock' | 'reload'): void {
    const kdf = kdfFromHeader(h);
    const present = new Set<number>();
    for (const row of rows) {
      present.add(row.key_id);
      if (this.keys.has(row.key_id)) continue;
      const dk = unwrapDataKey(this.kek, this.vaultId, row, kdf);
      if (dk === null) {
        if (phase === 'reload') throw vaultError('FICTA_VAULT_LOCKED', 'the vault was re-keyed under another passphrase or key file since it was unlocked; unlock it again');
        throw h.kdf === 'key-file'
          ? vaultError('FICTA_VAULT_WRONG_KEY', 'the key file does not open this vault')
          : vaultError('FICTA_VAULT_WRONG_PASSPHRASE', 'wrong passphrase');
      }
      this.keys.set(row.key_id, dk);
    }
    for (const [id, dk] of this.keys) {
      if (!present.has(id)) { wipeDataKey(dk); this.keys.delete(id); }
    }
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

/** A copy a transaction may change; it replaces the cache only once the transaction committed. */
function copySnapshot(s: Snapshot): Snapshot {
  return { version: s.version, records: new Map(s.records) };
}

function sealState(dk: DataKey, vaultId: Buffer, state: StatePayload): { key_id: number; nonce: Buffer; sealed: Buffer } {
  const plain = encodeState(state);
  const { nonce, sealed } = seal(dk.state, plain, stateAd(vaultId, dk.keyId));
  wipe(plain);
  return { key_id: dk.keyId, nonce, sealed };
}

/** Compares the rows read with what the sealed state vouches for. */
function checkSet(state: StatePayload, count: number, acc: Buffer): void {
  if (count < state.count) throw vaultError('FICTA_VAULT_ROWS_DELETED', `${state.count - count} record(s) were deleted outside ficta; nothing was changed`);
  if (count > state.count) throw vaultError('FICTA_VAULT_ROWS_ADDED', `${count - state.count} record(s) were added outside ficta; nothing was changed`);
  if (!equalBytes(acc, state.acc)) throw vaultError('FICTA_VAULT_ROWS_ROLLED_BACK', 'some record was rolled back to an older copy or replaced; nothing was changed');
}

/** Reads the header and key rows, checking the format version and the header checksum. */
function readHeader(store: VaultStore): { row: HeaderRow; keys: KeyRow[] } {
  const row = store.header();
  if (row === undefined) throw vaultError('FICTA_VAULT_CORRUPT', `${store.path} has no vault header`);
  if (row.format !== FORMAT_VERSION) {
    throw vaultError('FICTA_VAULT_UNSUPPORTED_VERSION', `${store.path} has format version ${row.format}; this ficta reads version ${FORMAT_VERSION}`);
  }
  const keys = store.keys();
  const kdf = checkKdfParams(kdfFromHeader(row));
  if (!kdf.ok) throw kdf.error;
  const expected = headerChecksum({ format: row.format, vaultId: row.vault_id, createdAt: row.created_at, kdf: kdf.value, activeKey: row.active_key }, keys);
  if (!equalBytes(expected, row.checksum)) throw vaultError('FICTA_VAULT_CORRUPT', `the vault header of ${store.path} is damaged (checksum mismatch); nothing was changed`);
  return { row, keys };
}

function headerInfo(store: VaultStore, h: HeaderRow): VaultInfo {
  let headerIntact = true;
  try { readHeader(store); } catch { headerIntact = false; }
  return {
    path: store.path,
    format: h.format,
    vaultId: h.vault_id.toString('hex'),
    createdAt: h.created_at,
    kdf: { kind: h.kdf as KdfParams['kind'], preset: h.kdf_preset, ops: h.kdf_ops, mem: h.kdf_mem },
    records: store.recordCount(),
    headerIntact,
  };
}

function headerKdfColumns(kdf: KdfParams): Pick<HeaderRow, 'kdf' | 'kdf_preset' | 'kdf_salt' | 'kdf_ops' | 'kdf_mem'> {
  return { kdf: kdf.kind, kdf_preset: kdf.preset, kdf_salt: kdf.salt, kdf_ops: kdf.ops, kdf_mem: kdf.mem };
}

function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n += 1;
  return n;
}

function exists(path: string): boolean {
  try { statSync(path); return true; } catch { return false; }
}

function tightenMode(path: string): void {
  try {
    const mode = statSync(path).mode & 0o777;
    if ((mode & 0o077) !== 0) chmodSync(path, 0o600);
  } catch {
    // Best effort: `vault status` reports a loose mode.
  }
}

function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some file systems refuse fsync on a directory; the link itself is already atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
