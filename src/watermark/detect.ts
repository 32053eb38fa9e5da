// Reads the in-band mark out of a text: frames found (raw or escaped), the codeword symbols they carry,
// and a blind Reed–Solomon decode when at least 8 distinct symbols survive.

import { parseFrameDigits } from './frame.ts';
import { RS_K, rsDecode, type RsDecoded } from './reed-solomon.ts';
import { findFrames } from './strip.ts';

export interface DetectedFrame {
  /** 1-based line of the frame in the text. */
  line: number;
  index: number;
  value: number;
}

export interface Detection {
  /** Complete frames whose check passed. */
  frames: DetectedFrame[];
  /** Frames that were truncated or failed their check (ignored for decoding). */
  rejected: number;
  /** Observed values per codeword index (usually one; more when copies of different marks mix). */
  symbols: Map<number, Set<number>>;
  /** The blind decode, when ≥ 8 distinct indices were observed and a codeword is within reach. */
  decoded: RsDecoded | undefined;
}

/** Finds and decodes the frames in `text`. */
export function detectMarks(text: string): Detection {
  const frames: DetectedFrame[] = [];
  let rejected = 0;
  let line = 1;
  let scanned = 0;
  for (const f of findFrames(text)) {
    for (let i = text.indexOf('\n', scanned); i >= 0 && i < f.start; i = text.indexOf('\n', i + 1)) line++;
    scanned = f.start;
    const d = f.digits;
    const symbol = d.length === 4 ? parseFrameDigits(d[0]!, d[1]!, d[2]!, d[3]!) : undefined;
    if (symbol === undefined) rejected++;
    else frames.push({ line, ...symbol });
  }
  const symbols = new Map<number, Set<number>>();
  const votes = new Map<number, Map<number, number>>();
  for (const f of frames) {
    let set = symbols.get(f.index);
    if (set === undefined) symbols.set(f.index, (set = new Set()));
    set.add(f.value);
    let v = votes.get(f.index);
    if (v === undefined) votes.set(f.index, (v = new Map()));
    v.set(f.value, (v.get(f.value) ?? 0) + 1);
  }
  // Decode from the most frequent value at each index.
  const majority = new Map<number, number>();
  for (const [index, v] of votes) majority.set(index, [...v].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]![0]);
  const decoded = majority.size >= RS_K ? rsDecode(majority) : undefined;
  return { frames, rejected, symbols, decoded };
}

/** Counts observed indices that agree with / contradict a codeword. */
export function compareSymbols(symbols: ReadonlyMap<number, ReadonlySet<number>>, codeword: Uint8Array): { agree: number; disagree: number } {
  let agree = 0;
  let disagree = 0;
  for (const [index, values] of symbols) {
    if (values.has(codeword[index]!)) agree++;
    else disagree++;
  }
  return { agree, disagree };
}
