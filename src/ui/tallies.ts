// What the dashboard's pages add up from the request feed: when each secret was last redacted and
// restored, detection kinds seen, withheld restores by secret and destination, each provider's last answer.
// Brought up to date when a page asks (never on the request path); bounded by names, kinds and hosts.

import { DETECTED_PREFIX } from '../redact/secret-set.ts';
import type { RequestSummary } from '../server/stats.ts';
import type { FeedEvent, RequestFeed } from './feed.ts';

export interface SecretSeen {
  lastRedacted?: number;
  lastRestored?: number;
  lastWithheld?: number;
}

/** Withheld restores of one secret (its display name) for one reason (`network:evil.example`). */
export interface WithheldGroup {
  secret: string;
  reason: string;
  /** The destination when the reason names one (`network:<host>`). */
  host: string | undefined;
  count: number;
  first: number;
  last: number;
}

export interface ProviderSeen {
  provider: string;
  status: number | undefined;
  outcome: string;
  at: number;
  /** The transport's error code when the upstream failed. */
  error?: string;
}

/** Most withheld groups kept: destinations come from model output, so their number has to be bounded. */
export const MAX_WITHHELD_GROUPS = 500;

export interface Tallies {
  /** Reads the feed's new events; returns this. */
  update(): Tallies;
  secrets(): ReadonlyMap<string, SecretSeen>;
  detections(): ReadonlyMap<string, { count: number; last: number }>;
  withheld(): WithheldGroup[];
  providers(): ProviderSeen[];
  /** True when events were dropped from the ring before they were read (the tallies then start later). */
  missed(): boolean;
}

/** The host a withheld reason names, if it names one. */
export function hostOfReason(reason: string): string | undefined {
  if (!reason.startsWith('network:') || reason === 'network:secret-in-hostname') return undefined;
  return reason.slice('network:'.length);
}

export function createTallies(feed: RequestFeed): Tallies {
  let read = 0;
  let missed = false;
  const secrets = new Map<string, SecretSeen>();
  const detections = new Map<string, { count: number; last: number }>();
  const withheld = new Map<string, WithheldGroup>();
  const providers = new Map<string, ProviderSeen>();

  const seen = (name: string): SecretSeen => {
    let s = secrets.get(name);
    if (s === undefined) secrets.set(name, (s = {}));
    return s;
  };
  const add = (s: RequestSummary): void => {
    const at = Math.round((s.at ?? Date.now()) + (s.ms ?? 0));
    for (const [name, n] of Object.entries(s.redactions)) {
      if (name.startsWith(DETECTED_PREFIX)) {
        const kind = name.slice(DETECTED_PREFIX.length);
        const d = detections.get(kind) ?? { count: 0, last: 0 };
        detections.set(kind, { count: d.count + n, last: at });
      } else for (const one of name.split('|')) seen(one).lastRedacted = at;
    }
    for (const name of Object.keys(s.restores)) for (const one of name.split('|')) seen(one).lastRestored = at;
    for (const [name, byReason] of Object.entries(s.withheld ?? {})) {
      for (const one of name.split('|')) seen(one).lastWithheld = at;
      for (const [reason, n] of Object.entries(byReason)) {
        const key = `${name}\u0000${reason}`;
        const g = withheld.get(key);
        if (g !== undefined) {
          g.count += n;
          g.last = at;
          withheld.delete(key); // re-insert: the map's order is least recently seen first
          withheld.set(key, g);
          continue;
        }
        if (withheld.size >= MAX_WITHHELD_GROUPS) withheld.delete(withheld.keys().next().value as string);
        withheld.set(key, { secret: name, reason, host: hostOfReason(reason), count: n, first: at, last: at });
      }
    }
    if (s.provider !== undefined) {
      providers.set(s.provider, { provider: s.provider, status: s.status, outcome: s.outcome, at, ...(s.error === undefined ? {} : { error: s.error }) });
    }
  };
  const self: Tallies = {
    update() {
      const events: FeedEvent[] = feed.since(read);
      if (events.length > 0 && (events[0] as FeedEvent).seq > read + 1) missed = true;
      for (const e of events) if (e.kind === 'end') add(e.summary);
      read = feed.last();
      return self;
    },
    secrets: () => secrets,
    detections: () => detections,
    withheld: () => [...withheld.values()].sort((a, b) => b.last - a.last),
    providers: () => [...providers.values()].sort((a, b) => a.provider.localeCompare(b.provider)),
    missed: () => missed,
  };
  return self;
}
