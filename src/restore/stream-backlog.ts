// The events a stream restorer let through unread (no `~`, nothing held): kept, as the regions they
// came in, until a placeholder needs the state of a stream they may have touched. Reading them then,
// in order, is what lets the restorer know a stream's content from its first byte without parsing
// every event of every stream; most reads stop after a few events (a prose stream is settled by its
// first non-blank character). Ends that were applied out of order are queued as markers.

import type { Framing } from './framing.ts';

/**
 * Unread bytes kept before they are read anyway. Streams shorter than this are never read unless a
 * placeholder needs them; a longer one costs a parse of each event past this mark (linear).
 */
export const STREAM_BACKLOG_BYTES = 4 * 1024 * 1024;

export interface Backlog {
  readonly bytes: number;
  readonly empty: boolean;
  /** Keeps a region (whole events) that was passed on unread. */
  keep(region: Buffer): void;
  /** Queues the end of the streams `pred` matches, in stream order. */
  mark(pred: (key: string) => boolean): void;
  /** Reads kept events in order until `done()` (checked before each) or the backlog is empty. */
  drainUntil(done: () => boolean): void;
  clear(): void;
}

/** A backlog read with `account(block)` per event and `end(pred)` per marker. */
export function createBacklog(framing: Framing, account: (block: Buffer) => void, end: (pred: (key: string) => boolean) => void): Backlog {
  let items: Array<Buffer | ((key: string) => boolean)> = [];
  let head = 0;
  /** Read position inside items[head] when it is a region. */
  let at = 0;
  let bytes = 0;
  const self: Backlog = {
    get bytes() {
      return bytes;
    },
    get empty() {
      return head === items.length;
    },
    keep(region) {
      if (region.length === 0) return;
      items.push(region);
      bytes += region.length;
      if (bytes > STREAM_BACKLOG_BYTES) self.drainUntil(() => false);
    },
    mark(pred) {
      if (head < items.length) items.push(pred);
    },
    drainUntil(done) {
      while (head < items.length) {
        if (done()) return;
        const item = items[head] as Buffer | ((key: string) => boolean);
        if (typeof item === 'function') {
          end(item);
          items[head++] = EMPTY;
          continue;
        }
        const stop = framing.nextEventEnd(item, at);
        account(at === 0 && stop === item.length ? item : item.subarray(at, stop));
        bytes -= stop - at;
        at = stop;
        if (at >= item.length) {
          items[head++] = EMPTY;
          at = 0;
        }
        if (head > 1024 && head * 2 > items.length) {
          items = items.slice(head);
          head = 0;
        }
      }
      self.clear();
    },
    clear() {
      items = [];
      head = 0;
      at = 0;
      bytes = 0;
    },
  };
  return self;
}

const EMPTY = Buffer.alloc(0);
