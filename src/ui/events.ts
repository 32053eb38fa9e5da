// The Live page's server-sent events: the ring's events after `since` (or Last-Event-ID), then each new one
// as the feed hands it over, as `request` events carrying a Live row (names and counts only). Bounded: a
// few connections, a bounded queue each; a reader too slow for its queue is told to reconnect.

import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { FeedEvent, RequestFeed } from './feed.ts';
import type { UiEnv } from './guard.ts';
import { liveRow } from './views.ts';

/** Open event streams at most (each is a browser tab). */
export const MAX_EVENT_STREAMS = 16;
/** Events queued for one slow reader before it is cut (it reconnects and catches up from the ring). */
const MAX_QUEUED = 4000;
/** A comment line this often keeps idle connections open through anything that times them out. */
const KEEPALIVE_MS = 15_000;

export interface EventStreams {
  handle(c: Context<UiEnv>): Response | Promise<Response>;
  /** Ends every open stream (the proxy is stopping: an open tab must not hold its shutdown). */
  closeAll(): void;
}

export function createEventStreams(feed: RequestFeed): EventStreams {
  let open = 0;
  const enders = new Set<() => void>();
  const handle = (c: Context<UiEnv>): Response | Promise<Response> => {
    if (open >= MAX_EVENT_STREAMS) return c.json({ error: 'ficta_ui_busy', message: 'too many open dashboard tabs' }, 503);
    // A reconnecting EventSource sends Last-Event-ID: it wins over the `since` the page first asked with.
    const since = Number(c.req.header('last-event-id') ?? c.req.query('since') ?? '0');
    open++;
    return streamSSE(c, async (stream) => {
      let queue: FeedEvent[] = [];
      let wake: (() => void) | undefined;
      let closed = false;
      const unsubscribe = feed.subscribe((events) => {
        if (queue.length + events.length > MAX_QUEUED) closed = true;
        else for (const e of events) queue.push(e);
        wake?.();
      });
      const end = (): void => {
        closed = true;
        wake?.();
      };
      enders.add(end);
      stream.onAbort(end);
      try {
        // Subscribed first, so nothing falls between the replay and the live events.
        let sent = Number.isFinite(since) && since > 0 ? since : 0;
        for (const e of feed.since(sent)) {
          await stream.writeSSE({ event: 'request', id: String(e.seq), data: JSON.stringify(liveRow(e)) });
          sent = e.seq;
        }
        while (!closed) {
          if (queue.length === 0) {
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, KEEPALIVE_MS);
              wake = () => {
                clearTimeout(timer);
                resolve();
              };
            });
            wake = undefined;
            if (queue.length === 0 && !closed) await stream.write(': keepalive\n\n');
            continue;
          }
          const batch = queue;
          queue = [];
          for (const e of batch) {
            if (e.seq <= sent) continue;
            await stream.writeSSE({ event: 'request', id: String(e.seq), data: JSON.stringify(liveRow(e)) });
            sent = e.seq;
          }
        }
      } finally {
        enders.delete(end);
        unsubscribe();
        open--;
      }
    });
  };
  return {
    handle,
    closeAll() {
      for (const end of enders) end();
    },
  };
}
