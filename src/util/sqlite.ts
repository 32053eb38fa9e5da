// The only module that imports better-sqlite3: opens a database file with ficta's durability pragmas.

import BetterSqlite3 from 'better-sqlite3';

export type Database = BetterSqlite3.Database;
export type Statement<P extends unknown[] | {} = unknown[], R = unknown> = BetterSqlite3.Statement<P, R>;

export interface OpenDatabaseOptions {
  readonly?: boolean;
  /** Fail instead of creating the file when it does not exist. */
  fileMustExist?: boolean;
  /** Milliseconds to wait on a lock held by another process before SQLITE_BUSY. */
  busyTimeoutMs?: number;
  /** `FULL` (default) fsyncs every commit; `NORMAL` in WAL mode may lose the last commits on power loss. */
  synchronous?: 'FULL' | 'NORMAL';
}

/** Opens `path` with WAL, synchronous=FULL (unless asked otherwise), secure_delete=ON and a busy timeout. */
export function openDatabase(path: string, options: OpenDatabaseOptions = {}): Database {
  const db = new BetterSqlite3(path, {
    readonly: options.readonly ?? false,
    fileMustExist: options.fileMustExist ?? false,
    timeout: options.busyTimeoutMs ?? 10_000,
  });
  try {
    if (!(options.readonly ?? false)) db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
    db.pragma('secure_delete = ON');
    db.pragma('foreign_keys = ON');
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}
