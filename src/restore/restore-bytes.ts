// Replaces complete placeholders in bytes with their values, escaped for the string depth they sit at,
// and reports where a trailing partial placeholder starts so a stream can hold it back until the next
// piece. Only the placeholder's bytes change; everything else is passed on as subarrays of the input.

import { PLACEHOLDER_FIRST_BYTE, PLACEHOLDER_LENGTH, probePlaceholder } from '../redact/placeholder.ts';
import type { CountMap } from '../redact/replace.ts';
import { bump } from '../redact/replace.ts';
import type { SecretSet } from '../redact/secret-set.ts';

export interface RestoreStats {
  /** Restores per secret index. */
  restores: CountMap;
  /** Placeholder-like text that was not restored: mangled, unknown, or at an unknown string depth. */
  misses: number;
  /** Gateway: placeholders of values the tenant is not entitled to, left as they are, per secret index. */
  denied: CountMap;
  /** Gateway: whole placeholders that are not the tenant's (another tenant's, forged, stale), also counted in misses. */
  foreign: number;
}

/** Fresh, empty stats. */
export function createRestoreStats(): RestoreStats {
  return { restores: new Map(), misses: 0, denied: new Map(), foreign: 0 };
}

/**
 * Counts a whole placeholder that did not restore: for a gateway tenant, a value it is not entitled to
 * (denied) or one that is not its own (foreign, also a miss); otherwise a miss.
 */
export function countUnrestored(set: SecretSet, id: string, stats: RestoreStats): void {
  const denied = set.deniedForId === undefined ? -1 : set.deniedForId(id);
  if (denied !== -1) {
    bump(stats.denied, denied);
    return;
  }
  stats.misses++;
  if (set.deniedForId !== undefined) stats.foreign++;
}

export interface RestoreResult {
  /** The output pieces, in order (unchanged input is a single piece: `buf` itself). */
  parts: Buffer[];
  /** Offset in `buf` where a partial placeholder begins (held back), or -1. */
  heldFrom: number;
  /** The string depth at `heldFrom` (when held). */
  heldDepth: number;
  changed: boolean;
}

/**
 * Restores every complete placeholder in `buf`. `depthAt(pos)` gives the string depth of the
 * placeholder at `pos` (negative: unknown, then it is not restored and counts as a miss); it is called
 * once per position, in increasing order. When `holdPartial`, a placeholder cut off by the end of
 * `buf` is not emitted.
 */
export function restoreBytes(
  set: SecretSet,
  buf: Buffer,
  depthAt: (pos: number) => number,
  stats: RestoreStats,
  holdPartial: boolean,
): RestoreResult {
  let i = nextTilde(buf, 0);
  if (i === -1) return { parts: [buf], heldFrom: -1, heldDepth: 0, changed: false };
  const parts: Buffer[] = [];
  let pos = 0;
  let heldFrom = -1;
  let heldDepth = 0;
  let changed = false;
  while (i !== -1) {
    const probe = probePlaceholder(buf, i, buf.length);
    if (probe.kind === 'full') {
      const secret = set.secretForId(probe.id);
      // Registered secrets are >= 0, detected ones <= -2, unknown -1 (SecretSet.secretForId).
      const depth = secret !== -1 ? depthAt(i) : -1;
      if (secret === -1) {
        countUnrestored(set, probe.id, stats);
        i = nextTilde(buf, i + 1);
        continue;
      }
      if (depth >= 0) {
        if (i > pos) parts.push(buf.subarray(pos, i));
        parts.push(set.valueBytes(secret, depth));
        bump(stats.restores, secret);
        pos = i + PLACEHOLDER_LENGTH;
        changed = true;
        i = nextTilde(buf, pos);
        continue;
      }
      stats.misses++;
    } else if (probe.kind === 'mangled') {
      stats.misses++;
    } else if (probe.kind === 'partial' && holdPartial) {
      heldFrom = i;
      heldDepth = depthAt(i);
      break;
    }
    i = nextTilde(buf, i + 1);
  }
  const end = heldFrom === -1 ? buf.length : heldFrom;
  if (!changed) return { parts: [end === buf.length ? buf : buf.subarray(0, end)], heldFrom, heldDepth, changed: false };
  if (end > pos) parts.push(buf.subarray(pos, end));
  return { parts, heldFrom, heldDepth, changed };
}

/** Bytes looked at one by one before a search call (a delta's piece is tens of bytes: a call costs more). */
const NEAR = 64;

/** The next `~` in `buf` at or after `from`, or -1. */
function nextTilde(buf: Buffer, from: number): number {
  const stop = Math.min(buf.length, from + NEAR);
  for (let i = from; i < stop; i++) if (buf[i] === PLACEHOLDER_FIRST_BYTE) return i;
  return stop >= buf.length ? -1 : buf.indexOf(PLACEHOLDER_FIRST_BYTE, stop);
}
