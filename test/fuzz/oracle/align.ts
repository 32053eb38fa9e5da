// The byte-identity check shared by both directions. One side holds tokens (placeholders), the other
// holds regions (what each token stands for there: a redacted span of the original request, a restored
// value in the client's response). The check: the text between tokens — every byte that is not a
// secret — is identical and in order on both sides, and each region is accepted by its token (decodes
// to the right value in the right way). A bounded search settles where each region ends.

/** A token on the token side, and what the region standing for it must satisfy. */
export interface AlignToken {
  start: number;
  end: number;
  /** Whether `region` is a correct stand-in for this token. */
  accept(region: string): boolean;
  /** The expected region, tried first (the common case settles without a search). */
  canonical?: string;
}

export type AlignResult = { ok: true } | { ok: false; reason: string; tokenOffset: number; regionOffset: number };

/** Search steps before the check gives up (a failure: the oracle never passes what it cannot prove). */
const MAX_STEPS = 200_000;

/**
 * Checks that `regionSide` equals `tokenSide` with each token replaced by a region it accepts. Tokens
 * are ordered and disjoint. `maxRegion` bounds a region's length.
 */
export function alignRegions(tokenSide: string, regionSide: string, tokens: readonly AlignToken[], maxRegion: number): AlignResult {
  const gapBefore = (i: number): string => tokenSide.slice(i === 0 ? 0 : (tokens[i - 1] as AlignToken).end, i < tokens.length ? (tokens[i] as AlignToken).start : tokenSide.length);
  const first = gapBefore(0);
  if (!regionSide.startsWith(first)) return { ok: false, reason: 'bytes before the first secret differ', tokenOffset: firstDiff(first, regionSide, 0), regionOffset: firstDiff(first, regionSide, 0) };
  if (tokens.length === 0) {
    return regionSide.length === first.length ? { ok: true } : { ok: false, reason: 'extra bytes at the end', tokenOffset: first.length, regionOffset: first.length };
  }
  let best = { i: 0, pos: first.length };
  let steps = 0;
  // Depth-first over region ends; each frame lists the candidates still to try for token i.
  const stack: Array<{ i: number; pos: number; next: () => number }> = [{ i: 0, pos: first.length, next: candidates(0, first.length) }];
  function candidates(i: number, pos: number): () => number {
    const tok = tokens[i] as AlignToken;
    const after = gapBefore(i + 1);
    const last = i === tokens.length - 1;
    const list: number[] = [];
    if (last) {
      const q = regionSide.length - after.length;
      if (q >= pos && regionSide.endsWith(after)) list.push(q);
    } else {
      if (tok.canonical !== undefined && regionSide.startsWith(tok.canonical, pos) && regionSide.startsWith(after, pos + tok.canonical.length)) list.push(pos + tok.canonical.length);
      const limit = Math.min(regionSide.length, pos + maxRegion);
      if (after.length > 0) {
        for (let q = regionSide.indexOf(after, pos); q !== -1 && q <= limit; q = regionSide.indexOf(after, q + 1)) list.push(q);
      } else for (let q = pos; q <= limit; q++) list.push(q);
    }
    let k = 0;
    return () => (k < list.length ? (list[k++] as number) : -1);
  }
  while (stack.length > 0) {
    if (++steps > MAX_STEPS) return { ok: false, reason: 'alignment search exhausted (ambiguous regions)', tokenOffset: (tokens[best.i] as AlignToken).start, regionOffset: best.pos };
    const top = stack[stack.length - 1] as { i: number; pos: number; next: () => number };
    const q = top.next();
    if (q === -1) {
      stack.pop();
      continue;
    }
    const tok = tokens[top.i] as AlignToken;
    if (!tok.accept(regionSide.slice(top.pos, q))) continue;
    const after = gapBefore(top.i + 1);
    const nextPos = q + after.length;
    if (top.i + 1 === tokens.length) return { ok: true };
    if (top.i + 1 > best.i || (top.i + 1 === best.i && nextPos > best.pos)) best = { i: top.i + 1, pos: nextPos };
    stack.push({ i: top.i + 1, pos: nextPos, next: candidates(top.i + 1, nextPos) });
  }
  const tok = tokens[best.i] as AlignToken;
  return { ok: false, reason: `no region stands for secret #${best.i + 1} of ${tokens.length} with the bytes around it unchanged`, tokenOffset: tok.start, regionOffset: best.pos };
}

function firstDiff(a: string, b: string, from: number): number {
  let i = from;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}
