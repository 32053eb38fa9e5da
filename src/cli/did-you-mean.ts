// "Did you mean …": the closest known word to a mistyped command, subcommand, option or choice, and
// the check that decides whether a mistyped word may be shown back to the user at all.

/** Words longer than this are not compared (a pasted value is not a typo of a command name). */
const MAX_WORD = 40;

/**
 * The candidate closest to `input` (optimal string alignment distance, transpositions count 1), or a
 * unique candidate that `input` is a prefix of; undefined when nothing is close enough.
 */
export function suggest(input: string, candidates: Iterable<string>): string | undefined {
  const word = input.toLowerCase();
  if (word.length === 0 || word.length > MAX_WORD) return undefined;
  const limit = word.length <= 4 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = Infinity;
  const prefixed: string[] = [];
  for (const candidate of candidates) {
    if (candidate.length > MAX_WORD) continue;
    const c = candidate.toLowerCase();
    if (word.length >= 2 && c.startsWith(word)) prefixed.push(candidate);
    const d = distance(word, c);
    if (d < bestDistance) {
      bestDistance = d;
      best = candidate;
    }
  }
  if (best !== undefined && bestDistance <= limit) return best;
  return prefixed.length === 1 ? prefixed[0] : undefined;
}

/**
 * True when a word typed where a command or option name belongs may be repeated in a message: short,
 * letters and hyphens only. Anything else (digits, underscores, mixed symbols) could be a pasted secret.
 */
export function isShowableWord(word: string): boolean {
  return /^[A-Za-z][A-Za-z-]{0,31}$/.test(word);
}

/** Optimal string alignment distance between two short strings. */
function distance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d = new Uint8Array(rows * cols);
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min((d[(i - 1) * cols + j] as number) + 1, (d[i * cols + j - 1] as number) + 1, (d[(i - 1) * cols + j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, (d[(i - 2) * cols + j - 2] as number) + 1);
      d[i * cols + j] = v;
    }
  }
  return d[rows * cols - 1] as number;
}
