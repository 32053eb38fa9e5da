// How many frames a document can carry within its token budget, from a cheap lower bound on its token
// count (no tokenizer on the request path) and a measured upper bound on what one frame costs.

/** Frames may add at most this share of a document's tokens (issue 6). */
export const TOKEN_BUDGET_RATIO = 0.009;

/**
 * Tokens one frame costs in context, upper bound. Measured with gpt-tokenizer 4.0.0 on 500 random
 * frames after prose, code, heading, CJK and word-final lines: o200k_base mean 8.85 / max 10,
 * cl100k_base mean 10.14 / max 11 (test/unit/watermark-budget.test.ts re-measures it).
 */
export const FRAME_TOKEN_COST = 11;

/** Never more frames than this in one document, however large (16 symbols × 4 copies). */
export const MAX_FRAMES_PER_DOCUMENT = 64;

/**
 * A lower bound on the tokens of `text` under pre-tokenising BPE tokenizers (o200k_base, cl100k_base):
 * every maximal letter run (apostrophes and non-ASCII included), every group of up to three digits,
 * and every ASCII punctuation run that cannot be absorbed as the lead character of a word is at least one
 * pre-token, and every pre-token is at least one token.
 */
export function estimateTokensLowerBound(text: string): number {
  let tokens = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (isLetter(c)) {
      tokens++;
      do i++;
      while (i < n && isLetter(text.charCodeAt(i)));
    } else if (c >= 48 && c <= 57) {
      const from = i;
      do i++;
      while (i < n && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57);
      tokens += Math.ceil((i - from) / 3);
    } else if (c === 32 || c === 9 || c === 10 || c === 13) {
      i++;
    } else {
      const from = i;
      do i++;
      while (i < n && isPunct(text.charCodeAt(i)));
      // A single punctuation character right before a letter joins that word's pre-token.
      if (i - from >= 2 || i >= n || !isLetter(text.charCodeAt(i))) tokens++;
    }
  }
  return tokens;
}

function isLetter(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 39 || c >= 128;
}

function isPunct(c: number): boolean {
  return c < 128 && !isLetter(c) && !(c >= 48 && c <= 57) && c !== 32 && c !== 9 && c !== 10 && c !== 13;
}

/** Frames `text` can carry: floor(0.9 % of its token lower bound / FRAME_TOKEN_COST), capped. */
export function frameBudget(text: string): number {
  const frames = Math.floor((TOKEN_BUDGET_RATIO * estimateTokensLowerBound(text)) / FRAME_TOKEN_COST);
  return Math.min(frames, MAX_FRAMES_PER_DOCUMENT);
}
