// What the decoders of a decoded view share: the state a decoding reports (which watched bytes it built,
// and windows around the outputs that matter), and the mapping of decoded offsets back to the source
// bytes that produced them, done in one walk.

import type { Relevance } from './relevance.ts';

/** Per decoding: `watch` gives bits per byte value; `built` collects the bits of every byte decoding produced. */
export interface DecodeState {
  readonly watch: Uint8Array;
  built: number;
  /** Which decoded characters matter to the registered values. */
  readonly rel: Relevance;
  /** Collects windows around decoded outputs that can build or hide a value, when the caller wants them. */
  readonly windows: WindowSink | undefined;
}

/**
 * Windows closer than this are merged: scanning a short gap costs less than a separate scan call, which
 * runs byte by byte below 512 bytes (matcher.ts MULTI_CHAIN_MIN_BYTES).
 */
const WINDOW_MERGE_GAP = 256;

/**
 * Merged windows [output − margin, output end + margin) around reported decoded outputs, clipped to the
 * decoded range they lie in: every match (at most `margin` bytes) that overlaps such an output lies inside.
 */
export class WindowSink {
  /** The windows, as flat [start, end) pairs in ascending order. */
  readonly spans: number[] = [];
  private readonly margin: number;
  private lo = 0;
  private s = -1;
  private e = -1;

  constructor(margin: number) {
    this.margin = margin;
  }

  /** Starts a decoded range at output offset `lo`. */
  begin(lo: number): void {
    this.lo = lo;
  }

  /** Reports decoded output [a, b). */
  add(a: number, b: number): void {
    const s = a - this.margin > this.lo ? a - this.margin : this.lo;
    const e = b + this.margin;
    if (this.s !== -1 && s <= this.e + WINDOW_MERGE_GAP) {
      if (e > this.e) this.e = e;
      return;
    }
    if (this.s !== -1) this.spans.push(this.s, this.e);
    this.s = s;
    this.e = e;
  }

  /** Ends the current decoded range at output offset `hi`. */
  end(hi: number): void {
    if (this.s === -1) return;
    this.spans.push(this.s, this.e < hi ? this.e : hi);
    this.s = -1;
  }
}

/** A decoded offset to map back; the walk writes the source offset into `src`. */
export interface MapPoint {
  /** Decoded offset, relative to the start of the decoded range. */
  pos: number;
  /** An exclusive end (maps to the byte after the unit that produced `pos - 1`) rather than a start. */
  isEnd: boolean;
  src: number;
}

/** Sort key of a point: the decoded byte it is about (an end is about the byte before it). */
export function pointKey(p: MapPoint): number {
  return p.isEnd ? p.pos - 1 : p.pos;
}

/** Maps the points that fall in a copied run (decoded [o, o+n) = source [s, s+n)); returns the next point. */
export function mapRun(points: MapPoint[], k: number, o: number, n: number, s: number): number {
  for (; k < points.length; k++) {
    const p = points[k] as MapPoint;
    if (pointKey(p) >= o + n) break;
    p.src = s + (p.pos - o);
  }
  return k;
}

/** Maps the points that fall in one decoded unit (decoded [o, o+outLen) from source [s, e)); returns the next point. */
export function mapUnit(points: MapPoint[], k: number, o: number, outLen: number, s: number, e: number): number {
  for (; k < points.length; k++) {
    const p = points[k] as MapPoint;
    if (pointKey(p) >= o + outLen) break;
    p.src = p.isEnd ? e : s;
  }
  return k;
}
