// RS(16,8) over GF(2^8) in evaluation form: the 8 mark bytes are the values of a degree-<8 polynomial
// at α^0..α^7 (systematic), the 8 parity symbols its values at α^8..α^15. Any 8 symbols determine it (MDS).

import { gfDiv, gfMul, gfPow } from './gf256.ts';

/** Symbols in a codeword. */
export const RS_N = 16;
/** Message symbols; any RS_K distinct codeword symbols recover the message. */
export const RS_K = 8;

const POINTS = Array.from({ length: RS_N }, (_, i) => gfPow(i));

/** Value at `x` of the polynomial through the given (index, value) points (Lagrange, GF(2^8)). */
function interpolateAt(indices: readonly number[], values: readonly number[], x: number): number {
  let acc = 0;
  for (let j = 0; j < indices.length; j++) {
    const xj = POINTS[indices[j]!]!;
    let num = 1;
    let den = 1;
    for (let m = 0; m < indices.length; m++) {
      if (m === j) continue;
      const xm = POINTS[indices[m]!]!;
      num = gfMul(num, x ^ xm); // subtraction is XOR in characteristic 2
      den = gfMul(den, xj ^ xm);
    }
    acc ^= gfMul(values[j]!, gfDiv(num, den));
  }
  return acc;
}

const MESSAGE_INDICES = Array.from({ length: RS_K }, (_, i) => i);

/** Encodes an 8-byte mark into its 16-symbol codeword (the first 8 symbols are the mark itself). */
export function rsEncode(mark: Uint8Array): Uint8Array {
  if (mark.length !== RS_K) throw new RangeError(`reed-solomon: mark must be ${RS_K} bytes`);
  const out = new Uint8Array(RS_N);
  out.set(mark);
  const values = Array.from(mark);
  for (let i = RS_K; i < RS_N; i++) out[i] = interpolateAt(MESSAGE_INDICES, values, POINTS[i]!);
  return out;
}

/** Recovers the mark from exactly 8 symbols at distinct codeword indices. */
export function rsRecover(indices: readonly number[], values: readonly number[]): Uint8Array {
  if (indices.length !== RS_K || values.length !== RS_K) throw new RangeError(`reed-solomon: need exactly ${RS_K} symbols`);
  const mark = new Uint8Array(RS_K);
  for (let i = 0; i < RS_K; i++) {
    const at = indices.indexOf(i);
    mark[i] = at >= 0 ? values[at]! : interpolateAt(indices, values, POINTS[i]!);
  }
  return mark;
}

export interface RsDecoded {
  mark: Uint8Array;
  /** Distinct indices whose observed symbol agrees with the decoded codeword. */
  agreeing: number;
  /** Distinct indices observed. */
  observed: number;
}

/**
 * Decodes from one observed symbol per distinct index (unique decoding: accepts a codeword only when
 * the disagreeing symbols are within (observed − 8) / 2); undefined when fewer than 8 indices or no
 * codeword is close enough.
 */
export function rsDecode(symbols: ReadonlyMap<number, number>): RsDecoded | undefined {
  const indices = [...symbols.keys()].filter((i) => i >= 0 && i < RS_N).sort((a, b) => a - b);
  const n = indices.length;
  if (n < RS_K) return undefined;
  const values = indices.map((i) => symbols.get(i)!);
  const maxErrors = Math.floor((n - RS_K) / 2);
  const tryCombo = (combo: number[]): RsDecoded | undefined => {
    const at = combo.map((c) => indices[c]!);
    const vals = combo.map((c) => values[c]!);
    let wrong = 0;
    // Early exit: a subset whose polynomial already misses more than maxErrors symbols is not it.
    for (let j = 0; j < n && wrong <= maxErrors; j++) {
      if (interpolateAt(at, vals, POINTS[indices[j]!]!) !== values[j]) wrong++;
    }
    return wrong <= maxErrors ? { mark: rsRecover(at, vals), agreeing: n - wrong, observed: n } : undefined;
  };
  // The common case: no symbol is wrong, so the first 8 already explain the rest.
  const first = tryCombo(MESSAGE_INDICES.slice());
  if (first !== undefined || maxErrors === 0) return first;
  // Otherwise search 8-subsets (at most C(16,8) = 12,870) for a codeword within the decoding radius.
  const combo = MESSAGE_INDICES.slice();
  for (;;) {
    let i = RS_K - 1;
    while (i >= 0 && combo[i] === n - RS_K + i) i--;
    if (i < 0) return undefined;
    combo[i]!++;
    for (let j = i + 1; j < RS_K; j++) combo[j] = combo[j - 1]! + 1;
    const found = tryCombo(combo);
    if (found !== undefined) return found;
  }
}
