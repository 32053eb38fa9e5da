// The framing seam of the stream restorer: how a byte stream is cut into events (SSE events, NDJSON
// lines, the elements of a streamed JSON array), how an event's data is read, and how an event is
// rewritten by byte surgery. The restorer (stream-restorer.ts) never looks at framing bytes itself.
//
// Contract for a framing: `push` returns regions that end on event boundaries (the bytes of a region
// concatenated in order are the stream); `nextEventEnd`/`lastEventEnd` find boundaries inside a region
// push returned; `read` gives one event's data bytes and a `rewrite` that replaces spans of the data
// (data offsets) and leaves every other byte of the event as it came.

/** One replacement in an event's data: bytes [start, end) become `bytes` (start === end inserts). */
export interface Edit {
  start: number;
  end: number;
  bytes: Buffer;
}

/** One event as read by its framing. */
export interface FramedEvent {
  /** The SSE `event:` name, or "message". */
  name: string;
  /** The event's data (SSE: the `data:` lines joined with LF; NDJSON: the line), or undefined. */
  data: Buffer | undefined;
  /** The event's bytes with `edits` (sorted, non-overlapping, in data offsets) applied. */
  rewrite(edits: readonly Edit[]): Buffer;
  /**
   * Bytes a copy of this event, sent after it (held bytes released at a stream's end), needs in front of
   * its data: the `,` an element of a streamed array that came without one needs. None when absent.
   */
  readonly separator?: Buffer;
  /**
   * The event is a document of its own (a top-level JSON value that is not an array), not one of a
   * stream's events: every stream ends with it, so nothing is held for an event that will not come.
   */
  readonly whole?: boolean;
}

export interface Framing {
  /** Takes the next chunk; returns regions of complete events (possibly none) and keeps the rest. */
  push(chunk: Buffer): Buffer[];
  /** The bytes left at the end of the stream (an unfinished event), if any. */
  end(): Buffer | undefined;
  /** Offset just past the event that starts at `from` in `region` (the region's length when it is the last). */
  nextEventEnd(region: Buffer, from: number): number;
  /** Offset just past the last event that ends in region[from, to), or -1. */
  lastEventEnd(region: Buffer, from: number, to: number): number;
  read(block: Buffer): FramedEvent;
  /**
   * Whether a value restored raw (string depth 0, outside any JSON string) reaches the client exactly
   * when written into an event's data: SSE data cannot hold a CR, an NDJSON line neither CR nor LF.
   * When it cannot, the placeholder stays and counts as a miss (an exact placeholder beats a wrong value).
   */
  carries(value: Buffer): boolean;
}

/** Applies sorted, non-overlapping edits to `buf`, where edit offsets are `buf` offsets minus `base`. */
export function applyEdits(buf: Buffer, edits: readonly Edit[], base = 0): Buffer {
  if (edits.length === 0) return buf;
  const parts: Buffer[] = [];
  let at = 0;
  for (const e of edits) {
    const s = e.start + base;
    if (s > at) parts.push(buf.subarray(at, s));
    if (e.bytes.length > 0) parts.push(e.bytes);
    at = e.end + base;
  }
  if (at < buf.length) parts.push(buf.subarray(at));
  return Buffer.concat(parts);
}

/** Where `data` starts in `block` when it is a run of the block's own bytes (one SSE data line, an NDJSON line), else -1. */
export function dataOffset(block: Buffer, data: Buffer): number {
  const at = data.byteOffset - block.byteOffset;
  // Same ArrayBuffer alone is not enough: a copy (data lines joined) may come from the same pool slab.
  return data.buffer === block.buffer && at >= 0 && at + data.length <= block.length ? at : -1;
}
