// Email addresses (opt-in PII) in the shape RFC 5321 gives a mailbox: a dot-string local part (at most
// 64 characters) `@` a domain of dot-separated labels (letters, digits, inner hyphens; at most 253
// characters) whose last label is a real top-level domain. Left alone: `git@github.com:org/repo` (an scp
// path, not a mailbox), URL user names (`//user@host`), and what `detect.allow` names as `local@` or
// `@domain` (a domain covers its subdomains).

import { TLDS } from '../../sinks/tlds.ts';
import { pastEscape } from '../escape-edge.ts';
import type { Kind } from '../kind.ts';

/**
 * atext of RFC 5321 and `.`, without the characters that delimit an address in URLs, code and prose
 * (`/ = ? ' \` { } |`), where reading them would take the text around it for the local part.
 */
const LOCAL = (() => {
  const t = new Uint8Array(256);
  for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.!#$%&*+-^_~') t[c.charCodeAt(0)] = 1;
  return t;
})();

const isAlnum = (b: number | undefined): boolean => b !== undefined && ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a));
const lowerText = (buf: Uint8Array, s: number, e: number): string => Buffer.from(buf.subarray(s, e)).toString('latin1').toLowerCase();

/** Local parts and domains left alone (`noreply@`, `@example.com`), lower case. */
export interface EmailAllow {
  locals: ReadonlySet<string>;
  domains: readonly string[];
}

/** Splits `detect.allow` entries into email local parts and domains. */
export function emailAllow(allow: readonly string[]): EmailAllow {
  const locals = new Set<string>();
  const domains: string[] = [];
  for (const a of allow) {
    if (a.length > 1 && a.endsWith('@') && !a.slice(0, -1).includes('@')) locals.add(a.slice(0, -1).toLowerCase());
    else if (a.length > 1 && a.startsWith('@') && !a.slice(1).includes('@')) domains.push(a.slice(1).toLowerCase());
  }
  return { locals, domains };
}

/** Finds the address around the `@` at `at`: [start, end), or undefined. */
export function matchEmail(buf: Uint8Array, at: number, allow: EmailAllow): { start: number; end: number } | undefined {
  // Local part, read backwards: no leading, trailing or doubled dot.
  let s = at;
  while (s > 0 && at - s < 65 && LOCAL[buf[s - 1]!] === 1) s--;
  if (s > 0 && LOCAL[buf[s - 1]!] === 1) return undefined;
  // `\njohn@…` in a JSON string: the `n` belongs to the escape.
  s = pastEscape(buf, s);
  while (s < at && buf[s] === 0x2e) s++;
  if (s === at || at - s > 64 || buf[at - 1] === 0x2e) return undefined;
  for (let i = s + 1; i < at; i++) if (buf[i] === 0x2e && buf[i - 1] === 0x2e) return undefined;
  // A URL's user name (`https://user@host`), not a mailbox.
  if (s > 0 && buf[s - 1] === 0x2f) return undefined;
  // Domain: labels of letters, digits and inner hyphens, at least two, the last a known TLD.
  let e = at + 1;
  let labelStart = e;
  let labels = 0;
  let lastLabel = e;
  for (;;) {
    while (e < buf.length && (isAlnum(buf[e]) || buf[e] === 0x2d) && e - labelStart < 64) e++;
    const len = e - labelStart;
    if (len === 0 || len > 63 || buf[labelStart] === 0x2d || buf[e - 1] === 0x2d) return undefined;
    labels++;
    lastLabel = labelStart;
    if (buf[e] === 0x2e && isAlnum(buf[e + 1])) {
      e++;
      labelStart = e;
      continue;
    }
    break;
  }
  if (labels < 2 || e - at - 1 > 253) return undefined;
  const after = e < buf.length ? buf[e] : undefined;
  // `user@host:path` is an scp or git remote; a word byte after means the domain runs on (`a@b.c_d`).
  if (after === 0x3a || after === 0x5f || after === 0x40) return undefined;
  if (!TLDS.has(lowerText(buf, lastLabel, e))) return undefined;
  if (allow.locals.size > 0 && allow.locals.has(lowerText(buf, s, at))) return undefined;
  if (allow.domains.length > 0) {
    const domain = lowerText(buf, at + 1, e);
    if (allow.domains.some((d) => domain === d || domain.endsWith(`.${d}`))) return undefined;
  }
  return { start: s, end: e };
}

const ANCHORS = (() => {
  const out: string[] = [];
  for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789') out.push(`@${c}`);
  return out;
})();

/** The email kind, leaving alone what `allow` names. */
export function emailKind(allow: readonly string[]): Kind {
  const a = emailAllow(allow);
  return {
    name: 'email',
    title: 'Email address (PII, opt-in: detect.pii)',
    anchors: ANCHORS,
    reads: 'A-Za-z0-9.!#$%&*+^_~@:/-',
    escapable: false,
    checksum: false,
    source: 'https://www.rfc-editor.org/rfc/rfc5321#section-4.1.2 (Mailbox, Local-part, Domain)',
    confirm(buf, anchorStart, _anchorEnd, emit) {
      const m = matchEmail(buf, anchorStart, a);
      if (m !== undefined) emit(m.start, m.end);
    },
  };
}
