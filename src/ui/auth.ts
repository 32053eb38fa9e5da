// Who may see the dashboard: `ficta ui` proves it is this user by a per-proxy key (a 0600 file next to the
// proxy's status entry), gets a one-time login code for it, and the browser that opens the link gets a
// session (an HttpOnly, SameSite=Strict cookie) with a CSRF token for its POSTs. All in memory.

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long a login link stays valid: long enough to open a browser, short enough to be worthless later. */
export const LINK_TTL_MS = 60_000;
/** A session lasts a working day without use; the proxy's restart ends it too. */
export const SESSION_IDLE_MS = 12 * 3600_000;
/** Unused links and sessions kept at most (the oldest go first). */
const MAX_LINKS = 16;
const MAX_SESSIONS = 32;

export interface UiSession {
  /** A short public label for audit lines (a hash prefix of the session secret, never the secret). */
  label: string;
  csrf: string;
  created: number;
  seen: number;
}

export interface DashboardAuth {
  /** The per-proxy key `ficta ui` presents (written to a 0600 file by the CLI, never shown). */
  readonly linkKey: string;
  checkLinkKey(given: string | undefined): boolean;
  /** A new one-time login code. */
  issueCode(): string;
  /** Spends a code: a new session's secret (the cookie value) and the session, or undefined when unknown, used or expired. */
  redeem(code: string | undefined): { secret: string; session: UiSession } | undefined;
  /** The session of a cookie value, if live. */
  session(secret: string | undefined): UiSession | undefined;
  checkCsrf(session: UiSession, given: string | undefined): boolean;
}

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();
/** Constant-time comparison of two strings of any length (their hashes are compared). */
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}
const fresh = (): string => randomBytes(32).toString('base64url');

export function createDashboardAuth(now: () => number = Date.now): DashboardAuth {
  const linkKey = fresh();
  // Keyed by the hash of the code or cookie: a lookup never compares secrets byte by byte.
  const links = new Map<string, number>();
  const sessions = new Map<string, UiSession>();
  const key = (s: string): string => digest(s).toString('hex');

  return {
    linkKey,
    checkLinkKey: (given) => given !== undefined && given !== '' && sameSecret(given, linkKey),
    issueCode() {
      const t = now();
      for (const [k, expires] of links) if (expires <= t) links.delete(k);
      if (links.size >= MAX_LINKS) links.delete(links.keys().next().value as string);
      const code = fresh();
      links.set(key(code), t + LINK_TTL_MS);
      return code;
    },
    redeem(code) {
      if (code === undefined || code === '' || code.length > 100) return undefined;
      const k = key(code);
      const expires = links.get(k);
      if (expires === undefined) return undefined;
      links.delete(k); // single use, valid or expired
      const t = now();
      if (expires <= t) return undefined;
      for (const [sk, s] of sessions) if (s.seen + SESSION_IDLE_MS <= t) sessions.delete(sk);
      if (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.keys().next().value as string);
      const secret = fresh();
      const hashed = key(secret);
      const session: UiSession = { label: hashed.slice(0, 8), csrf: fresh(), created: t, seen: t };
      sessions.set(hashed, session);
      return { secret, session };
    },
    session(secret) {
      if (secret === undefined || secret === '' || secret.length > 100) return undefined;
      const k = key(secret);
      const s = sessions.get(k);
      if (s === undefined) return undefined;
      const t = now();
      if (s.seen + SESSION_IDLE_MS <= t) {
        sessions.delete(k);
        return undefined;
      }
      s.seen = t;
      return s;
    },
    checkCsrf: (session, given) => given !== undefined && given !== '' && sameSecret(given, session.csrf),
  };
}
