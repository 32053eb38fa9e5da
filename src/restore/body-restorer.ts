// Streaming restore for JSON and text response bodies: chunks without a placeholder byte pass through
// as they are; a placeholder split across chunks is held back (at most one placeholder's length) and
// restored once whole. In JSON, each value is escaped for the string depth it lands in, found by
// looking back from the placeholder over a bounded window of what came before.

import { PLACEHOLDER_FIRST_BYTE } from '../redact/placeholder.ts';
import type { SecretSet } from '../redact/secret-set.ts';
import { jsonDepthAt } from './context.ts';
import { restoreBytes, type RestoreStats } from './restore-bytes.ts';

/** Bytes of earlier output kept to find the string a placeholder sits in. Tool-call argument strings
 * (the case that needs depth 2) are far smaller; a longer string is prose, where depth 1 is right. */
export const CONTEXT_WINDOW_BYTES = 1024 * 1024;

export interface ChunkTransform {
  /** Transforms one chunk; returns the pieces to send now (possibly none). */
  push(chunk: Buffer): Buffer[];
  /** Flushes whatever is held at end of stream. */
  end(): Buffer[];
}

/** A restorer for a JSON (`json`) or plain-text (`text`) body. */
export function createBodyRestorer(set: SecretSet, mode: 'json' | 'text', stats: RestoreStats): ChunkTransform {
  let carry: Buffer | undefined;
  const history: Buffer[] = [];
  let historyBytes = 0;

  const remember = (b: Buffer): void => {
    if (mode !== 'json' || b.length === 0) return;
    history.push(b);
    historyBytes += b.length;
    while (historyBytes - (history[0] as Buffer).length >= CONTEXT_WINDOW_BYTES) historyBytes -= (history.shift() as Buffer).length;
  };

  const process = (data: Buffer, final: boolean): Buffer[] => {
    if (data.indexOf(PLACEHOLDER_FIRST_BYTE) === -1) {
      remember(data);
      return [data];
    }
    let combined: Buffer | undefined;
    const depthAt = (pos: number): number => {
      if (mode === 'text') return 0;
      if (history.length === 0) return jsonDepthAt(data, pos);
      combined ??= Buffer.concat([...history, data]);
      return jsonDepthAt(combined, historyBytes + pos);
    };
    const r = restoreBytes(set, data, depthAt, stats, !final);
    const end = r.heldFrom === -1 ? data.length : r.heldFrom;
    remember(data.subarray(0, end));
    carry = r.heldFrom === -1 ? undefined : data.subarray(r.heldFrom);
    return r.parts;
  };

  return {
    push(chunk) {
      const data = carry === undefined ? chunk : Buffer.concat([carry, chunk]);
      carry = undefined;
      return process(data, false);
    },
    end() {
      if (carry === undefined) return [];
      const data = carry;
      carry = undefined;
      return process(data, true);
    },
  };
}
