// What restore makes of one event's data once it is read: the data as a JSON object (for the adapter's
// declarations), and the edits that restore the whole placeholders a scan found in it.

import { PLACEHOLDER_LENGTH, probePlaceholder } from '../redact/placeholder.ts';
import { bump } from '../redact/replace.ts';
import type { SecretSet } from '../redact/secret-set.ts';
import type { Edit, Framing } from './framing.ts';
import { countUnrestored, type RestoreStats } from './restore-bytes.ts';

/** The data as a JSON object, or undefined (anything else is text). */
export function parseObject(text: string): Record<string, unknown> | undefined {
  // Only objects carry fields: anything else is text, without asking JSON.parse to fail on it.
  let i = 0;
  while (i < text.length && (text.charCodeAt(i) === 0x20 || text.charCodeAt(i) === 0x0a || text.charCodeAt(i) === 0x0d || text.charCodeAt(i) === 0x09)) i++;
  if (text.charCodeAt(i) !== 0x7b) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/**
 * Edits restoring each whole placeholder at `tildes` (depths from the scan; negative: unknown, not
 * restored). A raw value the framing cannot carry exactly stays a placeholder too (a miss).
 */
export function placeholderEdits(set: SecretSet, framing: Pick<Framing, 'carries'>, data: Buffer, tildes: readonly number[], depths: readonly number[], stats: RestoreStats): Edit[] {
  const edits: Edit[] = [];
  let after = 0;
  for (let k = 0; k < tildes.length; k++) {
    const i = tildes[k] as number;
    if (i < after) continue;
    const probe = probePlaceholder(data, i, data.length);
    if (probe.kind === 'mangled') stats.misses++;
    if (probe.kind !== 'full') continue;
    const secret = set.secretForId(probe.id);
    const depth = depths[k] as number;
    // Registered secrets are >= 0, detected ones <= -2, unknown -1 (SecretSet.secretForId).
    if (secret === -1) {
      countUnrestored(set, probe.id, stats);
      continue;
    }
    if (depth < 0) {
      stats.misses++;
      continue;
    }
    const value = set.valueBytes(secret, depth);
    if (depth === 0 && !framing.carries(value)) {
      stats.misses++;
      continue;
    }
    edits.push({ start: i, end: i + PLACEHOLDER_LENGTH, bytes: value });
    bump(stats.restores, secret);
    after = i + PLACEHOLDER_LENGTH;
  }
  return edits;
}
