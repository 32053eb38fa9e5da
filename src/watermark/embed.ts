// Plans and applies the in-band mark for one document: which markable line ends carry which codeword
// symbols, chosen deterministically from a per-(session, document) seed so prompt caches stay stable.

import { formatFrame } from './frame.ts';
import { findMarkableLineEnds } from './placement.ts';
import { RS_N } from './reed-solomon.ts';
import { findFrames } from './strip.ts';
import { frameBudget } from './token-budget.ts';

export interface PlannedFrame {
  /** UTF-16 offset in the document where the frame goes. */
  offset: number;
  /** Ordinal of the `\n` that ends the line (for splicing into JSON-escaped text). */
  newlineOrdinal: number;
  /** Codeword index carried. */
  index: number;
  frame: string;
}

export interface EmbedPlan {
  frames: PlannedFrame[];
  /** Why no frame was planned, when none was. */
  reason?: 'already-marked' | 'no-budget' | 'no-markable-line';
}

/**
 * Plans frames for `text` carrying `codeword` (16 symbols). `seed` (≥ 4 bytes, keyed per session and
 * document) picks the first symbol index and the offset of the evenly spread line choice.
 */
export function planEmbedding(text: string, codeword: Uint8Array, seed: Uint8Array): EmbedPlan {
  if (text.includes('\u2060') && findFrames(text).length > 0) return { frames: [], reason: 'already-marked' };
  const budget = frameBudget(text);
  if (budget === 0) return { frames: [], reason: 'no-budget' };
  const { offsets, ordinals } = findMarkableLineEnds(text);
  if (offsets.length === 0) return { frames: [], reason: 'no-markable-line' };
  const n = Math.min(budget, offsets.length);
  const firstIndex = seed[0]! & (RS_N - 1);
  // A fraction in [0, 1) shifts the evenly spaced choice so different documents use different lines.
  const shift = ((seed[1]! << 16) | (seed[2]! << 8) | seed[3]!) / 0x1000000;
  const frames: PlannedFrame[] = [];
  for (let j = 0; j < n; j++) {
    const at = Math.floor(((j + shift) * offsets.length) / n);
    const index = (firstIndex + j) % RS_N;
    frames.push({ offset: offsets[at]!, newlineOrdinal: ordinals[at]!, index, frame: formatFrame({ index, value: codeword[index]! }) });
  }
  return { frames };
}

/** Inserts the planned frames into `text`. */
export function applyPlan(text: string, plan: EmbedPlan): string {
  if (plan.frames.length === 0) return text;
  let out = '';
  let at = 0;
  for (const f of plan.frames) {
    out += text.slice(at, f.offset) + f.frame;
    at = f.offset;
  }
  return out + text.slice(at);
}
