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

import { getPath, type CopyField, type DeltaField, type StreamAdapter, type StreamOpen, type ToolCallInfo, type ToolCallSite } from '../providers/types.ts';
import { PLACEHOLDER_FIRST_BYTE, PLACEHOLDER_LENGTH, probePlaceholder } from '../redact/placeholder.ts';
import { bump } from '../redact/replace.ts';
import type { SecretSet } from '../redact/secret-set.ts';
import type { ChunkTransform } from './body-restorer.ts';
import { createDeltaStream, flushDelta, hasPending, isSettled, noteTool, restoreDelta, toolPiece, type DeltaContext, type DeltaFilter, type DeltaStream } from './delta-stream.ts';
import { EventQueue, heldEvent } from './event-queue.ts';
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
      // The same content re-escaped: what the decision reads is the decoded text, and held bytes come only after.
      if (s.hold !== undefined && typeof value === 'string') s.hold.note(Buffer.from(JSON.stringify(value).slice(1, -1), 'utf8'), limit);
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
    const ev = framing.read(block);
    if (ev.data === undefined) {
      send(block, out);
      return;
    }
    const text = ev.data.toString('utf8');
    const obj = parseObject(text);
    // An event that reports a failure, or the unfinished last bytes of a stream: no call it ends completed.
    if (obj === undefined) {
      const ends = adapter.ends(ev.name, undefined, text);
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
    const ends = adapter.ends(ev.name, obj, text);
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
    fields.forEach((f, i) => {
      const w = watched[i] as WatchedString;
      const s = streamFor(f.key, f.json, f.tool);
      const raw = data.subarray(w.start, w.end);
      const last = final || (ends !== undefined && ends(f.key));
      if (s.hold === undefined) {
        const emit = restoreDelta(ctx, s, raw, last);
        if (emit !== raw) held.edits.push({ start: w.start, end: w.end, bytes: emit });
      } else {
        const now = s.hold.piece(hctx, toolOf(s), toolPiece(ctx, s, raw, last), held, w.start, w.end);
        if (now !== undefined && now !== raw) held.edits.push({ start: w.start, end: w.end, bytes: now });
        if (last) done.push(s);
      }
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
