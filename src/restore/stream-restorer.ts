// Streaming restore over events, whatever the framing (framing.ts: SSE, NDJSON, streamed JSON array).
// Regions without a placeholder byte pass through as the same bytes while nothing is held; only
// events that may hold a placeholder are read, and they are rewritten by byte surgery: only a
// placeholder's bytes change, each replaced by its value escaped for the exact string depth it sits at.
//
// Seams: the adapter (src/providers/types.ts) declares per event the delta fields that continue a
// stream across events (with the tool call they belong to), the streams an event opens, the whole
// copies it carries, and where streams end. Each delta stream keeps a lexer over its content from its
// first byte (delta-stream.ts), so a placeholder split across events is restored exactly once and at
// the depth a whole copy of the same text gives it. Held bytes of a split placeholder are cut from one
// event's string and put in front of the continuation in the next (or, at the stream's end, in an
// event shaped like its last delta). A RestoreSink (restore-sink.ts) may hold or replace what a
// stream emits; a DeltaFilter strips per-stream content first (watermark frames).

import { getPath, type CopyField, type DeltaField, type StreamAdapter, type StreamOpen } from '../providers/types.ts';
import { PLACEHOLDER_FIRST_BYTE, PLACEHOLDER_LENGTH, probePlaceholder } from '../redact/placeholder.ts';
import { bump } from '../redact/replace.ts';
import type { SecretSet } from '../redact/secret-set.ts';
import type { ChunkTransform } from './body-restorer.ts';
import { createDeltaStream, flushDelta, hasPending, isSettled, noteTool, restoreDelta, type DeltaContext, type DeltaFilter, type DeltaStream } from './delta-stream.ts';
import { scanEvent, watch, type WatchedString } from './event-scan.ts';
import { EventShapes } from './event-shape.ts';
import { applyEdits, type Edit, type FramedEvent, type Framing } from './framing.ts';
import type { RestoreStats } from './restore-bytes.ts';
import { RESTORE_ALL, type RestoreSink } from './restore-sink.ts';
import { Backlog } from './stream-backlog.ts';

export interface StreamRestorerOptions {
  /** Creates one filter per delta stream; it may hold bytes back across events. */
  deltaFilter?: () => DeltaFilter;
  /** With a delta filter: true when bytes may need it (otherwise only `~` makes an event read). */
  deltaFilterNeeded?: (bytes: Buffer) => boolean;
  /** Decides what restored delta streams emit (default: everything, at once). */
  sink?: RestoreSink;
}

type Ends = (key: string) => boolean;

/** A restorer for an event stream in the adapter's wire format, cut into events by `framing`. */
export function createStreamRestorer(set: SecretSet, adapter: StreamAdapter, stats: RestoreStats, framing: Framing, options: StreamRestorerOptions = {}): ChunkTransform {
  const streams = new Map<string, DeltaStream>();
  const needsFilter = options.deltaFilterNeeded ?? ((): boolean => false);
  const ctx: DeltaContext = { set, stats, sink: options.sink ?? RESTORE_ALL, filter: options.deltaFilter, filterNeeded: needsFilter };
  const keepsStreams = adapter.streams !== false;
  let pendingStreams = 0;

  const streamFor = (key: string, json: boolean, tool: DeltaField['tool']): DeltaStream => {
    let s = streams.get(key);
    if (s === undefined) {
      s = createDeltaStream(key, json, tool);
      streams.set(key, s);
    } else noteTool(s, tool);
    return s;
  };
  const endStreams = (pred: Ends): void => {
    for (const key of [...streams.keys()]) if (pred(key)) streams.delete(key);
  };
  const countPending = (): void => {
    pendingStreams = 0;
    for (const s of streams.values()) if (hasPending(s)) pendingStreams++;
  };

  const shapes = new EventShapes();
  let parsedDeltas = 0;
  /** Another of a run of look-alike deltas of a known stream, accounted without a parse (event-shape.ts): its end, or -1. */
  const skip = (region: Buffer, at: number): number => {
    const m = shapes.matchAt(region, at);
    const known = m === undefined ? undefined : streams.get(m.key);
    if (m === undefined || known === undefined) return -1;
    if (!isSettled(known)) known.text.advance(region, m.start, m.end);
    return m.eventEnd;
  };
  /** Brings stream states up to date with an event that passed unread (in stream order). */
  const account = (block: Buffer): void => {
    const ev = framing.read(block);
    if (ev.data === undefined) return;
    const text = ev.data.toString('utf8');
    const obj = parseObject(text);
    if (obj === undefined) {
      const ends = adapter.ends(ev.name, undefined, text);
      if (ends !== undefined) endStreams(ends);
      return;
    }
    const opens = adapter.opens?.(ev.name, obj) ?? NO_OPENS;
    for (const o of opens) streamFor(o.key, o.json, o.tool);
    const fields = adapter.deltas(ev.name, obj);
    for (const f of fields) {
      const s = streamFor(f.key, f.json, f.tool);
      const value = getPath(obj, f.path);
      if (!isSettled(s) && typeof value === 'string') s.text.feedContent(value);
    }
    const ends = adapter.ends(ev.name, obj, text);
    if (ends !== undefined) endStreams(ends);
    // Learning a shape costs a scan: worth it once a run of deltas is being read, not for the first few.
    else if (fields.length === 1 && opens.length === 0 && ++parsedDeltas > SHAPE_AFTER && ev.data.buffer === block.buffer) learnShape(block, ev.data, fields[0] as DeltaField);
  };
  /** Remembers a plain one-delta event's bytes around its delta string. */
  const learnShape = (block: Buffer, data: Buffer, field: DeltaField): void => {
    const w = watch(field.path, true);
    scanEvent(data, true, [w]);
    if (w.start === -1 || w.duplicate) return;
    const at = data.byteOffset - block.byteOffset;
    shapes.learn(block, at + w.start, at + w.end, field.key);
  };
  const backlog = new Backlog(framing, account, endStreams, skip);

  /** Bytes that can pass on unread: nothing held, no placeholder byte, nothing for the filter. */
  const untouched = (bytes: Buffer): boolean => pendingStreams === 0 && bytes.indexOf(PLACEHOLDER_FIRST_BYTE) === -1 && !needsFilter(bytes);
  const passUnread = (bytes: Buffer, out: Buffer[]): void => {
    if (keepsStreams) backlog.keep(bytes);
    out.push(bytes);
  };

  /** Sends what an ended stream still holds, in an event shaped like its last delta. */
  const flushStream = (s: DeltaStream, out: Buffer[]): void => {
    const bytes = flushDelta(ctx, s);
    const t = s.template;
    if (bytes.length === 0 || t === undefined) return;
    const edits: Edit[] = [...t.edits, { start: t.start, end: t.end, bytes }, ...t.others.map(([start, end]) => ({ start, end, bytes: EMPTY }))];
    out.push(t.event.rewrite(edits.sort(byStart)));
  };
  const applyEnds = (ends: Ends, inEvent: ReadonlySet<string>, out: Buffer[]): void => {
    for (const s of streams.values()) if (!inEvent.has(s.key) && ends(s.key) && hasPending(s)) flushStream(s, out);
    endStreams(ends);
    backlog.mark(ends);
  };

  const processEvent = (block: Buffer, out: Buffer[], final: boolean): void => {
    if (!final && untouched(block)) return passUnread(block, out);
    const ev = framing.read(block);
    if (ev.data === undefined) {
      out.push(block);
      return;
    }
    const text = ev.data.toString('utf8');
    const obj = parseObject(text);
    if (obj === undefined) {
      const ends = adapter.ends(ev.name, undefined, text);
      if (ends !== undefined) applyEnds(ends, NONE, out);
      out.push(rewriteWhole(ev, ev.data, false));
      return;
    }
    const fields = adapter.deltas(ev.name, obj);
    const opens = adapter.opens?.(ev.name, obj) ?? [];
    const copies = ctx.sink === RESTORE_ALL ? NO_COPIES : (adapter.copies?.(ev.name, obj) ?? NO_COPIES);
    // Streams this event changes must be up to date with the events that passed unread before it.
    if (!backlog.empty && !(fields.every((f) => settled(f.key)) && opens.every((o) => settled(o.key)))) {
      backlog.drainUntil(() => fields.every((f) => settled(f.key)) && opens.every((o) => settled(o.key)));
    }
    for (const o of opens) streamFor(o.key, o.json, o.tool);
    const ends = adapter.ends(ev.name, obj, text);
    const watched = fields.map((f) => watch(f.path, true));
    const copyWatch = copies.map((c) => watch(c.path, false));
    const scan = scanEvent(ev.data, true, copyWatch.length === 0 ? watched : [...watched, ...copyWatch]);
    if (watched.some((w) => w.duplicate || w.start === -1)) {
      // Duplicate keys (or a field the lexer did not find): which bytes a client reads is unclear, and
      // the streams have missed content. Fail closed: nothing in this event or in those streams is restored.
      for (const f of fields) streamFor(f.key, f.json, f.tool).poisoned = true;
      if (ends !== undefined) applyEnds(ends, NONE, out);
      for (let i = ev.data.indexOf(PLACEHOLDER_FIRST_BYTE); i !== -1; i = ev.data.indexOf(PLACEHOLDER_FIRST_BYTE, i + 1)) {
        if (probePlaceholder(ev.data, i, ev.data.length).kind !== 'none') stats.misses++;
      }
      out.push(block);
      return;
    }
    const edits = placeholderEdits(set, framing, ev.data, scan.tildes, scan.depths, stats);
    const copyEdits = copies.length === 0 ? edits : groupCopies(ev.data, edits, copies, copyWatch);
    const deltaEdits: Edit[] = [];
    const inEvent = ends === undefined ? NONE : new Set(fields.map((f) => f.key));
    fields.forEach((f, i) => {
      const w = watched[i] as WatchedString;
      const s = streamFor(f.key, f.json, f.tool);
      const raw = ev.data!.subarray(w.start, w.end);
      const emit = restoreDelta(ctx, s, raw, final || (ends !== undefined && ends(f.key)));
      if (emit !== raw) deltaEdits.push({ start: w.start, end: w.end, bytes: emit });
    });
    // Remember this event as the shape to send held bytes in, for streams that hold some.
    fields.forEach((f, i) => {
      const s = streams.get(f.key);
      if (s === undefined || !hasPending(s)) return;
      const w = watched[i] as WatchedString;
      const others = watched.filter((o) => o !== w).map((o): [number, number] => [o.start, o.end]);
      s.template = { event: ev, start: w.start, end: w.end, others, edits: copyEdits };
    });
    if (ends !== undefined) applyEnds(ends, inEvent, out);
    const all = deltaEdits.length === 0 ? copyEdits : [...copyEdits, ...deltaEdits].sort(byStart);
    out.push(all.length === 0 ? block : ev.rewrite(all));
  };

  /** Restores whole placeholders anywhere in the data (no delta semantics). */
  const rewriteWhole = (ev: FramedEvent, data: Buffer, json: boolean): Buffer => {
    const scan = scanEvent(data, json, NO_WATCH);
    return ev.rewrite(placeholderEdits(set, framing, data, scan.tildes, scan.depths, stats));
  };

  /** Folds the edits inside each copy into one edit of the whole copy, as the sink decides. */
  const groupCopies = (data: Buffer, edits: readonly Edit[], copies: readonly CopyField[], watched: readonly WatchedString[]): Edit[] => {
    const out: Edit[] = [];
    let k = 0;
    const spans = copies
      .map((c, i) => ({ c, w: watched[i] as WatchedString }))
      .filter(({ w }) => w.start !== -1 && !w.duplicate)
      .sort((a, b) => a.w.start - b.w.start);
    for (const { c, w } of spans) {
      while (k < edits.length && (edits[k] as Edit).start < w.start) out.push(edits[k++] as Edit);
      const inside: Edit[] = [];
      while (k < edits.length && (edits[k] as Edit).start < w.end) inside.push(edits[k++] as Edit);
      const original = data.subarray(w.start, w.end);
      const restored = applyEdits(original, inside, -w.start);
      const info = streams.get(c.key) ?? { key: c.key, json: c.json, tool: c.tool };
      const bytes = ctx.sink.copy(info, original, restored);
      if (bytes !== original) out.push({ start: w.start, end: w.end, bytes });
    }
    while (k < edits.length) out.push(edits[k++] as Edit);
    return out;
  };

  const settled = (key: string): boolean => {
    const s = streams.get(key);
    return s !== undefined && isSettled(s);
  };

  const processRegion = (region: Buffer, out: Buffer[]): void => {
    if (untouched(region)) return passUnread(region, out);
    const filtering = needsFilter(region);
    let pos = 0;
    while (pos < region.length) {
      // Only `~`, held bytes and filter work make an event worth reading: the events before the next
      // `~` pass through as one piece, unsplit.
      if (pendingStreams === 0 && !filtering) {
        const tilde = region.indexOf(PLACEHOLDER_FIRST_BYTE, pos);
        if (tilde === -1) {
          passUnread(pos === 0 ? region : region.subarray(pos), out);
          return;
        }
        const before = framing.lastEventEnd(region, pos, tilde);
        if (before > pos) {
          passUnread(region.subarray(pos, before), out);
          pos = before;
        }
      }
      const stop = framing.nextEventEnd(region, pos);
      processEvent(pos === 0 && stop === region.length ? region : region.subarray(pos, stop), out, false);
      countPending();
      pos = stop;
    }
  };

  return {
    push(chunk) {
      const out: Buffer[] = [];
      for (const region of framing.push(chunk)) processRegion(region, out);
      return out;
    },
    end() {
      const out: Buffer[] = [];
      // Held bytes first, in events of their own; then whatever arrived of an unfinished event, as it came.
      for (const s of streams.values()) if (hasPending(s)) flushStream(s, out);
      const tail = framing.end();
      if (tail !== undefined) processEvent(tail, out, true);
      streams.clear();
      backlog.clear();
      pendingStreams = 0;
      return out;
    },
  };
}

/** Delta events read by parsing before their shapes are learned (a short read never pays for learning). */
const SHAPE_AFTER = 8;

const EMPTY = Buffer.alloc(0);
const NONE: ReadonlySet<string> = new Set();
const NO_WATCH: WatchedString[] = [];
const NO_COPIES: CopyField[] = [];
const NO_OPENS: StreamOpen[] = [];

function byStart(a: Edit, b: Edit): number {
  return a.start - b.start;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  // Only objects carry fields: anything else is text, without asking JSON.parse to fail on it.
  let i = 0;
  while (i < text.length && (text.charCodeAt(i) === 0x20 || text.charCodeAt(i) === 0x0a || text.charCodeAt(i) === 0x0d || text.charCodeAt(i) === 0x09)) i++;
  if (text.charCodeAt(i) !== 0x7b) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/**
 * Edits restoring each whole placeholder at `tildes` (depths from the scan; negative: unknown, not
 * restored). A raw value the framing cannot carry exactly stays a placeholder too (a miss).
 */
function placeholderEdits(set: SecretSet, framing: Framing, data: Buffer, tildes: readonly number[], depths: readonly number[], stats: RestoreStats): Edit[] {
  const edits: Edit[] = [];
  let after = 0;
  for (let k = 0; k < tildes.length; k++) {
    const i = tildes[k] as number;
    if (i < after) continue;
    const probe = probePlaceholder(data, i, data.length);
    if (probe.kind === 'mangled') stats.misses++;
    if (probe.kind !== 'full') continue;
    const secret = set.secretForId(probe.id);
    const depth = depths[k] as number;
    // Registered secrets are >= 0, detected ones <= -2, unknown -1 (SecretSet.secretForId).
    if (secret === -1 || depth < 0) {
      stats.misses++;
      continue;
    }
    const value = set.valueBytes(secret, depth);
    if (depth === 0 && !framing.carries(value)) {
      stats.misses++;
      continue;
    }
    edits.push({ start: i, end: i + PLACEHOLDER_LENGTH, bytes: value });
    bump(stats.restores, secret);
    after = i + PLACEHOLDER_LENGTH;
  }
  return edits;
}
