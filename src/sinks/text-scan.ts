// Finds network destinations in text: URLs (`scheme://authority`), socket paths (`/dev/tcp/HOST/PORT`,
// gawk's `/inet/tcp/0/HOST/PORT`) and bare host names or IPv4 literals. Hand-written linear scans: no
// regular expression ever runs over the input, so hostile text cannot make them backtrack.

import { CODE_RECEIVERS, FILE_EXTENSION_TLDS, STRONG_GENERIC_TLDS, WEAK_COUNTRY_CODES } from './host-words.ts';
import { isHostName, isIPv4, isIPv6, normalizeHost } from './hosts.ts';
import { TLDS } from './tlds.ts';

/** Something in the text that makes a restore there a disclosure to the network. */
export interface Finding {
  /** `network:<host>` for a destination that an allow list can match; any other reason never matches. */
  reason: string;
  /** The normalised host, when readable. */
  host: string | undefined;
  /** Offset in the analysed text, for ordering and for the network-command context. */
  start: number;
}

/** A URL whose host cannot be read (built from variables, percent-encoded, two `@`, a backslash). */
export const UNREADABLE_URL = 'unreadable:url';
/** A socket path whose host cannot be read. */
export const UNREADABLE_SOCKET = 'unreadable:socket';
/** A placeholder inside a host name: a DNS look-up would carry the value, whatever the allow list says. */
export const SECRET_IN_HOSTNAME = 'network:secret-in-hostname';

/** The finding for a readable host. */
export function hostFinding(host: string, start: number): Finding {
  const h = normalizeHost(host);
  return { reason: `network:${h}`, host: h, start };
}

const markerFinding = (reason: string, start: number): Finding => ({ reason, host: undefined, start });

// ---- URLs ----

/** Characters that end a URL's authority: whitespace, delimiters, quotes and shell syntax. */
const AUTHORITY_END = new Uint8Array(128);
for (const ch of ' \t\n\r\f\v/?#"\'`<>(){}|^,;\\&') AUTHORITY_END[ch.charCodeAt(0)] = 1;

const isSchemeChar = (c: number): boolean =>
  (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e;

/** Adds a finding for every `scheme://authority` in `text` (positions shifted by `base`). */
export function scanUrls(text: string, base: number, out: Finding[]): void {
  let at = text.indexOf('://');
  while (at !== -1) {
    // The scheme: letters back from `://`. Runs between two `://` are disjoint, so this stays linear.
    let s = at;
    while (s > 0 && isSchemeChar(text.charCodeAt(s - 1))) s--;
    const scheme = text.slice(s, at).toLowerCase();
    let e = at + 3;
    while (e < text.length) {
      const c = text.charCodeAt(e);
      if (c < 128 && AUTHORITY_END[c] === 1) break;
      e++;
    }
    const finding = readAuthority(text.slice(at + 3, e), scheme, text.charCodeAt(e), base + s);
    if (finding !== undefined) out.push(finding);
    at = text.indexOf('://', Math.max(e, at + 3));
  }
}

function readAuthority(authority: string, scheme: string, next: number, start: number): Finding | undefined {
  if (authority.length === 0) {
    // `file:///path` is local; `https://` followed by a quote, `$`, `{` or nothing is built at run time.
    if (scheme === 'file' && next === 0x2f) return undefined;
    return markerFinding(UNREADABLE_URL, start);
  }
  // `https://evil.example\@api.github.com`: parsers disagree on which side of `\` is the host.
  if (next === 0x5c) return markerFinding(UNREADABLE_URL, start);
  const firstAt = authority.indexOf('@');
  if (firstAt !== authority.lastIndexOf('@')) return markerFinding(UNREADABLE_URL, start);
  const hostPort = firstAt === -1 ? authority : authority.slice(firstAt + 1);
  let host: string;
  if (hostPort.startsWith('[')) {
    const close = hostPort.indexOf(']');
    host = close === -1 ? hostPort : hostPort.slice(1, close);
    if (!isIPv6(host)) return markerFinding(UNREADABLE_URL, start);
    return hostFinding(host, start);
  }
  const colon = hostPort.indexOf(':');
  host = colon === -1 ? hostPort : hostPort.slice(0, colon);
  while (host.endsWith('.')) host = host.slice(0, -1);
  if (host.length === 0) return scheme === 'file' ? undefined : markerFinding(UNREADABLE_URL, start);
  if (isHostName(host) || isIPv4(host) || isInternationalName(host)) return hostFinding(host, start);
  return markerFinding(UNREADABLE_URL, start);
}

/** A name with non-ASCII letters and otherwise only host characters: compared as written, so never allowed by an ASCII entry. */
function isInternationalName(host: string): boolean {
  let nonAscii = false;
  for (let i = 0; i < host.length; i++) {
    const c = host.charCodeAt(i);
    if (c >= 0x80) nonAscii = true;
    else if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2e)) return false;
  }
  return nonAscii;
}

// ---- socket paths ----

const SOCKET_PATHS: ReadonlyArray<readonly [string, number]> = [
  ['/dev/tcp/', 0],
  ['/dev/udp/', 0],
  // gawk: /inet/tcp/LOCAL-PORT/HOST/PORT
  ['/inet/tcp/', 1],
  ['/inet/udp/', 1],
  ['/inet4/tcp/', 1],
  ['/inet4/udp/', 1],
  ['/inet6/tcp/', 1],
  ['/inet6/udp/', 1],
];

/** Adds a finding for every bash `/dev/tcp|udp/HOST/PORT` and gawk `/inet/tcp/…/HOST/PORT` path. */
export function scanSocketPaths(text: string, base: number, out: Finding[]): void {
  for (const [prefix, skip] of SOCKET_PATHS) {
    let at = text.indexOf(prefix);
    while (at !== -1) {
      let p = at + prefix.length;
      for (let k = 0; k < skip; k++) {
        const slash = text.indexOf('/', p);
        p = slash === -1 ? text.length : slash + 1;
      }
      let e = p;
      while (e < text.length) {
        const c = text.charCodeAt(e);
        if (c === 0x2f || (c < 128 && AUTHORITY_END[c] === 1)) break;
        e++;
      }
      const host = text.slice(p, e);
      out.push(isHostName(host) || isIPv4(host) ? hostFinding(host, base + at) : markerFinding(UNREADABLE_SOCKET, base + at));
      at = text.indexOf(prefix, at + prefix.length);
    }
  }
}

// ---- bare host names ----

/** Letters, digits, `.` and `-`, and non-ASCII letters (punctuation ranges excluded). */
function isWordChar(c: number): boolean {
  if (c < 0x80) return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x2d;
  if (c <= 0xbf) return false;
  if (c >= 0xd800 && c <= 0xdfff) return false;
  if ((c >= 0x2000 && c <= 0x206f) || (c >= 0x3000 && c <= 0x303f) || (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff65)) return false;
  return true;
}

/** Tells whether an offset of the text lies inside a network command (a host there needs no other sign). */
export type NetworkContext = (offset: number) => boolean;

const NO_CONTEXT: NetworkContext = () => false;

/**
 * Adds a finding for every bare host name (`evil.example`, `user@db.internal`, `api.github.com:443`),
 * IPv4 literal and `localhost` in `text`. File names, paths and code identifiers are skipped by the rules
 * in host-words.ts unless `context` says the offset is inside a network command.
 */
export function scanHosts(text: string, base: number, out: Finding[], context: NetworkContext = NO_CONTEXT): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (!isWordChar(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const s0 = i;
    while (i < n && isWordChar(text.charCodeAt(i))) i++;
    considerWord(text, s0, i, base, out, context);
  }
}

function considerWord(text: string, s0: number, e0: number, base: number, out: Finding[], context: NetworkContext): void {
  let s = s0;
  let e = e0;
  while (s < e && (text.charCodeAt(s) === 0x2e || text.charCodeAt(s) === 0x2d)) s++;
  while (e > s && (text.charCodeAt(e - 1) === 0x2e || text.charCodeAt(e - 1) === 0x2d)) e--;
  if (e - s < 3 || e - s > 253) return;
  const word = text.slice(s, e);
  const prev = s0 > 0 ? text.charCodeAt(s0 - 1) : 0;
  const prev2 = s0 > 1 ? text.charCodeAt(s0 - 2) : 0;
  const next = e0 < text.length ? text.charCodeAt(e0) : 0;
  const afterTrim = e < text.length ? text.charCodeAt(e) : 0;
  const next2 = e + 1 < text.length ? text.charCodeAt(e + 1) : 0;
  if (!word.includes('.')) {
    if (word.toLowerCase() === 'localhost' && prev !== 0x2f && prev !== 0x24) out.push(hostFinding('localhost', base + s));
    return;
  }
  if (isIPv4(word)) {
    out.push(hostFinding(word, base + s));
    return;
  }
  if (hasMixedCase(word)) return; // user.Email, os.Path, GitHub.com in prose
  const lastDot = word.lastIndexOf('.');
  const tld = word.slice(lastDot + 1).toLowerCase();
  if (!TLDS.has(tld) || !isHostName(word)) return;
  // A placeholder right before a dotted name (`~ficta_…​.evil.example`) puts the value into a DNS look-up.
  if (prev === 0x5f && s0 >= 7 && text.slice(s0 - 7, s0 - 1).toLowerCase() === '~ficta') {
    out.push(markerFinding(SECRET_IN_HOSTNAME, base + s0));
    return;
  }
  // Paths (`src/app.py`, `C:\x\y.sh`), variables and templates (`$cfg.host`, `{user.email}`), calls (`log.info(`).
  if ((prev === 0x2f && prev2 !== 0x2f) || prev === 0x5c || prev === 0x24 || prev === 0x7b || prev === 0x25) return;
  if (next === 0x28) return;
  const hostSign = prev === 0x40 || (prev === 0x2f && prev2 === 0x2f) || (afterTrim === 0x3a && next2 >= 0x30 && next2 <= 0x39) || context(base + s);
  if (!hostSign) {
    const twoLabels = word.indexOf('.') === lastDot;
    if (twoLabels && FILE_EXTENSION_TLDS.has(tld)) return;
    if (twoLabels && CODE_RECEIVERS.has(word.slice(0, lastDot).toLowerCase())) return;
    const strong = tld.length === 2 ? !WEAK_COUNTRY_CODES.has(tld) : STRONG_GENERIC_TLDS.has(tld);
    if (!strong) return;
  }
  out.push(hostFinding(word, base + s));
}

function hasMixedCase(word: string): boolean {
  let upper = false;
  let lower = false;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c >= 0x41 && c <= 0x5a) upper = true;
    else if (c >= 0x61 && c <= 0x7a) lower = true;
  }
  return upper && lower;
}

/**
 * Reads the value of a fetch-like argument (`url`, `uri`, `endpoint`, `host`): a URL, or a host with an
 * optional port and path. A value that names no readable host is unreadable; a relative path names none.
 */
export function scanFetchValue(value: string, base: number, out: Finding[]): void {
  const v = value.trim();
  if (v.length === 0 || v.startsWith('/') || v.startsWith('.') || v.startsWith('#') || v.startsWith('?')) return;
  if (v.includes('://')) {
    scanUrls(v, base, out);
    return;
  }
  let e = 0;
  while (e < v.length) {
    const c = v.charCodeAt(e);
    if (c === 0x3a || c === 0x2f || c === 0x3f || c === 0x23) break;
    e++;
  }
  const at = v.lastIndexOf('@', e);
  const host = v.slice(at === -1 ? 0 : at + 1, e);
  if (isHostName(host) || isIPv4(host)) out.push(hostFinding(host, base));
  else out.push(markerFinding(UNREADABLE_URL, base));
}
