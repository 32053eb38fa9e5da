// The dashboard's record of requests: a bounded in-memory ring of request events (a start when a proxied
// request begins, a summary when any request ends), what the proxy already records, names and counts only.
// Appending is the only work on the request path; everything else (tallies, live pushes) runs after it.

import type { RequestStart, RequestSummary } from '../server/stats.ts';

/** One entry of the ring: a request starting, or its summary when it ended. */
export type FeedEvent = { seq: number; kind: 'start'; request: RequestStart } | { seq: number; kind: 'end'; summary: RequestSummary };

/**
 * Events kept. A request takes one or two (start and end); 2,000 events keep the last ~1,000 requests in
 * ~640 KB of heap (measured: scratch of 1,000 starts and 1,000 summaries with names, counts and a withheld
 * host), enough to scroll back through an agent session.
 */
export const DEFAULT_FEED_EVENTS = 2000;

export interface RequestFeed {
  /** Called by the proxy when a request starts (only a push onto the ring). */
  start(request: RequestStart): void;
  /** Called by the proxy when a request ends (only a push onto the ring). */
  end(summary: RequestSummary): void;
  /** The events still held with a sequence number above `after`, oldest first. */
  since(after: number): FeedEvent[];
  /** The last sequence number given out (0 before any event). */
  last(): number;
  /** Tells `listener` about new events in batches, after the requests that made them have moved on; returns the unsubscribe function. */
  subscribe(listener: (events: readonly FeedEvent[]) => void): () => void;
  readonly capacity: number;
}

/** A ring of `capacity` events. */
export function createRequestFeed(capacity = DEFAULT_FEED_EVENTS): RequestFeed {
  const ring: Array<FeedEvent | undefined> = new Array(capacity);
  let seq = 0;
  const listeners = new Set<(events: readonly FeedEvent[]) => void>();
  // New events since the last flush; bounded by what one turn of the event loop can append.
  let pending: FeedEvent[] = [];
  let scheduled = false;

  const flush = (): void => {
    scheduled = false;
    const batch = pending;
    pending = [];
    for (const listener of listeners) {
      try {
        listener(batch);
      } catch {
        // A view's failure never reaches the proxy or the other views.
      }
    }
  };
  const push = (event: FeedEvent): void => {
    ring[event.seq % capacity] = event;
    if (listeners.size === 0) return;
    pending.push(event);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };

  return {
    capacity,
    start: (request) => push({ seq: ++seq, kind: 'start', request }),
    end: (summary) => push({ seq: ++seq, kind: 'end', summary }),
    since(after) {
      const out: FeedEvent[] = [];
      for (let s = Math.max(after + 1, seq - capacity + 1, 1); s <= seq; s++) {
        const e = ring[s % capacity];
        if (e !== undefined && e.seq === s) out.push(e);
      }
      return out;
    },
    last: () => seq,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
