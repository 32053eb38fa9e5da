// The events a stream restorer let through unread (no `~`, nothing held): kept, as the regions they
// came in, until a placeholder needs the state of a stream they may have touched. Reading them then,
// in order, is what lets the restorer know a stream's content from its first byte without parsing
// every event of every stream; most reads stop after a few events (a prose stream is settled by its
// first non-blank character). Ends that were applied out of order are queued as markers.

import type { Framing } from './framing.ts';

/**
 * Unread bytes kept before they are read anyway (memory per response is bounded by this). Streams
 * shorter than this are never read unless a placeholder needs them; past it each event is looked at
 * once: look-alike deltas by their shape (event-shape.ts: a 64 MiB burst at ~730 MB/s), others parsed.
 */
export const STREAM_BACKLOG_BYTES = 4 * 1024 * 1024;

/** What reads a backlog: the stream restorer. */
export interface BacklogReader {
  /** Reads one event that passed unread (in stream order). */
  account(block: Buffer): void;
  /** Ends the streams `pred` matches (a marker queued with `mark`). */
  endStreams(pred: (key: string) => boolean): void;
  /** Accounts for the event at `at` without reading it when it can (event-shape.ts): where it ends, else -1. */
  skip(region: Buffer, at: number): number;
}

/**
 * A backlog read with the reader's `account(block)` per event and `endStreams(pred)` per marker. A class rather than an
 * object literal with getters: those literals are created through V8's slow path, and a fresh one per
 * response was promoted to the old generation (3.9 MB per scavenge in a loop of restorers).
 */
export class Backlog {
  private items: Array<Buffer | ((key: string) => boolean)> = [];
  private head = 0;
  /** Read position inside items[head] when it is a region. */
  private at = 0;
  private kept = 0;

  /** Events the reader's `skip` cannot account for are read with its `account`. */
  constructor(
    private readonly framing: Framing,
    private readonly reader: BacklogReader,
  ) {}

  /** Bytes kept unread. */
  get bytes(): number {
    return this.kept;
  }

  get empty(): boolean {
    return this.head === this.items.length;
  }

  /** Keeps a region (whole events) that was passed on unread. */
  keep(region: Buffer): void {
    if (region.length === 0) return;
    this.items.push(region);
    this.kept += region.length;
    if (this.kept > STREAM_BACKLOG_BYTES) this.drainUntil(() => false);
  }

  /** Queues the end of the streams `pred` matches, in stream order. */
  mark(pred: (key: string) => boolean): void {
    if (this.head < this.items.length) this.items.push(pred);
  }

  /** Reads kept events in order until `done()` (checked before each) or the backlog is empty. */
  drainUntil(done: () => boolean): void {
    while (this.head < this.items.length) {
      if (done()) return;
      const item = this.items[this.head] as Buffer | ((key: string) => boolean);
      if (typeof item === 'function') {
        this.reader.endStreams(item);
        this.items[this.head++] = EMPTY;
        continue;
      }
      let stop = this.reader.skip(item, this.at);
      if (stop === -1) {
        stop = this.framing.nextEventEnd(item, this.at);
        this.reader.account(this.at === 0 && stop === item.length ? item : item.subarray(this.at, stop));
      }
      this.kept -= stop - this.at;
      this.at = stop;
      if (this.at >= item.length) {
        this.items[this.head++] = EMPTY;
        this.at = 0;
      }
      if (this.head > 1024 && this.head * 2 > this.items.length) {
        this.items = this.items.slice(this.head);
        this.head = 0;
      }
    }
    this.clear();
  }

  clear(): void {
    this.items = [];
    this.head = 0;
    this.at = 0;
    this.kept = 0;
  }
}

const EMPTY = Buffer.alloc(0);
