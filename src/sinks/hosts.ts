// Host names as the restore allow lists compare them: normalising a destination, parsing an allow-list
// entry (`api.github.com`, `*.example.com`, an IP literal), and matching a destination against a list.

import { FictaError } from '../errors.ts';
import { err, ok, type Result } from '../util/result.ts';

/** Longest host name DNS allows (RFC 1035 §2.3.4), also the longest allow-list entry. */
const MAX_HOST_LENGTH = 253;

/** Lowercase, without a trailing dot, IPv6 without brackets: the form destinations are compared in. */
export function normalizeHost(host: string): string {
  let h = host.toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  while (h.endsWith('.')) h = h.slice(0, -1);
  return h;
}

/** True for a dotted-quad IPv4 literal with every part 0–255. */
export function isIPv4(s: string): boolean {
  const parts = s.split('.');
  if (parts.length !== 4) return false;
  for (const p of parts) {
    if (p.length === 0 || p.length > 3) return false;
    for (let i = 0; i < p.length; i++) {
      const c = p.charCodeAt(i);
      if (c < 0x30 || c > 0x39) return false;
    }
    if (Number(p) > 255) return false;
  }
  return true;
}

/** True for an IPv6 literal shape: hex groups and colons (at least two), optionally an IPv4 tail. */
export function isIPv6(s: string): boolean {
  if (s.length < 2 || s.length > 45) return false;
  let colons = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x3a) colons++;
    else if (!isHex(c) && c !== 0x2e) return false;
  }
  return colons >= 2 && (s.includes('::') || colons === 7 || (colons === 6 && s.includes('.')));
}

/** True for a DNS name: labels of letters, digits, `-` and `_`, none empty, none starting or ending in `-`. */
export function isHostName(s: string): boolean {
  if (s.length === 0 || s.length > MAX_HOST_LENGTH) return false;
  let labelStart = 0;
  for (let i = 0; i <= s.length; i++) {
    const c = i === s.length ? 0x2e : s.charCodeAt(i);
    if (c === 0x2e) {
      const len = i - labelStart;
      if (len === 0 || len > 63) return false;
      if (s.charCodeAt(labelStart) === 0x2d || s.charCodeAt(i - 1) === 0x2d) return false;
      labelStart = i + 1;
      continue;
    }
    const ok = (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x5f;
    if (!ok) return false;
  }
  return true;
}

/**
 * Parses an allow-list entry (`--allow-host`, `restore.allowHosts`, a secret's hosts): a host name, `*.`
 * followed by one (its subdomains, not the name itself), or an IP literal. URLs, ports and paths are
 * refused with a message saying what to give instead.
 */
export function parseHostPattern(entry: string): Result<string> {
  const raw = entry.trim();
  const fail = (what: string): Result<string> => err(new FictaError('FICTA_HOST_INVALID', `hosts: "${raw.slice(0, 80)}" ${what}`));
  if (raw.length === 0) return fail('is empty');
  if (raw.includes('://')) return fail('is a URL: give only its host, e.g. api.github.com');
  if (raw.startsWith('[') || isIPv6(raw)) {
    const h = normalizeHost(raw);
    return isIPv6(h) ? ok(h) : fail('is not an IPv6 address');
  }
  if (/[/:@?#\s]/.test(raw)) return fail('is not a host name (no port, path or user: e.g. api.github.com)');
  const wildcard = raw.startsWith('*.');
  const name = normalizeHost(wildcard ? raw.slice(2) : raw);
  if (name.includes('*')) return fail('may use * only as a leading "*." (subdomains)');
  if (!isHostName(name)) return fail('is not a host name');
  if (wildcard && isIPv4(name)) return fail('is an IP address: "*." applies to names only');
  return ok(wildcard ? `*.${name}` : name);
}

/** Decides whether a destination host is on an allow list. */
export interface HostMatcher {
  allows(host: string): boolean;
  readonly size: number;
}

/** A matcher over normalised patterns (from parseHostPattern): exact names and `*.` suffixes. */
export function createHostMatcher(patterns: Iterable<string>): HostMatcher {
  const exact = new Set<string>();
  const suffixes = new Set<string>();
  for (const p of patterns) {
    if (p.startsWith('*.')) suffixes.add(p.slice(2));
    else exact.add(p);
  }
  return {
    size: exact.size + suffixes.size,
    allows(host) {
      const h = normalizeHost(host);
      if (exact.has(h)) return true;
      if (suffixes.size === 0) return false;
      // Walk the parent names: a.b.example.com → b.example.com → example.com → com (labels, not bytes).
      let dot = h.indexOf('.');
      while (dot !== -1) {
        if (suffixes.has(h.slice(dot + 1))) return true;
        dot = h.indexOf('.', dot + 1);
      }
      return false;
    },
  };
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}
