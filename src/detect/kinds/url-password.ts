// Passwords in URLs: `scheme://user:password@host` (RFC 3986 userinfo), as in database connection
// strings, registry mirrors and git remotes. Only the password is reported; templates (`${PASSWORD}`,
// `{password}`, `$(DB_PASS)`), stand-ins (`password`, `xxxx`, `YOUR_PASSWORD`), a user repeated as the
// password and ficta's own placeholders are not passwords.

import { charset, looksLikePlaceholder } from '../charset.ts';
import type { Confirm } from '../kind.ts';
import { PLACEHOLDER_ID_LENGTH, PLACEHOLDER_PREFIX } from '../../redact/placeholder.ts';

const SCHEME = charset('A-Za-z0-9+.-');
const MAX_SCHEME = 32;
/** Longest userinfo looked at; an authority is a few dozen bytes. */
const MAX_USERINFO = 256;
const MIN_PASSWORD = 6;
const MAX_PASSWORD = 200;

/** Bytes that end an authority (or make the text no URL at all): `/ ? #`, space, quotes, brackets, backslash. */
const STOP = (() => {
  const t = new Uint8Array(256);
  for (let b = 0; b <= 0x20; b++) t[b] = 1;
  for (const c of '/?#"\'`<>\\{}|^[]()') t[c.charCodeAt(0)] = 1;
  t[0x7f] = 1;
  return t;
})();

const HOST_START = charset('A-Za-z0-9[');

const STAND_INS = ['password', 'passwd', 'your', 'changeme', 'example', 'placeholder', 'replace', 'redacted', 'xxx', '***', '...'];

/** Confirms credentials after a `://` anchor; emits the password. */
export const confirmUrlPassword: Confirm = (buf, anchorStart, anchorEnd, emit) => {
  // The scheme: letters first, then letters, digits, + . -
  let s = anchorStart;
  while (s > 0 && anchorStart - s < MAX_SCHEME && SCHEME[buf[s - 1]!] === 1) s--;
  if (s === anchorStart || !isLetter(buf[s]!)) return;
  if (s > 0 && isAlnum(buf[s - 1]!)) return;

  // The authority up to the first delimiter; userinfo is what precedes its last '@'.
  const limit = Math.min(buf.length, anchorEnd + MAX_USERINFO);
  let at = -1;
  let colon = -1;
  let i = anchorEnd;
  while (i < limit && STOP[buf[i]!] !== 1) {
    if (buf[i] === 0x40) at = i;
    else if (buf[i] === 0x3a && colon === -1 && at === -1) colon = i;
    i++;
  }
  if (at === -1 || colon === -1 || colon > at) return;
  if (at + 1 >= buf.length || HOST_START[buf[at + 1]!] !== 1) return;
  const p0 = colon + 1;
  const len = at - p0;
  if (len < MIN_PASSWORD || len > MAX_PASSWORD) return;
  const user = Buffer.from(buf.subarray(anchorEnd, colon)).toString('utf8');
  const password = Buffer.from(buf.subarray(p0, at)).toString('utf8');
  if (!isPassword(password, user) || looksLikePlaceholder(buf, p0, at)) return;
  emit(p0, at, password);
};

/** True unless the text is a template, a stand-in, the user name again, or one of ficta's placeholders. */
export function isPassword(password: string, user: string): boolean {
  if (password === user || password.includes('${') || password.includes('$(') || password.includes('%s') || password.includes('%(')) return false;
  if (/^\$[A-Za-z_][A-Za-z0-9_]*$/.test(password)) return false;
  if (password.startsWith(PLACEHOLDER_PREFIX) && password.length === PLACEHOLDER_PREFIX.length + PLACEHOLDER_ID_LENGTH) return false;
  const lower = password.toLowerCase();
  if (STAND_INS.some((w) => lower.includes(w))) return false;
  return new Set(password).size >= 4;
}

function isLetter(b: number): boolean {
  return (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a);
}

function isAlnum(b: number): boolean {
  return isLetter(b) || (b >= 0x30 && b <= 0x39);
}
