// Access control: a restore is a disclosure (anyone who can send a request through the proxy can ask a
// model to echo a placeholder), so a proxy can require a token as the first path segments, `/t/<token>/…`.
// Clients carry it without any change because it is part of the base URL they are given.

import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import { isIP } from 'node:net';

export const TOKEN_SEGMENT = '/t/';

/** A fresh random token (192 bits, base64url). */
export function generateToken(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * Checks and strips `/t/<token>` from a request target. With no token configured every target passes
 * unchanged. Comparison is constant-time (hashes of equal length).
 */
export function checkToken(target: string, token: string | undefined): { ok: true; target: string } | { ok: false } {
  if (token === undefined) return { ok: true, target };
  if (!target.startsWith(TOKEN_SEGMENT)) return { ok: false };
  const rest = target.slice(TOKEN_SEGMENT.length);
  const end = rest.search(/[/?]/);
  const given = end === -1 ? rest : rest.slice(0, end);
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(token).digest();
  if (!timingSafeEqual(a, b)) return { ok: false };
  const remainder = end === -1 ? '/' : rest.slice(end);
  return { ok: true, target: remainder.startsWith('?') ? `/${remainder}` : remainder };
}

/** True for addresses only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (h.startsWith('::ffff:')) return h.slice(7).startsWith('127.');
  return false;
}

export interface BaseUrls {
  /** Root including the token path: use as ANTHROPIC_BASE_URL for the unprefixed routes. */
  root: string;
  anthropic: string;
  openai: string;
  /** GOOGLE_GEMINI_BASE_URL (Gemini CLI, @google/genai). */
  gemini: string;
}

/** The base URLs clients should use for a proxy at `url` (http://H:P) with an optional token. */
export function baseUrls(url: string, token: string | undefined): BaseUrls {
  const root = token === undefined ? url : `${url}${TOKEN_SEGMENT}${token}`;
  return { root, anthropic: `${root}/anthropic`, openai: `${root}/openai/v1`, gemini: `${root}/gemini` };
}

/** Characters of a token kept when it is shown masked: enough to tell two proxies apart, far too few to use. */
const SHOWN_TOKEN_CHARS = 4;

/** A URL with its `/t/<token>` segment masked (`/t/jULq…`), for logs, status and CI output. */
export function maskToken(url: string): string {
  return url.replace(/\/t\/([A-Za-z0-9_-]+)/g, (_m, token: string) => `${TOKEN_SEGMENT}${token.slice(0, SHOWN_TOKEN_CHARS)}…`);
}
