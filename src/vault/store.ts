// The vault's SQLite layer: file checks before opening, the versioned schema, prepared statements (made
// once), and transactions — BEGIN IMMEDIATE for every change so concurrent writers queue instead of failing.

import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { FictaError } from '../errors.ts';
import { err, ok, type Result } from '../util/result.ts';
import { openDatabase, type Database, type Statement } from '../util/sqlite.ts';
import { vaultError } from './errors.ts';
import { APPLICATION_ID, FORMAT_VERSION } from './format.ts';

/**
 * How long a writer waits for another process's transaction before FICTA_VAULT_BUSY. The longest
 * transactions measured here: importing 20,000 values of 1 KB 0.9 s, rekeying them 0.8 s.
 */
const BUSY_TIMEOUT_MS = 15_000;

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

const SCHEMA = `
CREATE TABLE header (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  format INTEGER NOT NULL,
  vault_id BLOB NOT NULL,
  created_at INTEGER NOT NULL,
  kdf TEXT NOT NULL,
  kdf_preset TEXT NOT NULL,
  kdf_salt BLOB NOT NULL,
  kdf_ops INTEGER NOT NULL,
  kdf_mem INTEGER NOT NULL,
  active_key INTEGER NOT NULL,
  checksum BLOB NOT NULL
) STRICT;
CREATE TABLE keys (
  key_id INTEGER PRIMARY KEY,
  nonce BLOB NOT NULL,
  wrapped BLOB NOT NULL
) STRICT;
CREATE TABLE records (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name_index BLOB NOT NULL UNIQUE,
  key_id INTEGER NOT NULL,
  version INTEGER NOT NULL,
  nonce BLOB NOT NULL,
  sealed BLOB NOT NULL
) STRICT;
CREATE TABLE state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  key_id INTEGER NOT NULL,
  nonce BLOB NOT NULL,
  sealed BLOB NOT NULL
) STRICT;
`;

export interface HeaderRow {
  format: number;
  vault_id: Buffer;
  created_at: number;
  kdf: string;
  kdf_preset: string;
  kdf_salt: Buffer;
  kdf_ops: number;
  kdf_mem: number;
  active_key: number;
  checksum: Buffer;
}
export interface KeyRow { key_id: number; nonce: Buffer; wrapped: Buffer }
export interface RecordRow { id: number; name_index: Buffer; key_id: number; version: number; nonce: Buffer; sealed: Buffer }
export interface StateRow { key_id: number; nonce: Buffer; sealed: Buffer }

/** An open vault file with its prepared statements. */
export class VaultStore {
  readonly path: string;
  readonly db: Database;
  private readonly s: ReturnType<typeof prepare>;

  constructor(path: string, db: Database) {
    this.path = path;
    this.db = db;
    this.s = prepare(db);
  }

  header(): HeaderRow | undefined { return this.s.header.get() as HeaderRow | undefined; }
  insertHeader(h: HeaderRow): void { this.s.insertHeader.run({ ...h }); }
  updateHeaderKeys(h: Pick<HeaderRow, 'kdf' | 'kdf_preset' | 'kdf_salt' | 'kdf_ops' | 'kdf_mem' | 'active_key' | 'checksum'>): void {
    this.s.updateHeaderKeys.run({ ...h });
  }
  keys(): KeyRow[] { return this.s.keys.all() as KeyRow[]; }
  putKey(k: KeyRow): void { this.s.putKey.run({ ...k }); }
  deleteKeysExcept(keyId: number): void { this.s.deleteKeysExcept.run(keyId); }
  records(): RecordRow[] { return this.s.records.all() as RecordRow[]; }
  /** Iterates records without materialising them all (rekey). */
  iterateRecords(): IterableIterator<RecordRow> { return this.s.records.iterate() as IterableIterator<RecordRow>; }
  recordByIndex(nameIndex: Buffer): RecordRow | undefined { return this.s.recordByIndex.get(nameIndex) as RecordRow | undefined; }
  recordCount(): number { return this.s.recordCount.pluck().get() as number; }
  /** The id the next inserted record gets (ids are never reused: AUTOINCREMENT). */
  nextRecordId(): number { return this.s.nextRecordId.pluck().get() as number; }
  insertRecord(r: RecordRow): void { this.s.insertRecord.run({ ...r }); }
  updateRecord(r: RecordRow): void { this.s.updateRecord.run({ ...r }); }
  deleteRecord(id: number): void { this.s.deleteRecord.run(id); }
  state(): StateRow | undefined { return this.s.state.get() as StateRow | undefined; }
  putState(st: StateRow): void { this.s.putState.run({ ...st }); }

  /** Runs `fn` in one BEGIN IMMEDIATE transaction: committed whole, or rolled back when it throws. */
  write<T>(fn: () => T): T { return this.db.transaction(fn).immediate(); }
  /** Runs `fn` in one read transaction, so it sees a single committed snapshot. */
  read<T>(fn: () => T): T { return this.db.transaction(fn).deferred(); }
  /** Changes when another connection commits (PRAGMA data_version). */
  dataVersion(): number { return this.db.pragma('data_version', { simple: true }) as number; }
  /** Writes a consistent copy of the committed database to `dest`, which must not exist or be empty (VACUUM INTO). */
  copyTo(dest: string): void { this.db.prepare('VACUUM INTO ?').run(dest); }
  /** SQLite's own check of every page and index; true when it reports "ok". */
  integrityOk(): boolean { return this.db.pragma('integrity_check', { simple: true }) === 'ok'; }
  /** Moves the write-ahead log into the file and empties it, so the file alone holds every commit. */
  checkpoint(): void { this.db.pragma('wal_checkpoint(TRUNCATE)'); }

  close(): void { if (this.db.open) this.db.close(); }
}

function prepare(db: Database) {
  const st = <P extends unknown[] | {} = unknown[]>(sql: string): Statement<P> => db.prepare<P>(sql);
  return {
    header: st('SELECT format, vault_id, created_at, kdf, kdf_preset, kdf_salt, kdf_ops, kdf_mem, active_key, checksum FROM header WHERE id = 1'),
    insertHeader: st<[Record<string, unknown>]>(`INSERT INTO header (id, format, vault_id, created_at, kdf, kdf_preset, kdf_salt, kdf_ops, kdf_mem, active_key, checksum)
      VALUES (1, @format, @vault_id, @created_at, @kdf, @kdf_preset, @kdf_salt, @kdf_ops, @kdf_mem, @active_key, @checksum)`),
    updateHeaderKeys: st<[Record<string, unknown>]>(`UPDATE header SET kdf = @kdf, kdf_preset = @kdf_preset, kdf_salt = @kdf_salt, kdf_ops = @kdf_ops,
      kdf_mem = @kdf_mem, active_key = @active_key, checksum = @checksum WHERE id = 1`),
    keys: st('SELECT key_id, nonce, wrapped FROM keys ORDER BY key_id'),
    putKey: st<[Record<string, unknown>]>('INSERT OR REPLACE INTO keys (key_id, nonce, wrapped) VALUES (@key_id, @nonce, @wrapped)'),
    deleteKeysExcept: st<[number]>('DELETE FROM keys WHERE key_id <> ?'),
    records: st('SELECT id, name_index, key_id, version, nonce, sealed FROM records ORDER BY id'),
    recordByIndex: st<[Buffer]>('SELECT id, name_index, key_id, version, nonce, sealed FROM records WHERE name_index = ?'),
    recordCount: st('SELECT count(*) FROM records'),
    nextRecordId: st(`SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'records'), 0),
      coalesce((SELECT max(id) FROM records), 0)) + 1`),
    insertRecord: st<[Record<string, unknown>]>(`INSERT INTO records (id, name_index, key_id, version, nonce, sealed)
      VALUES (@id, @name_index, @key_id, @version, @nonce, @sealed)`),
    updateRecord: st<[Record<string, unknown>]>(`UPDATE records SET name_index = @name_index, key_id = @key_id, version = @version,
      nonce = @nonce, sealed = @sealed WHERE id = @id`),
    deleteRecord: st<[number]>('DELETE FROM records WHERE id = ?'),
    state: st('SELECT key_id, nonce, sealed FROM state WHERE id = 1'),
    putState: st<[Record<string, unknown>]>('INSERT OR REPLACE INTO state (id, key_id, nonce, sealed) VALUES (1, @key_id, @nonce, @sealed)'),
  };
}

/**
 * Checks the file before SQLite sees it, so a missing, empty, foreign or cut-short file is reported as such
 * (SQLite would treat an empty file as a fresh database, and only fail on a truncated one when a missing
 * page happens to be read).
 */
export function inspectVaultFile(path: string): Result<void> {
  if (!existsSync(path)) return err(vaultError('FICTA_VAULT_NOT_FOUND', `no vault at ${path} (run \`ficta vault init\`)`));
  let size: number;
  const head = Buffer.alloc(100);
  let got = 0;
  try {
    const st = statSync(path);
    if (!st.isFile()) return err(vaultError('FICTA_VAULT_CORRUPT', `${path} is not a regular file`));
    size = st.size;
    const fd = openSync(path, 'r');
    try { got = readSync(fd, head, 0, 100, 0); } finally { closeSync(fd); }
  } catch (cause) {
    return err(vaultError('FICTA_VAULT_IO', `cannot read ${path}: ${(cause as NodeJS.ErrnoException).code ?? 'error'}`, cause));
  }
  if (size === 0) return err(vaultError('FICTA_VAULT_TRUNCATED', `${path} is empty (truncated)`));
  if (got < SQLITE_MAGIC.length || !head.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC)) {
    return err(vaultError('FICTA_VAULT_CORRUPT', `${path} is not a ficta vault (not an SQLite file)`));
  }
  if (got < 100) return err(vaultError('FICTA_VAULT_TRUNCATED', `${path} is truncated (${size} bytes)`));
  const rawPageSize = head.readUInt16BE(16);
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize;
  const pages = head.readUInt32BE(28);
  const sizeValid = head.readUInt32BE(24) === head.readUInt32BE(92) && pages > 0;
  // With a non-empty WAL the main file may legitimately lag its header until recovery (a crash during a
  // checkpoint); SQLite then replays the WAL and any real damage surfaces as SQLITE_CORRUPT.
  const walPending = existsSync(`${path}-wal`) && statSync(`${path}-wal`).size > 0;
  if (!walPending && (size % pageSize !== 0 || (sizeValid && size < pages * pageSize))) {
    return err(vaultError('FICTA_VAULT_TRUNCATED', `${path} is truncated (${size} bytes, its header says ${sizeValid ? pages * pageSize : 'a multiple of ' + pageSize})`));
  }
  return ok(undefined);
}

/** Opens an existing vault file and checks that it is a ficta vault of a format this code reads. */
export function openVaultStore(path: string): Result<VaultStore> {
  const inspected = inspectVaultFile(path);
  if (!inspected.ok) return inspected;
  let db: Database | undefined;
  try {
    db = openDatabase(path, { fileMustExist: true, busyTimeoutMs: BUSY_TIMEOUT_MS });
    const appId = db.pragma('application_id', { simple: true }) as number;
    const version = db.pragma('user_version', { simple: true }) as number;
    if (appId !== APPLICATION_ID) {
      db.close();
      return err(vaultError('FICTA_VAULT_CORRUPT', `${path} is not a ficta vault (application id ${appId})`));
    }
    if (version !== FORMAT_VERSION) {
      db.close();
      return err(vaultError('FICTA_VAULT_UNSUPPORTED_VERSION', `${path} has format version ${version}; this ficta reads version ${FORMAT_VERSION}${version > FORMAT_VERSION ? ' (upgrade ficta)' : ''}`));
    }
    return ok(new VaultStore(path, db));
  } catch (error) {
    if (db?.open === true) db.close();
    return err(toVaultError(error, path));
  }
}

/** Creates the schema in a new, empty database file (the caller makes the file 0600 first). */
export function createVaultStore(path: string): VaultStore {
  const db = openDatabase(path, { busyTimeoutMs: BUSY_TIMEOUT_MS });
  try {
    db.transaction(() => {
      db.exec(SCHEMA);
      db.pragma(`application_id = ${APPLICATION_ID}`);
      db.pragma(`user_version = ${FORMAT_VERSION}`);
    }).immediate();
    return new VaultStore(path, db);
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Maps an SQLite failure to a vault error; FictaErrors pass through; anything else is a bug and rethrown. */
export function toVaultError(error: unknown, path: string): FictaError {
  if (error instanceof FictaError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('SQLITE_')) {
    if (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_') || code === 'SQLITE_LOCKED') {
      return vaultError('FICTA_VAULT_BUSY', `${path} stayed locked by another process for ${BUSY_TIMEOUT_MS / 1000} s`, error);
    }
    if (code === 'SQLITE_CORRUPT' || code.startsWith('SQLITE_CORRUPT_') || code === 'SQLITE_NOTADB') {
      return vaultError('FICTA_VAULT_CORRUPT', `${path} is damaged (${code})`, error);
    }
    if (code === 'SQLITE_ERROR' && /no such (table|column)/.test((error as Error).message)) {
      return vaultError('FICTA_VAULT_CORRUPT', `${path} is missing part of the vault schema`, error);
    }
    return vaultError('FICTA_VAULT_IO', `${path}: ${code}`, error);
  }
  throw error;
}
