// The vault's byte formats (version 1): associated data for every sealed box, the sealed record and state
// payloads, the per-row digest of the set MAC and the header checksum. Changing any byte here is a new
// FORMAT_VERSION; fixtures/vault/ holds a file written by this version.

import type { KdfParams } from './kdf.ts';

/** The on-disk format, also the schema's `PRAGMA user_version`; bound into every sealed box. */
export const FORMAT_VERSION = 1;
/** `PRAGMA application_id` of a vault file: "fcta". */
export const APPLICATION_ID = 0x66637461;
/** crypto_kdf context and the subkey ids derived from each data key. */
export const SUBKEY_CONTEXT = 'fictavlt';
export const SUBKEY = { record: 1, index: 2, mac: 3, state: 4 } as const;

/** Sealed payloads are zero-padded to this many bytes, so a file shows value lengths only coarsely. */
const PAD_BLOCK = 64;
/**
 * Record payload layouts inside the sealed box. 1: name, source, times, value. 2: the same, then the hosts
 * the secret may be restored towards in tool calls. A record without hosts is still written as 1, so a
 * vault whose records have no hosts stays readable by earlier versions of ficta; FORMAT_VERSION (the file
 * format) does not change.
 */
const PAYLOAD_VERSION = 1;
const PAYLOAD_VERSION_HOSTS = 2;
/** 3: layout 2 (the host count may be 0), then a flags byte (bit 0: the value is a term). Written only for terms. */
const PAYLOAD_VERSION_FLAGS = 3;
const FLAG_TERM = 1;
/** Most hosts one record keeps (a sealed record stays small). */
export const MAX_RECORD_HOSTS = 64;

export interface RecordPayload {
  name: string;
  /** Where the value came from: "prompt", "stdin", "env:VAR", "file:/path/.env". */
  source: string;
  createdAt: number;
  updatedAt: number;
  /** UTF-8 bytes of the value; a view into the decrypted buffer. */
  value: Uint8Array;
  /** Hosts (normalised allow-list patterns) it may be restored towards in tool calls; absent or empty for most. */
  hosts?: readonly string[] | undefined;
  /** A word that must not leave (`vault add --term`), matched in any case on word boundaries. */
  term?: boolean | undefined;
}

export interface StatePayload {
  /** Number of records the state vouches for. */
  count: number;
  /** Incremented by every committed change. */
  generation: number;
  /** XOR of the keyed digests of every record row: the vault-level MAC over the set of rows. */
  acc: Buffer;
  /** The proxy's placeholder key (32 bytes). */
  placeholderKey: Buffer;
}

/** The header fields the checksum covers. */
export interface HeaderFields {
  format: number;
  vaultId: Buffer;
  createdAt: number;
  kdf: KdfParams;
  activeKey: number;
}

class Writer {
  private readonly parts: Buffer[] = [];
  private length = 0;
  bytes(b: Uint8Array): this { const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength); this.parts.push(buf); this.length += buf.length; return this; }
  text(s: string): this { return this.bytes(Buffer.from(s, 'utf8')); }
  u8(n: number): this { const b = Buffer.allocUnsafe(1); b.writeUInt8(n); return this.bytes(b); }
  u16(n: number): this { const b = Buffer.allocUnsafe(2); b.writeUInt16BE(n); return this.bytes(b); }
  u32(n: number): this { const b = Buffer.allocUnsafe(4); b.writeUInt32BE(n); return this.bytes(b); }
  u64(n: number): this { const b = Buffer.allocUnsafe(8); b.writeUInt32BE(Math.floor(n / 2 ** 32)); b.writeUInt32BE(n >>> 0, 4); return this.bytes(b); }
  f64(n: number): this { const b = Buffer.allocUnsafe(8); b.writeDoubleBE(n); return this.bytes(b); }
  done(padTo = 1): Buffer {
    const total = Math.ceil(this.length / padTo) * padTo;
    const out = Buffer.alloc(total);
    let at = 0;
    for (const p of this.parts) { p.copy(out, at); at += p.length; }
    return out;
  }
}

/** Associated data of a wrapped data key: binds it to the format, the vault, its id and the KDF parameters. */
export function keyWrapAd(vaultId: Buffer, keyId: number, kdf: KdfParams): Buffer {
  return new Writer().text('ficta/vault/key\0').u16(FORMAT_VERSION).bytes(vaultId).u32(keyId)
    .text(`${kdf.kind}\0${kdf.preset}\0`).bytes(kdf.salt).u32(kdf.ops).u64(kdf.mem).done();
}

const RECORD_DOMAIN = Buffer.from('ficta/vault/rec\0');
const ROW_DOMAIN = Buffer.from('ficta/vault/row\0');

/**
 * Associated data of a record: format, vault, record id, key id, record version and name index.
 * Written field by field into one buffer: it is built for every row of every unlock.
 */
export function recordAd(vaultId: Buffer, recordId: number, keyId: number, version: number, nameIndex: Buffer): Buffer {
  const out = Buffer.allocUnsafe(RECORD_DOMAIN.length + 2 + vaultId.length + 8 + 4 + 8 + nameIndex.length);
  let at = RECORD_DOMAIN.copy(out, 0);
  at = out.writeUInt16BE(FORMAT_VERSION, at);
  at += vaultId.copy(out, at);
  at = writeU64(out, recordId, at);
  at = out.writeUInt32BE(keyId, at);
  at = writeU64(out, version, at);
  nameIndex.copy(out, at);
  return out;
}

/** Associated data of the sealed state row. */
export function stateAd(vaultId: Buffer, keyId: number): Buffer {
  return new Writer().text('ficta/vault/state\0').u16(FORMAT_VERSION).bytes(vaultId).u32(keyId).done();
}

/** What the set MAC hashes for one row: every column that identifies the exact sealed copy. */
export function rowDigestInput(recordId: number, version: number, keyId: number, nonce: Buffer, nameIndex: Buffer): Buffer {
  const out = Buffer.allocUnsafe(ROW_DOMAIN.length + 8 + 8 + 4 + nonce.length + nameIndex.length);
  let at = ROW_DOMAIN.copy(out, 0);
  at = writeU64(out, recordId, at);
  at = writeU64(out, version, at);
  at = out.writeUInt32BE(keyId, at);
  at += nonce.copy(out, at);
  nameIndex.copy(out, at);
  return out;
}

function writeU64(out: Buffer, n: number, at: number): number {
  out.writeUInt32BE(Math.floor(n / 2 ** 32), at);
  return out.writeUInt32BE(n >>> 0, at + 4);
}

/** The blind-index input for a name. */
export function nameIndexInput(name: string): Buffer {
  return new Writer().text('ficta/vault/name\0').text(name).done();
}

/** What the (unkeyed) header checksum covers: header fields and every wrapped key. */
export function headerChecksumInput(h: HeaderFields, keys: ReadonlyArray<{ keyId: number; nonce: Buffer; wrapped: Buffer }>): Buffer {
  const w = new Writer().text('ficta/vault/header\0').u16(h.format).bytes(h.vaultId).f64(h.createdAt)
    .text(`${h.kdf.kind}\0${h.kdf.preset}\0`).bytes(h.kdf.salt).u32(h.kdf.ops).u64(h.kdf.mem).u32(h.activeKey).u32(keys.length);
  for (const k of keys) w.u32(k.keyId).bytes(k.nonce).u32(k.wrapped.length).bytes(k.wrapped);
  return w.done();
}

/** Encodes a record payload, zero-padded to PAD_BLOCK. */
export function encodeRecord(p: RecordPayload): Buffer {
  const hosts = p.hosts ?? [];
  const name = Buffer.from(p.name, 'utf8');
  const source = Buffer.from(p.source, 'utf8');
  const version = p.term === true ? PAYLOAD_VERSION_FLAGS : hosts.length === 0 ? PAYLOAD_VERSION : PAYLOAD_VERSION_HOSTS;
  const w = new Writer().u8(version).u16(name.length).bytes(name).u16(source.length).bytes(source)
    .f64(p.createdAt).f64(p.updatedAt).u32(p.value.length).bytes(p.value);
  if (version !== PAYLOAD_VERSION) w.u16(hosts.length);
  for (const h of hosts) {
    const b = Buffer.from(h, 'utf8');
    w.u16(b.length).bytes(b);
  }
  if (version === PAYLOAD_VERSION_FLAGS) w.u8(FLAG_TERM);
  return w.done(PAD_BLOCK);
}

/** Decodes a record payload; null when the bytes do not follow the layout. */
export function decodeRecord(bytes: Uint8Array): RecordPayload | null {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    let at = 0;
    const version = b.readUInt8(at);
    if (version !== PAYLOAD_VERSION && version !== PAYLOAD_VERSION_HOSTS && version !== PAYLOAD_VERSION_FLAGS) return null;
    at += 1;
    const nameLen = b.readUInt16BE(at); at += 2;
    const name = b.toString('utf8', at, at + nameLen); at += nameLen;
    const sourceLen = b.readUInt16BE(at); at += 2;
    const source = b.toString('utf8', at, at + sourceLen); at += sourceLen;
    const createdAt = b.readDoubleBE(at); at += 8;
    const updatedAt = b.readDoubleBE(at); at += 8;
    const valueLen = b.readUInt32BE(at); at += 4;
    if (at + valueLen > b.length) return null;
    const value = b.subarray(at, at + valueLen);
    at += valueLen;
    const hosts: string[] = [];
    if (version !== PAYLOAD_VERSION) {
      const count = b.readUInt16BE(at); at += 2;
      if ((count === 0 && version === PAYLOAD_VERSION_HOSTS) || count > MAX_RECORD_HOSTS) return null;
      for (let k = 0; k < count; k++) {
        const len = b.readUInt16BE(at); at += 2;
        if (len === 0 || at + len > b.length) return null;
        hosts.push(b.toString('utf8', at, at + len)); at += len;
      }
    }
    if (version === PAYLOAD_VERSION_FLAGS) {
      const flags = b.readUInt8(at);
      if ((flags & ~FLAG_TERM) !== 0) return null;
      return { name, source, createdAt, updatedAt, value, hosts, term: (flags & FLAG_TERM) !== 0 };
    }
    return version === PAYLOAD_VERSION ? { name, source, createdAt, updatedAt, value } : { name, source, createdAt, updatedAt, value, hosts };
  } catch {
    return null;
  }
}

const STATE_BYTES = 8 + 8 + 32 + 32;

/** Encodes the sealed state. */
export function encodeState(s: StatePayload): Buffer {
  return new Writer().u64(s.count).u64(s.generation).bytes(s.acc).bytes(s.placeholderKey).done();
}

/** Decodes the sealed state; null when the length is wrong. */
export function decodeState(bytes: Uint8Array): StatePayload | null {
  if (bytes.length !== STATE_BYTES) return null;
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = b.readUInt32BE(0) * 2 ** 32 + b.readUInt32BE(4);
  const generation = b.readUInt32BE(8) * 2 ** 32 + b.readUInt32BE(12);
  return { count, generation, acc: Buffer.from(b.subarray(16, 48)), placeholderKey: Buffer.from(b.subarray(48, 80)) };
}

/** XORs `b` into `a` in place (both 32 bytes). */
export function xorInto(a: Buffer, b: Uint8Array): void {
  for (let i = 0; i < a.length; i++) a[i] = (a[i] as number) ^ (b[i] as number);
}
