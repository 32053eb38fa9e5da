// Dot segments in a request target (RFC 3986 §3.3, §5.2.4): `.` and `..`, however they are written, would
// let a request climb out of its route prefix or its upstream's base path once any server on the way
// normalises the path, so the proxy refuses them instead of forwarding.

import { FictaError } from '../errors.ts';

/** Decoding rounds tried per segment (`%252e` → `%2e` → `.`): servers that decode twice exist. */
const MAX_DECODE_ROUNDS = 3;

/**
 * True when a path segment of `target` (its query excluded) is `.` or `..`: raw, percent-encoded in any
 * case (`%2e`, `%2E%2e`, double-encoded), with `\` or an encoded slash as separator, or with a `;` path
 * parameter after it (`..;`, which some servlet containers normalise as `..`).
 */
export function hasDotSegment(target: string): boolean {
  let path = target;
  const q = path.search(/[?#]/);
  if (q !== -1) path = path.slice(0, q);
  if (!path.includes('.') && !path.includes('%')) return false;
  for (let round = 0; round <= MAX_DECODE_ROUNDS; round++) {
    for (const raw of path.split(/[/\\]|%2f|%5c/i)) {
      const segment = raw.split(';', 1)[0] as string;
      if (segment === '.' || segment === '..') return true;
    }
    const next = decodeOnce(path);
    if (next === path) return false;
    path = next;
  }
  return true; // still changing after every round: refuse rather than guess
}

function decodeOnce(s: string): string {
  return s.replace(/%([0-9a-fA-F]{2})/g, (m, h: string) => {
    const c = Number.parseInt(h, 16);
    // Only ASCII matters for separators and dots; other bytes stay encoded.
    return c < 0x80 ? String.fromCharCode(c) : m;
  });
}

/** The 400 for a target with a dot segment (names nothing from the target: it could hold a value). */
export function dotSegmentError(): FictaError {
  return new FictaError('FICTA_TARGET_DOT_SEGMENT', 'request: the path holds a dot segment (".", "..", "%2e%2e" or similar); refused so a request never leaves its route or its upstream\'s base path; nothing was sent', { status: 400 });
}
