// Decoded views: where a buffer holds an escape that could hide a registered value from the automaton's
// compiled forms, the ranges holding it are decoded (JSON string escapes, percent-escapes) into a child
// view that is scanned the same way, recursively, with hits mapped back to source bytes. Every view is
// scanned by scanSecrets (secret-set.ts): with detection on, credentials are confirmed at their anchors in
// decoded views too, and their escaped or percent-encoded source bytes are what gets replaced.
//
// When a view needs an escape-decoded child: escaping only doubles backslashes and escapes quotes, so any
// `\u` or `\/` escape at any nesting level shows in the view as a `\u` / `\/` byte pair (`\u005c` is one
// itself). Without such a pair every level uses simple escapes only, which are canonical — exactly what
// the compiled forms (depths 0–3, FORM_DEPTHS) match — unless strings nest deeper than that: an escape at
// depth ≥ 4 is a run of ≥ 8 backslashes. So a child is decoded when a view holds a `\u` pair standing for
// a relevant character (relevance.ts: one a value holds, or one that builds an escape — `\u005c`, the
// letters `u n r t b f`, hex digits — whatever the values hold), a run of 8 backslashes, or a `\/` pair
// when some value holds a slash. Percent-decoded children follow a relevant `%XX`, and `+` → space
// children any `+` when some value holds a space. Total work is bounded: at most MAX_DECODE_DEPTH levels
// and DECODE_BUDGET_FACTOR × the input in decoded bytes; past either the input is refused
// (FICTA_BODY_TOO_DEEP), never passed unchecked. In every view, a hit of a form escaped n times counts only
// when its span starts and ends on escape boundaries at levels 1..n (escape-boundary.ts), and a raw hit in a
// JSON body's string only on that string's own boundaries: across an escape's edge it is not the value.

import { FictaError } from '../errors.ts';
import { decodeEscapesInto, mapEscapeOffsets } from './escape-decode.ts';
import { EscapeBoundaries, nearEscape } from './escape-boundary.ts';
import { insideStrings } from './json-strings.ts';
import { pointKey, WindowSink, type DecodeState, type MapPoint } from './decode-state.ts';
import { decodePercentInto, mapPercentOffsets } from './percent-decode.ts';
import { relevanceOf, type Relevance } from './relevance.ts';
import { scanSecrets, type ScanNotes, type SecretSet } from './secret-set.ts';
import type { TriggerKind } from './triggers.ts';
import { triggerSegments, type Segments } from './view-segments.ts';

/** A registered value found at source bytes [start, end). */
export interface Hit {
  start: number;
  end: number;
  secret: number;
}

/**
 * Levels of decoding a view may go through. JSON text nested in strings needs one per level; legitimate
 * requests use at most 3–5 (tool arguments inside tool results inside a batch line), and a run of
 * backslashes deep enough to need 16 levels is 65,536 bytes long, so only a crafted chain of `\u005c`
 * escapes gets here.
 */
export const MAX_DECODE_DEPTH = 16;

/**
 * Decoded bytes allowed per input byte, over all views of one input (a view holds only the strings that
 * need decoding). A Python client's body whose every string holds a relevant `\u` escape and URLs with
 * percent-escapes decodes about 2× its size. At about 8.5 ms/MB per level of decoding (a crafted chain
 * of `\u005c` escapes in every string), 4× keeps a request under ~50 ms per MB.
 */
export const DECODE_BUDGET_FACTOR = 4;
const DECODE_BUDGET_SLACK = 1 << 20;

type ViewKind = TriggerKind;
const KINDS: readonly ViewKind[] = ['escape', 'percent', 'plus'];

interface View {
  buf: Buffer;
  /** Ranges [start, end) of `buf` that hold decoded bytes, as flat pairs. */
  ranges: number[];
  /**
   * The parts of `ranges` the automaton scans. A child of a fully scanned view scans only windows around
   * the outputs of escapes that can build or hide a value: any other match is a copy of bytes its parent
   * scanned. Its own children then scan all their ranges again.
   */
  scan: number[];
  kind: ViewKind | 'root';
  depth: number;
  /** BUILT_* bits of the bytes the decoding that made this view produced. */
  built: number;
  /** The parent's ranges each of `ranges` was decoded from (empty for the root). */
  src: number[];
  /** Parts of `ranges` between two merged pieces (quotes and structure), flat sorted pairs: no value there. */
  gaps: number[];
}

// Bytes a decoding can produce that may start or complete another kind of escape.
const BUILT_ESCAPE = 1;
const BUILT_PERCENT = 2;
const BUILT_PLUS = 4;
const WATCH = (() => {
  const t = new Uint8Array(256);
  const hex = '0123456789abcdefABCDEF';
  for (const c of hex) t[c.charCodeAt(0)] = BUILT_ESCAPE | BUILT_PERCENT;
  // A backslash and what it escapes: u n r t (b f are hex), quote, slash.
  for (const c of '\\unrt"/') t[c.charCodeAt(0)] = (t[c.charCodeAt(0)] as number) | BUILT_ESCAPE;
  t[0x25] = BUILT_PERCENT; // %
  t[0x2b] = BUILT_PLUS; // +
  return t;
})();

interface Context {
  set: SecretSet;
  rel: Relevance;
  /** The input is JSON text (or JSONL): the root view's strings are JSON strings. */
  json: boolean;
  /** Split binary input into its text runs before decoding (a decoded form is always text). */
  runs: boolean;
  budget: number;
  inputBytes: number;
}

/** Options for {@link collectHits}. */
export interface ViewOptions {
  /** The input is binary: only its text runs that hold an escape are decoded. */
  binary?: boolean;
  /**
   * The input is JSON text (or JSONL): a raw match inside one of its strings that starts or ends inside an
   * escape is not the value (escape-boundary.ts).
   */
  json?: boolean;
}

/** Appends to `out` every hit of a registered value in `buf`, raw and in every decoded view. */
export function collectHits(set: SecretSet, buf: Buffer, options: ViewOptions, out: Hit[]): void {
  const ctx: Context = {
    set,
    rel: relevanceOf(set),
    json: options.json === true,
    runs: options.binary === true,
    budget: DECODE_BUDGET_FACTOR * buf.length + DECODE_BUDGET_SLACK,
    inputBytes: buf.length,
  };
  const whole = [0, buf.length];
  inspectView(ctx, { buf, ranges: whole, scan: whole, kind: 'root', depth: 0, built: 0, src: [], gaps: [] }, out);
}

/** Scans a view and its decoded children (recursion bounded by MAX_DECODE_DEPTH); hits in view offsets. */
function inspectView(ctx: Context, view: View, out: Hit[]): void {
  const { set } = ctx;
  const { buf, scan } = view;
  const jsonRoot = ctx.json && view.kind === 'root';
  let suspects: SuspectHit[] | undefined;
  const push = (start: number, end: number, secret: number, depth: number): void => {
    // A form escaped d times is the value only where its span starts and ends on escape boundaries at levels
    // 1..d; the raw form in a JSON body's string, on that string's own (level 1). Hits with no backslash near
    // either end (nearly all) need no more than that look.
    const levels = depth > 0 ? depth : depth === 0 && jsonRoot ? 1 : 0;
    if (levels === 0 || !(nearEscape(buf, start) || nearEscape(buf, end))) out.push({ start, end, secret });
    else (suspects ??= []).push({ start, end, secret, depth, levels, keep: true });
  };
  const notes: ScanNotes = { escapableAnchor: false };
  for (let r = 0; r < scan.length; r += 2) scanSecrets(set, buf, push, scan[r] as number, scan[r + 1] as number, notes);
  if (suspects !== undefined) keepAligned(view, jsonRoot, suspects, out);
  // Deep runs of backslashes in the root matter to detection only next to a key block's BEGIN line, which
  // reads the same at every depth (relevance.ts, deepAlways); every decoded view searches them whenever
  // some format needs them. The automaton pass above saw every anchor: no other pass over the body.
  const deepRuns = ctx.rel.deep && (view.kind !== 'root' || ctx.rel.deepAlways || notes.escapableAnchor);
  for (const kind of KINDS) {
    if (!mayDecode(ctx, view, kind)) continue;
    const segments = triggerSegments({ buf: view.buf, ranges: view.ranges, rel: ctx.rel, kind, runs: ctx.runs && view.kind === 'root', minLength: ctx.set.matcher.minLength, deepRuns });
    if (segments.segs.length === 0) continue;
    if (view.depth >= MAX_DECODE_DEPTH) throw tooDeep(`escapes nest more than ${MAX_DECODE_DEPTH} levels deep`);
    const child = decodeChild(ctx, view, kind, segments);
    let found: Hit[] = [];
    inspectView(ctx, child, found);
    if (found.length === 0) continue;
    if (child.gaps.length > 0) found = found.filter((h) => !touchesGap(child.gaps, h));
    mapToParent(view.buf, child, found);
    for (const h of found) out.push(h);
  }
}

interface SuspectHit extends Hit {
  depth: number;
  levels: number;
  keep: boolean;
}

/**
 * Appends to `out` the suspects whose spans start and end on escape boundaries at their levels
 * (escape-boundary.ts). A raw-form hit in a JSON body that does not is dropped only when it lies inside a
 * string: elsewhere its bytes are not string content, so the escape rule does not apply and the hit is
 * kept (the gate then blocks what cannot be replaced). Positions are looked up in ascending order, starts
 * then ends, so each backslash run is measured once.
 */
function keepAligned(view: View, jsonRoot: boolean, suspects: SuspectHit[], out: Hit[]): void {
  const { buf, ranges } = view;
  const bounds = new EscapeBoundaries(buf);
  const aligned = (h: SuspectHit, p: number): boolean => {
    // The range holding the hit (a hit never crosses one): its start is a boundary at every level.
    const r = ranges.length === 2 ? 0 : rangeIndex(ranges, h.start);
    return bounds.aligned(p, h.levels, ranges[r] as number, ranges[r + 1] as number);
  };
  suspects.sort((a, b) => a.start - b.start);
  for (const h of suspects) h.keep = aligned(h, h.start);
  const byEnd = suspects.slice().sort((a, b) => a.end - b.end);
  for (const h of byEnd) if (h.keep) h.keep = aligned(h, h.end);
  const raw = jsonRoot ? suspects.filter((h) => !h.keep && h.depth === 0) : [];
  if (raw.length > 0) {
    const inside = insideStrings(buf, raw);
    for (let i = 0; i < raw.length; i++) if (inside[i] !== true) (raw[i] as SuspectHit).keep = true;
  }
  for (const h of suspects) if (h.keep) out.push({ start: h.start, end: h.end, secret: h.secret });
}

/** Index (even) of the range of `ranges` (sorted flat pairs) holding offset `p`. */
function rangeIndex(ranges: readonly number[], p: number): number {
  let lo = 0;
  let hi = ranges.length / 2 - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((ranges[2 * mid] as number) <= p) lo = mid;
    else hi = mid - 1;
  }
  return 2 * lo;
}

/**
 * Whether `view` may need a child of `kind`. A percent-decoded view needs an escape-decoded child only when
 * its decoding built bytes an escape is made of; otherwise decoding escapes first then percent-escapes
 * (which an escape-decoded view always may) finds the same values, so the reverse order is skipped.
 */
function mayDecode(ctx: Context, view: View, kind: ViewKind): boolean {
  if (kind === 'plus' && !ctx.rel.plus) return false;
  if (view.kind === 'root' || view.kind === 'escape' || view.kind === kind) return true;
  if (kind === 'escape') return (view.built & BUILT_ESCAPE) !== 0;
  if (kind === 'plus') return (view.built & BUILT_PLUS) !== 0;
  return true; // percent from a plus view: `%XX` built from `%25XX`
}

function decodeChild(ctx: Context, view: View, kind: ViewKind, segments: Segments): View {
  const { segs, gaps } = segments;
  let total = 0;
  for (let i = 0; i < segs.length; i += 2) total += (segs[i + 1] as number) - (segs[i] as number);
  ctx.budget -= total;
  if (ctx.budget < 0) throw tooDeep(`decoding its escapes would take more than ${DECODE_BUDGET_FACTOR} times its ${ctx.inputBytes} bytes`);
  const out = Buffer.allocUnsafe(total);
  // Windows suffice for registered values (no match is longer than the automaton's longest pattern); a
  // detected credential can run far from its anchor (a PEM block, a JWT), so with detection on a child
  // is scanned whole.
  const full = view.scan === view.ranges;
  const windows = full && ctx.set.detection === undefined ? new WindowSink(ctx.set.matcher.maxLength) : undefined;
  const state: DecodeState = { watch: WATCH, built: 0, rel: ctx.rel, windows };
  const decode = (a: number, b: number, o: number): number =>
    kind === 'escape' ? decodeEscapesInto(view.buf, a, b, out, o, state) : decodePercentInto(view.buf, a, b, out, o, kind === 'plus', state);
  const ranges: number[] = [];
  const outGaps: number[] = [];
  let g = 0;
  let o = 0;
  for (let i = 0; i < segs.length; i += 2) {
    let a = segs[i] as number;
    const b = segs[i + 1] as number;
    const start = o;
    windows?.begin(start);
    // A gap starts at a closing quote and ends after an opening one: no escape spans its edges, so the
    // piece decodes the same in parts, and the parts tell where the gap went.
    for (; g < gaps.length && (gaps[g] as number) < b; g += 2) {
      o = decode(a, gaps[g] as number, o);
      const gapStart = o;
      o = decode(gaps[g] as number, gaps[g + 1] as number, o);
      outGaps.push(gapStart, o);
      a = gaps[g + 1] as number;
    }
    o = decode(a, b, o);
    windows?.end(o);
    ranges.push(start, o);
  }
  return { buf: out, ranges, scan: windows === undefined ? ranges : windows.spans, kind, depth: view.depth + 1, built: state.built, src: segs, gaps: outGaps };
}

/** Whether hit `h` overlaps one of `gaps` (sorted flat pairs). */
function touchesGap(gaps: readonly number[], h: Hit): boolean {
  // The last gap starting before the hit's end.
  let lo = 0;
  let hi = gaps.length / 2 - 1;
  if ((gaps[0] as number) >= h.end) return false;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((gaps[2 * mid] as number) < h.end) lo = mid;
    else hi = mid - 1;
  }
  return (gaps[2 * lo + 1] as number) > h.start;
}

/** Rewrites hits in `child` offsets (each inside one of its ranges) as offsets in the parent's buffer. */
function mapToParent(parentBuf: Buffer, child: View, hits: Hit[]): void {
  hits.sort((a, b) => a.start - b.start);
  const { ranges, src } = child;
  let r = 0;
  let i = 0;
  while (i < hits.length) {
    const start = (hits[i] as Hit).start;
    while (r + 2 < ranges.length && start >= (ranges[r + 1] as number)) r += 2;
    const cs = ranges[r] as number;
    const ce = ranges[r + 1] as number;
    let j = i;
    while (j < hits.length && (hits[j] as Hit).start < ce) j++;
    const points: MapPoint[] = [];
    for (let k = i; k < j; k++) {
      const h = hits[k] as Hit;
      points.push({ pos: h.start - cs, isEnd: false, src: 0 }, { pos: h.end - cs, isEnd: true, src: 0 });
    }
    const order = points.slice().sort((a, b) => pointKey(a) - pointKey(b));
    const ps = src[r] as number;
    const pe = src[r + 1] as number;
    if (child.kind === 'escape') mapEscapeOffsets(parentBuf, ps, pe, order);
    else mapPercentOffsets(parentBuf, ps, pe, child.kind === 'plus', order);
    for (let k = i; k < j; k++) {
      const h = hits[k] as Hit;
      h.start = (points[2 * (k - i)] as MapPoint).src;
      h.end = (points[2 * (k - i) + 1] as MapPoint).src;
    }
    i = j;
  }
}

function tooDeep(what: string): FictaError {
  return new FictaError('FICTA_BODY_TOO_DEEP', `request: ${what}; it cannot be checked for registered values, so nothing was sent`);
}
