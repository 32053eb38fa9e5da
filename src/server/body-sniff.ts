// Tells an event stream from a JSON or text body when the upstream sent no content-type, on enough
// bytes to be sure (never on whatever the first TCP chunk happened to hold): the first line that is not
// an SSE comment, or the blank line that ends a run of comments. Bounded: SNIFF_MAX_BYTES, then a body.

/** Bytes looked at before a response without content-type is treated as a body. */
export const SNIFF_MAX_BYTES = 1024;

export type SniffedKind = 'sse' | 'body';

const FIELDS = ['data', 'event', 'id', 'retry'].map((f) => Buffer.from(f, 'latin1'));
const LF = 0x0a;
const CR = 0x0d;

function isBlank(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

/**
 * The kind of a body from its first bytes, or undefined when they cannot tell yet (`final`: no more
 * bytes will come). SSE when the first line is an SSE field (`data`, `event`, `id`, `retry`, then `:`
 * or the line's end), or when comment lines (`: ping`) are followed by a field or a blank line; a body
 * otherwise (`: it's…` with nothing after is text) — the JSON lexer then decides whether that body is
 * JSON (first byte `{` or `[`, and valid) or text.
 */
export function sniffBody(head: Buffer, final: boolean): SniffedKind | undefined {
  const undecided = (): SniffedKind | undefined => (final || head.length >= SNIFF_MAX_BYTES ? 'body' : undefined);
  let i = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  while (i < head.length && isBlank(head[i] as number)) i++;
  let comments = 0;
  for (;;) {
    if (i >= head.length) return comments > 0 && final ? 'body' : undecided();
    const b = head[i] as number;
    if (comments > 0 && (b === LF || b === CR)) return 'sse';
    if (b !== 0x3a) break;
    // A comment line: what follows it decides.
    let end = i;
    while (end < head.length && head[end] !== LF && head[end] !== CR) end++;
    if (end >= head.length) return undecided();
    i = end + (head[end] === CR && head[end + 1] === LF ? 2 : 1);
    comments++;
  }
  let open = false;
  for (const name of FIELDS) {
    let k = 0;
    while (k < name.length && i + k < head.length && head[i + k] === name[k]) k++;
    if (k < name.length) {
      // Cut off while still matching: more bytes decide.
      if (i + k >= head.length) open = true;
      continue;
    }
    const next = head[i + k];
    if (next === undefined) open = true;
    else if (next === 0x3a || next === LF || next === CR) return 'sse';
  }
  return open ? undecided() : 'body';
}
