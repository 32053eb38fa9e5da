// Declarative token grammars: a sequence of literals and byte-class runs around the anchor the automaton
// found, matched by hand at the hit position (backwards for what precedes the anchor, forwards for what
// follows), then checked for boundaries, placeholders and, where the format has one, its checksum.

import { boundaryAfter, boundaryBefore, charset, hasLiteral, insideBase64, looksLikePlaceholder, runChars, runEnd, runStart, type CharSet } from './charset.ts';

/**
 * What a match says of a value: its checksum holds (`verified`), it has the kind's anchor, charset and
 * length but fails the checksum or lacks the part that would prove it (`unverified`: redacted, never
 * blocked), or its kind carries no checksum (`format`: confirmed by grammar alone).
 */
export type Verdict = 'verified' | 'unverified' | 'format';

/** A run of bytes of one class, `min` to `max` long, matched possessively. */
export interface Run {
  readonly set: CharSet;
  readonly min: number;
  readonly max: number;
}

/** Stands for the anchor the automaton found (one of the kind's anchors). */
export const ANCHOR: unique symbol = Symbol('anchor');

/** One element of a grammar. */
export type Part = string | Run | typeof ANCHOR;

/** A run of `set` (a CharSet or a spec such as `A-Za-z0-9`), `min` to `max` bytes. */
export function run(set: CharSet | string, min: number, max: number = min): Run {
  return { set: typeof set === 'string' ? charset(set) : set, min, max };
}

export interface Grammar {
  /** Literals and runs, with ANCHOR exactly once. */
  readonly parts: readonly Part[];
  /** A shape rule over the token [start, end) (a length or padding rule); the anchor ends at anchorEnd. */
  readonly check?: (buf: Uint8Array, start: number, end: number, anchorEnd: number) => boolean;
  /**
   * The format's checksum over the token [start, end): a token of the right shape that fails it still
   * matches, as `unverified` (a test fixture, a typo, a made-up value: redacted, never blocked).
   */
  readonly verify?: (buf: Uint8Array, start: number, end: number, anchorEnd: number) => boolean;
  /** Base64 of binary data (macaroons, session tokens): the placeholder filter allows runs of one byte. */
  readonly structured?: boolean;
  /** Bytes that may not touch the token on either side besides word bytes (default: the runs' bytes). */
  readonly edge?: CharSet | string;
  /** The credential is what follows the anchor (`AccountKey=` + key, a webhook's path after its host). */
  readonly valueAfterAnchor?: boolean;
}

/** A grammar ready to match: literals as bytes, the class used for boundaries. */
export interface CompiledGrammar {
  readonly before: ReadonlyArray<Uint8Array | Run>;
  readonly after: ReadonlyArray<Uint8Array | Run>;
  /** Bytes (besides word bytes) that may not precede the token: none when it starts with its anchor. */
  readonly leftEdge: CharSet;
  readonly edge: CharSet;
  readonly check: Grammar['check'];
  readonly verify: Grammar['verify'];
  readonly structured: boolean;
  readonly valueAfterAnchor: boolean;
  /** Longest token the grammar accepts, anchor excluded. */
  readonly maxLength: number;
}

/** Compiles a grammar; the boundary class is the union of its runs' classes. */
export function compileGrammar(g: Grammar): CompiledGrammar {
  const at = g.parts.indexOf(ANCHOR);
  if (at === -1 || g.parts.lastIndexOf(ANCHOR) !== at) throw new Error('detect: a grammar needs exactly one ANCHOR');
  const edge = new Uint8Array(256);
  let maxLength = 0;
  const conv = (p: Part): Uint8Array | Run => {
    if (typeof p === 'string') {
      maxLength += p.length;
      return Buffer.from(p, 'latin1');
    }
    const r = p as Run;
    for (let b = 0; b < 256; b++) if (r.set[b] === 1) edge[b] = 1;
    maxLength += r.max;
    return r;
  };
  const before = g.parts.slice(0, at).map(conv).reverse();
  const after = g.parts.slice(at + 1).map(conv);
  const edgeSet = g.edge === undefined ? edge : typeof g.edge === 'string' ? charset(g.edge) : g.edge;
  // A token that starts with its anchor may follow `=`, `/` or `-` (`TOKEN=ops_…`); one that starts with
  // a run may not follow a byte that run could continue with.
  const leftEdge = g.edge === undefined && before.length === 0 ? new Uint8Array(256) : edgeSet;
  return { before, after, leftEdge, edge: edgeSet, check: g.check, verify: g.verify, structured: g.structured === true, valueAfterAnchor: g.valueAfterAnchor === true, maxLength };
}

/** Reused result of {@link matchGrammar}. */
export interface Span {
  start: number;
  end: number;
  /** What the last match's checksum said (`format` when its grammar has none). */
  verdict: Verdict;
}

/**
 * Matches a compiled grammar around the anchor at buf[anchorStart, anchorEnd); fills `span` and
 * returns true when the token is there, bounded on both sides and not a placeholder; `span.verdict` says
 * whether its checksum (if the grammar has one) holds. Work is bounded by the grammar's longest token.
 */
export function matchGrammar(buf: Uint8Array, anchorStart: number, anchorEnd: number, g: CompiledGrammar, span: Span): boolean {
  // A token that starts with its anchor is refused before its body is read: anchors glued to each other
  // (`ya29.ya29.ya29.…`) would otherwise each read a long run.
  if (g.before.length === 0 && !g.valueAfterAnchor && !boundaryBefore(buf, anchorStart, g.leftEdge)) return false;
  let start = anchorStart;
  for (const p of g.before) {
    if (p instanceof Uint8Array) {
      const s = literalStart(buf, start, p);
      if (s === -1) return false;
      start = s;
    } else {
      const s = runStart(buf, start, p.set, p.max);
      const len = runChars();
      if (len < p.min || len > p.max) return false;
      start = s;
    }
  }
  let end = anchorEnd;
  for (const p of g.after) {
    if (p instanceof Uint8Array) {
      const e = literalEnd(buf, end, p);
      if (e === -1) return false;
      end = e;
    } else {
      const e = runEnd(buf, end, p.set, p.max);
      const len = runChars();
      if (len < p.min || len > p.max) return false;
      end = e;
    }
  }
  // A value after its anchor (`AccountKey=…`, a webhook path) is delimited by the anchor itself.
  if ((!g.valueAfterAnchor && !boundaryBefore(buf, start, g.leftEdge)) || !boundaryAfter(buf, end, g.edge) || insideBase64(buf, start, end)) return false;
  // The variable parts on either side of the anchor, each on its own: `GR1348941` + `123123…` is a stand-in.
  if (start < anchorStart && looksLikePlaceholder(buf, start, anchorStart, g.structured)) return false;
  if (anchorEnd < end && looksLikePlaceholder(buf, anchorEnd, end, g.structured)) return false;
  if (g.check !== undefined && !g.check(buf, start, end, anchorEnd)) return false;
  span.start = g.valueAfterAnchor ? anchorEnd : start;
  span.end = end;
  span.verdict = g.verify === undefined ? 'format' : g.verify(buf, start, end, anchorEnd) ? 'verified' : 'unverified';
  return true;
}

/** End of the literal written at buf[at…), each `/` of it also as a JSON-escaped `\/` (as runs read it); -1 when absent. */
function literalEnd(buf: Uint8Array, at: number, lit: Uint8Array): number {
  if (hasLiteral(buf, at, lit)) return at + lit.length;
  let i = at;
  for (let k = 0; k < lit.length; k++) {
    if (buf[i] === lit[k]) i++;
    else if (lit[k] === 0x2f && buf[i] === 0x5c && buf[i + 1] === 0x2f) i += 2;
    else return -1;
  }
  return i;
}

/** Start of the literal written to end at buf[…to), each `/` of it also as `\/`; -1 when absent. */
function literalStart(buf: Uint8Array, to: number, lit: Uint8Array): number {
  if (hasLiteral(buf, to - lit.length, lit)) return to - lit.length;
  let i = to;
  for (let k = lit.length - 1; k >= 0; k--) {
    if (i > 0 && buf[i - 1] === lit[k]) i--;
    else if (lit[k] === 0x2f && i >= 2 && buf[i - 1] === 0x2f && buf[i - 2] === 0x5c) i -= 2;
    else return -1;
  }
  return i;
}
