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
// event shaped like its last delta). A DeltaFilter strips per-stream content first (watermark frames).
//
// Tool calls under a RestoreSink (restore-sink.ts, DESIGN §10): a tool call's argument stream passes
// untouched until its first placeholder, then its events are held (tool-hold.ts) until the call
// completes, and every later event waits behind them so events leave in the order they came
// (event-queue.ts); whole calls in an event and whole-value copies of a call go to the sink as they are.

import { ALL_KEYS, getPath, type CopyField, type DeltaField, type StreamAdapter, type StreamOpen, type ToolCallInfo, type ToolCallSite } from '../providers/types.ts';
import { PLACEHOLDER_FIRST_BYTE, PLACEHOLDER_LENGTH, probePlaceholder } from '../redact/placeholder.ts';
import { bump } from '../redact/replace.ts';
import type { SecretSet } from '../redact/secret-set.ts';
import type { ChunkTransform } from './body-restorer.ts';
import { createDeltaStream, flushDelta, hasPending, isSettled, noteTool, restoreDelta, toolPiece, type DeltaContext, type DeltaFilter, type DeltaStream } from './delta-stream.ts';
import { EventQueue, heldEvent, type HeldEvent } from './event-queue.ts';
import { scanEvent, watch, type WatchedString } from './event-scan.ts';
import { EventShapes } from './event-shape.ts';
import { type Edit, type FramedEvent, type Framing } from './framing.ts';
import type { RestoreStats } from './restore-bytes.ts';
import { HELD_TOO_LARGE, RESTORE_ALL, type RestoreSink } from './restore-sink.ts';
import { Backlog } from './stream-backlog.ts';
import { ToolHold, type HoldContext } from './tool-hold.ts';

export interface StreamRestorerOptions {
  /** Creates one filter per delta stream; it may hold bytes back across events. */
  deltaFilter?: () => DeltaFilter;
  /** With a delta filter: true when bytes may need it (otherwise only `~` makes an event read). */
  deltaFilterNeeded?: (bytes: Buffer) => boolean;
  /** Decides tool calls (default: restored like any text). */
  sink?: RestoreSink;
  /** Most bytes of one held tool call, and of the events waiting behind held ones (limits.maxEventBytes). */
  maxHeldBytes?: number;
}

type Ends = (key: string) => boolean;

/** A restorer for an event stream in the adapter's wire format, cut into events by `framing`. */
export function createStreamRestorer(set: SecretSet, adapter: StreamAdapter, stats: RestoreStats, framing: Framing, options: StreamRestorerOptions = {}): ChunkTransform {
  const streams = new Map<string, DeltaStream>();
  const needsFilter = options.deltaFilterNeeded ?? ((): boolean => false);
  const ctx: DeltaContext = { set, stats, filter: options.deltaFilter, filterNeeded: needsFilter };
  const sink = options.sink ?? RESTORE_ALL;
  const limit = options.maxHeldBytes ?? Number.MAX_SAFE_INTEGER;
  const hctx: HoldContext = { sink, set, limit };
  const queue = new EventQueue();
  const keepsStreams = adapter.streams !== false;
  let pendingStreams = 0;

  const streamFor = (key: string, json: boolean, tool: DeltaField['tool']): DeltaStream => {
    let s = streams.get(key);
    if (s === undefined) {
      s = createDeltaStream(key, json, tool);
      if (tool !== undefined && sink.guarding) s.hold = new ToolHold(key, json ? 'json' : 'text', true);
      streams.set(key, s);
    } else {
      // Known as a tool call only now: whatever passed before is not in its copy.
      if (tool !== undefined && sink.guarding && s.hold === undefined) s.hold = new ToolHold(key, json ? 'json' : 'text', false);
      noteTool(s, tool);
    }
    return s;
  };
  const toolOf = (s: DeltaStream): ToolCallInfo => s.tool ?? NO_TOOL;
  /** Where streams end at an event: a document of its own ends every one. */
  const endsAt = (ev: FramedEvent, obj: Record<string, unknown> | undefined, text: string): Ends | undefined => (ev.whole === true ? ALL_KEYS : adapter.ends(ev.name, obj, text));
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
    const known = m === undefined ? undefined : streams.get(m.field.key);
    if (m === undefined || known === undefined) return -1;
    if (!isSettled(known)) known.text.advance(region, m.start, m.end);
    known.hold?.note(region.subarray(m.start, m.end), limit);
    return m.eventEnd;
  };
  /** Brings stream states up to date with an event that passed unread (in stream order). */
  const account = (block: Buffer): void => {
    const ev = framing.read(block);
    if (ev.data === undefined) return;
    const text = ev.data.toString('utf8');
    const obj = parseObject(text);
    if (obj === undefined) {
      const ends = endsAt(ev, undefined, text);
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
      // The same content re-escaped: what the decision reads is the decoded text, and held bytes come only after.
      if (s.hold !== undefined && typeof value === 'string') s.hold.note(Buffer.from(JSON.stringify(value).slice(1, -1), 'utf8'), limit);
    }
    const ends = endsAt(ev, obj, text);
    if (ends !== undefined) endStreams(ends);
    // Learning a shape costs a scan: worth it once a run of deltas is being read, not for the first few.
    else if (fields.length === 1 && opens.length === 0 && ++parsedDeltas > SHAPE_AFTER) learnShape(block, ev.data, fields[0] as DeltaField);
  };
  /** Remembers a plain one-delta event's bytes around its delta string. */
  const learnShape = (block: Buffer, data: Buffer, field: DeltaField): void => {
    const at = dataOffset(block, data);
    if (at === -1) return;
    const w = watch(field.path, true);
    if (scanEvent(data, true, [w]).tildes.length > 0 || w.start === -1 || w.duplicate) return;
    shapes.learn(block, at + w.start, at + w.end, field);
  };
  const backlog = new Backlog(framing, account, endStreams, skip);

  /** Bytes that can pass on unread: nothing held, no placeholder byte, nothing for the filter. */
  const untouched = (bytes: Buffer): boolean => pendingStreams === 0 && bytes.indexOf(PLACEHOLDER_FIRST_BYTE) === -1 && !needsFilter(bytes);
  const passUnread = (bytes: Buffer, out: Buffer[]): void => {
    if (keepsStreams) backlog.keep(bytes);
    queue.push(bytes, out);
  };
  /** Final bytes out, behind whatever is held; past the limit of waiting bytes, held calls fail closed. */
  const send = (bytes: Buffer, out: Buffer[]): void => {
    queue.push(bytes, out);
    if (queue.bytes > limit) failHeld(out);
  };
  const failHeld = (out: Buffer[]): void => {
    for (const s of streams.values()) if (s.hold?.holding === true) s.hold.fail(sink, toolOf(s), HELD_TOO_LARGE);
    queue.drain(out);
  };

  /** Sends what an ended stream still holds, in an event shaped like its last delta; a held call is decided (or failed, when not `complete`). */
  const flushStream = (s: DeltaStream, out: Buffer[], complete: boolean): void => {
    const bytes = flushDelta(ctx, s);
    const t = s.template;
    if (bytes.length > 0 && t !== undefined) {
      const others = t.others.map(([start, end]): Edit => ({ start, end, bytes: EMPTY }));
      if (t.event.separator !== undefined) others.push({ start: 0, end: 0, bytes: t.event.separator });
      const ev = heldEvent(t.event, [...t.edits, ...others]);
      const now = s.hold === undefined ? bytes : s.hold.piece(hctx, toolOf(s), bytes, ev, t.start, t.end);
      if (now !== undefined) ev.edits.push({ start: t.start, end: t.end, bytes: now });
      queue.pushEvent(ev, out);
    }
    s.hold?.end(hctx, toolOf(s), complete);
  };
  const applyEnds = (ends: Ends, inEvent: ReadonlySet<string>, out: Buffer[], complete: boolean): void => {
    for (const s of streams.values()) if (!inEvent.has(s.key) && ends(s.key) && hasPending(s)) flushStream(s, out, complete);
    endStreams(ends);
    backlog.mark(ends);
  };

  const processEvent = (block: Buffer, out: Buffer[], final: boolean): void => {
    if (!final && untouched(block)) return passUnread(block, out);
    if (!final && processShaped(block, out)) return;
    const ev = framing.read(block);
    if (ev.data === undefined) {
      send(block, out);
      return;
    }
    const text = ev.data.toString('utf8');
    const obj = parseObject(text);
    // An event that reports a failure, or the unfinished last bytes of a stream: no call it ends completed.
    if (obj === undefined) {
      const ends = endsAt(ev, undefined, text);
      if (ends !== undefined) applyEnds(ends, NONE, out, !final && adapter.fails?.(ev.name, undefined, text) !== true);
      send(rewriteWhole(ev, ev.data, false), out);
      return;
    }
    const complete = !final && adapter.fails?.(ev.name, obj, text) !== true;
    const fields = adapter.deltas(ev.name, obj);
    const opens = adapter.opens?.(ev.name, obj) ?? NO_OPENS;
    const copies = sink.guarding ? (adapter.copies?.(ev.name, obj) ?? NO_COPIES).filter((c) => c.tool !== undefined) : NO_COPIES;
    const sites = sink.guarding ? (adapter.calls?.(ev.name, obj) ?? NO_SITES) : NO_SITES;
    // Streams this event changes must be up to date with the events that passed unread before it.
    if (!backlog.empty && !(fields.every((f) => settled(f.key)) && opens.every((o) => settled(o.key)))) {
      backlog.drainUntil(() => fields.every((f) => settled(f.key)) && opens.every((o) => settled(o.key)));
    }
    for (const o of opens) streamFor(o.key, o.json, o.tool);
    const ends = endsAt(ev, obj, text);
    const watched = fields.map((f) => watch(f.path, true));
    // Tool-call arguments in the event (whole calls, copies of calls) are the sink's: kept out of the scan's `~`.
    // A copy or call whose arguments are an object (Gemini `args`, Ollama `arguments`) is found as one too.
    const callWatch = [...copies.map((c) => watch(c.path, true, true)), ...sites.map((c) => watch(c.path, true, true))];
    const scan = scanEvent(ev.data, true, callWatch.length === 0 ? watched : [...watched, ...callWatch]);
    if (watched.some((w) => w.duplicate || w.start === -1) || callWatch.some((w) => w.duplicate)) {
      // Duplicate keys (or a field the lexer did not find): which bytes a client reads is unclear, and
      // the streams have missed content. Fail closed: nothing in this event or in those streams is restored.
      for (const f of fields) {
        const s = streamFor(f.key, f.json, f.tool);
        s.poisoned = true;
        if (s.hold?.holding === true) s.hold.fail(sink, toolOf(s), HELD_TOO_LARGE);
      }
      if (ends !== undefined) applyEnds(ends, NONE, out, false);
      for (let i = ev.data.indexOf(PLACEHOLDER_FIRST_BYTE); i !== -1; i = ev.data.indexOf(PLACEHOLDER_FIRST_BYTE, i + 1)) {
        if (probePlaceholder(ev.data, i, ev.data.length).kind !== 'none') stats.misses++;
      }
      send(block, out);
      queue.drain(out);
      return;
    }
    const edits = placeholderEdits(set, framing, ev.data, scan.tildes, scan.depths, stats);
    const data = ev.data;
    const held = heldEvent(ev, edits);
    const inEvent = ends === undefined ? NONE : new Set(fields.map((f) => f.key));
    const done: DeltaStream[] = [];
    // An event may carry several pieces of one stream (Gemini parts), in order: only its last piece ends it.
    const lastPiece = fields.length < 2 ? undefined : new Map(fields.map((f, i) => [f.key, i]));
    fields.forEach((f, i) => {
      const w = watched[i] as WatchedString;
      const s = streamFor(f.key, f.json, f.tool);
      const last = (final || (ends !== undefined && ends(f.key))) && (lastPiece === undefined || lastPiece.get(f.key) === i);
      restoreField(s, data, w.start, w.end, held, last);
      if (last && s.hold !== undefined) done.push(s);
    });
    // Remember this event as the shape to send held bytes in, for streams that hold some.
    fields.forEach((f, i) => {
      const s = streams.get(f.key);
      if (s === undefined || s.held === undefined && !(s.filter !== undefined && s.filter.pending > 0)) return;
      const w = watched[i] as WatchedString;
      const others = watched.filter((o) => o !== w).map((o): [number, number] => [o.start, o.end]);
      s.template = { event: ev, start: w.start, end: w.end, others, edits: edits.filter((e) => !isFieldEdit(e, watched)) };
    });
    // Calls that end here are decided (their events held so far leave with this one), before the
    // copies this event carries, which are decided as their streams were.
    for (const s of done) s.hold?.end(hctx, toolOf(s), complete);
    if (ends !== undefined) applyEnds(ends, inEvent, out, complete);
    copies.forEach((c, i) => callEdits(data, callWatch[i] as WatchedString, { key: c.key, tool: c.tool ?? NO_TOOL, kind: c.json ? 'json' : 'text', copy: true }, held.edits));
    sites.forEach((c, i) => callEdits(data, callWatch[copies.length + i] as WatchedString, { key: c.key, tool: c.tool, kind: c.kind, copy: c.key !== undefined }, held.edits));
    if (held.open === 0 && held.edits.length === 0) send(block, out);
    else queue.pushEvent(held, out);
    queue.drain(out);
    // A plain one-delta event: the next ones of its shape are read without a parse (processShaped).
    if (!final && fields.length === 1 && opens.length === 0 && ends === undefined && copies.length === 0 && sites.length === 0 && scan.tildes.length === 0) {
      const at = dataOffset(block, data);
      const w = watched[0] as WatchedString;
      if (at !== -1) shapes.learn(block, at + w.start, at + w.end, fields[0] as DeltaField);
    }
  };

  /**
   * Reads an event of a learned shape (event-shape.ts: the bytes around its one delta string are those
   * of a parsed event that had no other field, stream open, end, copy, call or `~`): the same adapter
   * answers hold for it, so its string is restored as the parsed event's was, without a parse or a scan
   * for paths. Returns false, doing nothing, for any other event.
   */
  const processShaped = (block: Buffer, out: Buffer[]): boolean => {
    const m = shapes.matchAt(block, 0);
    if (m === undefined || m.eventEnd !== block.length) return false;
    const ev = framing.read(block);
    const data = ev.data;
    const at = data === undefined ? -1 : dataOffset(block, data);
    if (data === undefined || at === -1 || ev.whole === true) return false;
    const f = m.field;
    if (!backlog.empty && !settled(f.key)) backlog.drainUntil(() => settled(f.key));
    const s = streamFor(f.key, f.json, f.tool);
    const start = m.start - at;
    const end = m.end - at;
    const held = heldEvent(ev, []);
    restoreField(s, data, start, end, held, false);
    if (s.held !== undefined || (s.filter !== undefined && s.filter.pending > 0)) s.template = { event: ev, start, end, others: [], edits: [] };
    if (held.open === 0 && held.edits.length === 0) send(block, out);
    else queue.pushEvent(held, out);
    queue.drain(out);
    return true;
  };

  /** One event's piece data[start, end) of stream `s`: restored, or handed to the stream's held tool call; its edit joins the event's. */
  const restoreField = (s: DeltaStream, data: Buffer, start: number, end: number, held: HeldEvent, last: boolean): void => {
    const raw = data.subarray(start, end);
    if (s.hold === undefined) {
      const emit = restoreDelta(ctx, s, raw, last);
      if (emit !== raw) held.edits.push({ start, end, bytes: emit });
      return;
    }
    const now = s.hold.piece(hctx, toolOf(s), toolPiece(ctx, s, raw, last), held, start, end);
    if (now !== undefined && now !== raw) held.edits.push({ start, end, bytes: now });
  };

  /** Hands a tool call found whole in the event to the sink; its edits join the event's. */
  const callEdits = (data: Buffer, w: WatchedString, call: { key: string | undefined; tool: ToolCallInfo; kind: 'json' | 'text'; copy: boolean }, edits: Edit[]): void => {
    if (w.start === -1) return;
    const raw = data.subarray(w.start, w.end);
    const tool = call.key === undefined ? call.tool : { ...streams.get(call.key)?.tool, ...call.tool };
    for (const e of sink.decide({ ...call, tool, raw, depth: w.isString ? 1 : 0 })) edits.push({ start: e.start + w.start, end: e.end + w.start, bytes: e.bytes });
  };

  /** Restores whole placeholders anywhere in the data (no delta semantics). */
  const rewriteWhole = (ev: FramedEvent, data: Buffer, json: boolean): Buffer => {
    const scan = scanEvent(data, json, NO_WATCH);
    return ev.rewrite(placeholderEdits(set, framing, data, scan.tildes, scan.depths, stats));
  };

  const settled = (key: string): boolean => {
    const s = streams.get(key);
    // A tool call's copy needs every byte: its stream is never settled.
    return s !== undefined && s.hold === undefined && isSettled(s);
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
      // Held bytes first, in events of their own; then whatever arrived of an unfinished event, as it
      // came. A tool call still open here did not complete: it fails closed.
      for (const s of streams.values()) if (hasPending(s)) flushStream(s, out, false);
      queue.drain(out);
      const tail = framing.end();
      if (tail !== undefined) processEvent(tail, out, true);
      for (const s of streams.values()) if (s.hold?.holding === true) s.hold.end(hctx, toolOf(s), false);
      queue.drain(out);
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
const NO_SITES: ToolCallSite[] = [];
const NO_TOOL: ToolCallInfo = {};

/** Where `data` starts in `block` when it is a run of the block's own bytes (one SSE data line, an NDJSON line), else -1. */
function dataOffset(block: Buffer, data: Buffer): number {
  const at = data.byteOffset - block.byteOffset;
  // Same ArrayBuffer alone is not enough: a copy (data lines joined) may come from the same pool slab.
  return data.buffer === block.buffer && at >= 0 && at + data.length <= block.length ? at : -1;
}

/** True when `e` replaces (part of) a delta field's content. */
function isFieldEdit(e: Edit, watched: readonly WatchedString[]): boolean {
  return watched.some((w) => e.start >= w.start && e.end <= w.end);
}

/** The data as a JSON object, or undefined (anything else is text). */
export function parseObject(text: string): Record<string, unknown> | undefined {
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
export function placeholderEdits(set: SecretSet, framing: Pick<Framing, 'carries'>, data: Buffer, tildes: readonly number[], depths: readonly number[], stats: RestoreStats): Edit[] {
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
