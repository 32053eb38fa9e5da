// The attribution registry (FICTA_HOME/watermark.sqlite): sessions and their marks, documents by keyed
// id, every request that sent each document, and keyed fingerprints. Never the text itself.

import { join } from 'node:path';
import { FictaError } from '../errors.ts';
import { err, ok, type Result } from '../util/result.ts';
import { openDatabase, type Database, type Statement } from '../util/sqlite.ts';

export const REGISTRY_FILE = 'watermark.sqlite';
const SCHEMA_VERSION = 1;
/** Bound parameters per `IN (…)` chunk; SQLite's default limit is 32,766. */
const QUERY_CHUNK = 500;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS sessions (
  session_id TEXT PRIMARY KEY,
  mark BLOB NOT NULL,
  first_seen INTEGER NOT NULL,
  last_seen INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_mark ON sessions(mark);
CREATE TABLE IF NOT EXISTS documents (
  id INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL,
  doc_hash BLOB NOT NULL,
  bytes INTEGER NOT NULL,
  fingerprints INTEGER NOT NULL,
  frames INTEGER NOT NULL,
  first_index INTEGER NOT NULL,
  first_seen INTEGER NOT NULL,
  last_seen INTEGER NOT NULL,
  UNIQUE (session_id, doc_hash)
);
CREATE INDEX IF NOT EXISTS documents_last_seen ON documents(last_seen);
CREATE TABLE IF NOT EXISTS sightings (
  doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  request_id TEXT NOT NULL,
  time INTEGER NOT NULL,
  route TEXT NOT NULL,
  provider TEXT NOT NULL,
  model TEXT,
  UNIQUE (doc_id, request_id)
);
CREATE INDEX IF NOT EXISTS sightings_time ON sightings(time);
CREATE TABLE IF NOT EXISTS fingerprints (
  hash INTEGER NOT NULL,
  doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  PRIMARY KEY (hash, doc_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS fingerprints_doc ON fingerprints(doc_id);
`;

export interface Sighting {
  requestId: string;
  /** Milliseconds since the epoch. */
  time: number;
  route: string;
  provider: string;
  model: string | null;
}

export interface DocumentRecord {
  sessionId: string;
  docHash: Buffer;
  bytes: number;
  frames: number;
  /** Codeword index of the document's first frame (its frames carry consecutive indices). */
  firstIndex: number;
  /** Computed only when the document is new to this session. */
  fingerprints: () => readonly number[];
}

export interface DocumentInfo {
  id: number;
  sessionId: string;
  /** Keyed id of the exact text (hex): equal across sessions that sent the same text. */
  docHash: string;
  bytes: number;
  fingerprints: number;
  frames: number;
  firstIndex: number;
  firstSeen: number;
  lastSeen: number;
}

export interface PurgeCounts {
  sightings: number;
  documents: number;
  sessions: number;
}

export interface Registry {
  recordSession(sessionId: string, mark: Uint8Array, time: number): void;
  /** Adds a sighting, and the document with its fingerprints when new; says which. */
  recordDocument(doc: DocumentRecord, sighting: Sighting): 'new' | 'seen';
  /** Documents sharing fingerprints with `fps`, most shared first. */
  candidates(fps: readonly number[], limit: number): Array<{ docId: number; shared: number }>;
  document(docId: number): DocumentInfo | undefined;
  /** The latest sightings of a document, newest first, and how many there are in all. */
  sightings(docId: number, limit: number): { total: number; latest: Sighting[] };
  sessionMark(sessionId: string): Uint8Array | undefined;
  sessionsByMark(mark: Uint8Array): string[];
  /** Deletes sightings older than `before` (ms), then documents and sessions left without any. */
  purge(before: number): PurgeCounts;
  close(): void;
}

export interface OpenRegistryOptions {
  readonly?: boolean;
  /** Caps the file size in pages (tests use it to reproduce a full disk: SQLITE_FULL). */
  maxPageCount?: number;
}

/** Opens (creating when writable) the registry at FICTA_HOME/watermark.sqlite. */
export function openRegistry(home: string, options: OpenRegistryOptions = {}): Result<Registry> {
  const path = join(home, REGISTRY_FILE);
  let db: Database | undefined;
  try {
    db = openDatabase(path, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false, synchronous: 'NORMAL' });
    if (!(options.readonly ?? false)) {
      const version = db.pragma('user_version', { simple: true }) as number;
      if (version > SCHEMA_VERSION) {
        db.close();
        return err(new FictaError('FICTA_WATERMARK_REGISTRY_VERSION', `watermark: registry ${path} has a newer format (${version})`));
      }
      db.exec(SCHEMA);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    }
    if (options.maxPageCount !== undefined) db.pragma(`max_page_count = ${options.maxPageCount}`);
    return ok(createRegistry(db));
  } catch (cause) {
    db?.close();
    const code = (cause as { code?: string }).code ?? 'error';
    return err(new FictaError('FICTA_WATERMARK_REGISTRY_UNAVAILABLE', `watermark: cannot open registry ${path}: ${code}`, { cause }));
  }
}

function createRegistry(db: Database): Registry {
  const writable = !db.readonly;
  const prepare = <T>(sql: string) => (writable ? db.prepare<unknown[], T>(sql) : undefined);
  const upsertSession = prepare(
    'INSERT INTO sessions (session_id, mark, first_seen, last_seen) VALUES (?, ?, ?, ?) ON CONFLICT(session_id) DO UPDATE SET last_seen = MAX(last_seen, excluded.last_seen)',
  );
  const findDoc = db.prepare<unknown[], { id: number }>('SELECT id FROM documents WHERE session_id = ? AND doc_hash = ?');
  const insertDoc = prepare(
    'INSERT INTO documents (session_id, doc_hash, bytes, fingerprints, frames, first_index, first_seen, last_seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const touchDoc = prepare('UPDATE documents SET last_seen = MAX(last_seen, ?) WHERE id = ?');
  const insertFp = prepare('INSERT OR IGNORE INTO fingerprints (hash, doc_id) VALUES (?, ?)');
  const insertSighting = prepare('INSERT OR IGNORE INTO sightings (doc_id, request_id, time, route, provider, model) VALUES (?, ?, ?, ?, ?, ?)');
  const getDoc = db.prepare<unknown[], Record<string, number | string | Buffer>>(
    'SELECT id, session_id, doc_hash, bytes, fingerprints, frames, first_index, first_seen, last_seen FROM documents WHERE id = ?',
  );
  const countSightings = db.prepare<unknown[], { n: number }>('SELECT COUNT(*) AS n FROM sightings WHERE doc_id = ?');
  const latestSightings = db.prepare<unknown[], { request_id: string; time: number; route: string; provider: string; model: string | null }>(
    'SELECT request_id, time, route, provider, model FROM sightings WHERE doc_id = ? ORDER BY time DESC LIMIT ?',
  );
  const getMark = db.prepare<unknown[], { mark: Buffer }>('SELECT mark FROM sessions WHERE session_id = ?');
  const byMark = db.prepare<unknown[], { session_id: string }>('SELECT session_id FROM sessions WHERE mark = ? ORDER BY first_seen');
  const candidateStatements = new Map<number, Statement<number[], { doc_id: number; n: number }>>();

  const readOnly = (): never => {
    throw new FictaError('FICTA_WATERMARK_REGISTRY_READONLY', 'watermark: registry is open read-only');
  };

  const recordDocument = db.transaction((doc: DocumentRecord, s: Sighting): 'new' | 'seen' => {
    const existing = findDoc.get(doc.sessionId, doc.docHash);
    let docId: number;
    let outcome: 'new' | 'seen';
    if (existing !== undefined) {
      docId = existing.id;
      touchDoc!.run(s.time, docId);
      outcome = 'seen';
    } else {
      const fps = doc.fingerprints();
      docId = Number(insertDoc!.run(doc.sessionId, doc.docHash, doc.bytes, fps.length, doc.frames, doc.firstIndex, s.time, s.time).lastInsertRowid);
      for (const fp of fps) insertFp!.run(fp, docId);
      outcome = 'new';
    }
    insertSighting!.run(docId, s.requestId, s.time, s.route, s.provider, s.model);
    return outcome;
  });

  const purge = db.transaction((before: number): PurgeCounts => {
    const sightings = db.prepare('DELETE FROM sightings WHERE time < ?').run(before).changes;
    const documents = db.prepare('DELETE FROM documents WHERE id NOT IN (SELECT DISTINCT doc_id FROM sightings)').run().changes;
    const sessions = db
      .prepare('DELETE FROM sessions WHERE last_seen < ? AND session_id NOT IN (SELECT DISTINCT session_id FROM documents)')
      .run(before).changes;
    return { sightings, documents, sessions };
  });

  return {
    recordSession(sessionId, mark, time) {
      if (upsertSession === undefined) readOnly();
      upsertSession!.run(sessionId, Buffer.from(mark), time, time);
    },
    recordDocument(doc, s) {
      if (!writable) readOnly();
      return recordDocument(doc, s);
    },
    candidates(fps, limit) {
      const shared = new Map<number, number>();
      for (let at = 0; at < fps.length; at += QUERY_CHUNK) {
        const chunk = fps.slice(at, at + QUERY_CHUNK);
        let stmt = candidateStatements.get(chunk.length);
        if (stmt === undefined) {
          stmt = db.prepare<number[], { doc_id: number; n: number }>(`SELECT doc_id, COUNT(*) AS n FROM fingerprints WHERE hash IN (${chunk.map(() => '?').join(',')}) GROUP BY doc_id`);
          candidateStatements.set(chunk.length, stmt);
        }
        for (const row of stmt.all(...chunk)) shared.set(row.doc_id, (shared.get(row.doc_id) ?? 0) + row.n);
      }
      return [...shared]
        .map(([docId, n]) => ({ docId, shared: n }))
        .sort((a, b) => b.shared - a.shared || a.docId - b.docId)
        .slice(0, limit);
    },
    document(docId) {
      const r = getDoc.get(docId);
      if (r === undefined) return undefined;
      return {
        id: r.id as number,
        sessionId: r.session_id as string,
        docHash: (r.doc_hash as Buffer).toString('hex'),
        bytes: r.bytes as number,
        fingerprints: r.fingerprints as number,
        frames: r.frames as number,
        firstIndex: r.first_index as number,
        firstSeen: r.first_seen as number,
        lastSeen: r.last_seen as number,
      };
    },
    sightings(docId, limit) {
      const total = countSightings.get(docId)?.n ?? 0;
      const latest = latestSightings.all(docId, limit).map((r) => ({ requestId: r.request_id, time: r.time, route: r.route, provider: r.provider, model: r.model }));
      return { total, latest };
    },
    sessionMark(sessionId) {
      const r = getMark.get(sessionId);
      return r === undefined ? undefined : new Uint8Array(r.mark);
    },
    sessionsByMark(mark) {
      return byMark.all(Buffer.from(mark)).map((r) => r.session_id);
    },
    purge(before) {
      if (!writable) readOnly();
      return purge(before);
    },
    close() {
      if (db.open) db.close();
    },
  };
}
