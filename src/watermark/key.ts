// The watermark key (FICTA_HOME/watermark.key, 32 random bytes, 0600, created on first use) and the
// keyed functions derived from it: session marks, placement seeds, document ids, fingerprint PRF.

import { createCipheriv, createHmac, randomBytes } from 'node:crypto';
import { chmodSync, closeSync, fstatSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ensureHome } from '../config/home.ts';
import { FictaError } from '../errors.ts';
import { err, ok, type Result } from '../util/result.ts';

export const WATERMARK_KEY_FILE = 'watermark.key';
export const WATERMARK_KEY_BYTES = 32;

/** Everything keyed that the watermark needs; built once per key. */
export interface WatermarkKeys {
  /** The session's 64-bit mark: a PRF of the session id, so it survives restarts and registry outages. */
  sessionMark(sessionId: string): Uint8Array;
  /** 32 bytes that fix frame placement for one (session, document). */
  placementSeed(sessionId: string, text: string): Buffer;
  /** A keyed 16-byte id of a document's exact text (dedupes the same document across turns). */
  documentId(text: string): Buffer;
  /** AES-128 key of the fingerprint PRF. */
  readonly fingerprintKey: Buffer;
  /** Random 32-bit tables for the rolling k-gram hash: two lanes × (4096 low + 512 high) entries. */
  readonly hashTables: Uint32Array;
}

/** Reads FICTA_HOME/watermark.key, creating it (0600, O_EXCL) when missing. */
export function loadOrCreateKey(home: string): Result<Buffer> {
  const path = join(home, WATERMARK_KEY_FILE);
  try {
    ensureHome(home);
    try {
      const fd = openSync(path, 'wx', 0o600);
      try {
        const key = randomBytes(WATERMARK_KEY_BYTES);
        writeSync(fd, key);
        fsyncSync(fd);
        return ok(key);
      } finally {
        closeSync(fd);
      }
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code !== 'EEXIST') throw cause;
    }
    return readKey(path);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code ?? 'error';
    return err(new FictaError('FICTA_WATERMARK_KEY_UNAVAILABLE', `watermark: cannot create or read ${path}: ${code}`, { cause }));
  }
}

/** Reads an existing key file without creating one (for commands that only look things up). */
export function readKeyFile(home: string): Result<Buffer> {
  const path = join(home, WATERMARK_KEY_FILE);
  try {
    return readKey(path);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code ?? 'error';
    return err(new FictaError('FICTA_WATERMARK_KEY_UNAVAILABLE', `watermark: cannot read ${path}: ${code}`, { cause }));
  }
}

function readKey(path: string): Result<Buffer> {
  const fd = openSync(path, 'r');
  try {
    if ((fstatSync(fd).mode & 0o077) !== 0) chmodSync(path, 0o600);
  } finally {
    closeSync(fd);
  }
  const key = readFileSync(path);
  if (key.length !== WATERMARK_KEY_BYTES) {
    return err(new FictaError('FICTA_WATERMARK_KEY_INVALID', `watermark: ${path} must hold exactly ${WATERMARK_KEY_BYTES} bytes`));
  }
  return ok(key);
}

function derive(key: Buffer, label: string): Buffer {
  return createHmac('sha256', key).update(`ficta/watermark/${label}`).digest();
}

/** Derives every keyed function from the 32-byte key. */
export function deriveKeys(key: Buffer): WatermarkKeys {
  const markKey = derive(key, 'session-mark/v1');
  const placeKey = derive(key, 'placement/v1');
  const docKey = derive(key, 'document-id/v1');
  const fingerprintKey = derive(key, 'fingerprint-prf/v1').subarray(0, 16);
  const tableKey = derive(key, 'rolling-tables/v1');
  // AES-CTR keystream as a fast expander for 2 × 4608 random 32-bit table entries.
  const stream = createCipheriv('aes-128-ctr', tableKey.subarray(0, 16), tableKey.subarray(16, 32)).update(Buffer.alloc(2 * 4608 * 4));
  const hashTables = new Uint32Array(stream.buffer.slice(stream.byteOffset, stream.byteOffset + stream.length));
  return {
    sessionMark: (sessionId) => new Uint8Array(createHmac('sha256', markKey).update(sessionId).digest().subarray(0, 8)),
    placementSeed: (sessionId, text) => createHmac('sha256', placeKey).update(sessionId).update('\0').update(text).digest(),
    documentId: (text) => createHmac('sha256', docKey).update(text).digest().subarray(0, 16),
    fingerprintKey,
    hashTables,
  };
}
