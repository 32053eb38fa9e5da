// The gateway's token file: one JSON document listing each tenant (name, groups, created, revoked) with
// the SHA-256 of its token and the token's public id, never the token. Parsing, minting and the edits
// `ficta gateway token add|revoke` make (written whole, atomically, 0600).

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { FictaError } from '../errors.ts';
import { writeAtomic } from '../util/atomic-file.ts';
import { err, ok, type Result } from '../util/result.ts';

export const TOKEN_FILE_VERSION = 1;

/**
 * A token is `fgt_` + an 8-character public id (locates the entry, as a key id does) + 32 characters
 * (192 random bits) of secret, base64url: safe in a URL path segment and in a header.
 */
const TOKEN = /^fgt_([A-Za-z0-9_-]{8})([A-Za-z0-9_-]{32})$/;
export const NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
export const GROUP = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export interface TokenEntry {
  name: string;
  groups: string[];
  /** The token's public id (its first 8 characters after `fgt_`). */
  id: string;
  /** Hex SHA-256 of the whole token. */
  sha256: string;
  /** ISO time. */
  created: string;
  /** ISO time of the revocation; a revoked entry never authenticates. */
  revoked?: string;
}

export interface TokenFile {
  version: number;
  tokens: TokenEntry[];
}

/** An empty token file's text. */
export function emptyTokenFile(): string {
  return formatTokenFile({ version: TOKEN_FILE_VERSION, tokens: [] });
}

export function formatTokenFile(file: TokenFile): string {
  return `${JSON.stringify(file, null, 2)}\n`;
}

/** The public id of a token, or undefined when it does not have a token's shape. */
export function tokenId(token: string): string | undefined {
  return TOKEN.exec(token)?.[1];
}

/** The hex SHA-256 a token is stored as. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Whether `token` is the one an entry was minted for: SHA-256 digests compared in constant time. */
export function tokenMatches(entry: TokenEntry, token: string): boolean {
  const given = createHash('sha256').update(token, 'utf8').digest();
  const stored = Buffer.from(entry.sha256, 'hex');
  return stored.length === given.length && timingSafeEqual(given, stored);
}

/** A new token and the entry that stores its hash. */
export function mintToken(name: string, groups: readonly string[], now = new Date()): { token: string; entry: TokenEntry } {
  const id = randomBytes(6).toString('base64url');
  const token = `fgt_${id}${randomBytes(24).toString('base64url')}`;
  return { token, entry: { name, groups: [...new Set(groups)].sort(), id, sha256: hashToken(token), created: now.toISOString() } };
}

/** Parses and checks a token file's text; errors name the file and the entry, never a hash. */
export function parseTokenFile(text: string, path: string): Result<TokenFile> {
  const bad = (what: string): Result<TokenFile> => err(new FictaError('FICTA_TOKENS_INVALID', `tokens: ${path}: ${what}`));
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return bad('not valid JSON');
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return bad('top level must be an object');
  const { version, tokens } = doc as { version?: unknown; tokens?: unknown };
  if (version !== TOKEN_FILE_VERSION) return bad(`version must be ${TOKEN_FILE_VERSION}`);
  if (!Array.isArray(tokens)) return bad('tokens must be a list');
  const out: TokenEntry[] = [];
  const activeNames = new Set<string>();
  for (const [i, raw] of tokens.entries()) {
    const e = raw as Partial<Record<keyof TokenEntry, unknown>>;
    const where = `tokens[${i}]`;
    if (typeof e !== 'object' || e === null) return bad(`${where} must be an object`);
    const known = new Set(['name', 'groups', 'id', 'sha256', 'created', 'revoked']);
    const unknown = Object.keys(e).find((k) => !known.has(k));
    if (unknown !== undefined) return bad(`${where}: unknown key ${JSON.stringify(unknown).slice(0, 40)}`);
    if (typeof e.name !== 'string' || !NAME.test(e.name)) return bad(`${where}.name must be 1 to 64 characters of A-Z a-z 0-9 . _ @ -`);
    if (!Array.isArray(e.groups) || !e.groups.every((g) => typeof g === 'string' && GROUP.test(g))) return bad(`${where}.groups (${e.name}) must be a list of group names`);
    if (typeof e.id !== 'string' || !/^[A-Za-z0-9_-]{8}$/.test(e.id)) return bad(`${where}.id (${e.name}) must be 8 characters of A-Z a-z 0-9 _ -`);
    if (typeof e.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(e.sha256)) return bad(`${where}.sha256 (${e.name}) must be 64 hex characters`);
    if (typeof e.created !== 'string' || Number.isNaN(Date.parse(e.created))) return bad(`${where}.created (${e.name}) must be an ISO time`);
    if (e.revoked !== undefined && (typeof e.revoked !== 'string' || Number.isNaN(Date.parse(e.revoked)))) return bad(`${where}.revoked (${e.name}) must be an ISO time`);
    if (e.revoked === undefined) {
      if (activeNames.has(e.name)) return bad(`${where}: ${e.name} has two tokens that are not revoked`);
      activeNames.add(e.name);
    }
    out.push({ name: e.name, groups: e.groups as string[], id: e.id, sha256: e.sha256, created: e.created, ...(e.revoked === undefined ? {} : { revoked: e.revoked }) });
  }
  return ok({ version, tokens: out });
}

/** Reads and parses the token file. */
export function readTokenFile(path: string): Result<TokenFile> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    return err(new FictaError('FICTA_TOKENS_UNREADABLE', `tokens: cannot read ${path}: ${(cause as NodeJS.ErrnoException).code ?? 'error'}`, { cause }));
  }
  return parseTokenFile(text, path);
}

/** Adds a tenant's token (refused while the name has one that is not revoked); returns the token, shown once. */
export function addToken(path: string, name: string, groups: readonly string[]): Result<{ token: string; entry: TokenEntry }> {
  if (!NAME.test(name)) return err(new FictaError('FICTA_USAGE', 'tokens: NAME must be 1 to 64 characters of A-Z a-z 0-9 . _ @ -'));
  const badGroup = groups.find((g) => !GROUP.test(g));
  if (badGroup !== undefined) return err(new FictaError('FICTA_USAGE', 'tokens: a group must be 1 to 64 characters of A-Z a-z 0-9 . _ -'));
  const file = readTokenFile(path);
  if (!file.ok) return file;
  if (file.value.tokens.some((t) => t.name === name && t.revoked === undefined)) {
    return err(new FictaError('FICTA_TOKENS_EXISTS', `tokens: ${name} already has a token; revoke it first (ficta gateway token revoke ${name})`));
  }
  const minted = mintToken(name, groups);
  file.value.tokens.push(minted.entry);
  writeAtomic(path, formatTokenFile(file.value));
  return ok(minted);
}

/** Marks a tenant's token revoked (kept in the file, so `token list` still shows who it was). */
export function revokeToken(path: string, name: string, now = new Date()): Result<TokenEntry> {
  const file = readTokenFile(path);
  if (!file.ok) return file;
  const entry = file.value.tokens.find((t) => t.name === name && t.revoked === undefined);
  if (entry === undefined) return err(new FictaError('FICTA_TOKENS_NOT_FOUND', `tokens: no token of ${NAME.test(name) ? name : 'that name'} to revoke`));
  entry.revoked = now.toISOString();
  writeAtomic(path, formatTokenFile(file.value));
  return ok(entry);
}
