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
import { PLACEHOLDER_FIRST_BYTE, probePlaceholder } from '../redact/placeholder.ts';
import type { SecretSet } from '../redact/secret-set.ts';
import type { ChunkTransform } from './body-restorer.ts';
import { createDeltaStream, flushDelta, hasPending, isSettled, noteTool, restorePiece, type DeltaContext, type DeltaFilter, type DeltaStream } from './delta-stream.ts';
import { EventQueue, heldEvent } from './event-queue.ts';
import { scanEvent, watch, type WatchedString } from './event-scan.ts';
import { EventShapes } from './event-shape.ts';
import { dataOffset, type Edit, type FramedEvent, type Framing } from './framing.ts';
import { parseObject, placeholderEdits } from './placeholder-edits.ts';
import type { RestoreStats } from './restore-bytes.ts';
import { HELD_TOO_LARGE, RESTORE_ALL, type RestoreSink } from './restore-sink.ts';
import { Backlog, type BacklogReader } from './stream-backlog.ts';
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
  return new StreamRestorer(set, adapter, stats, framing, options);
}

/**
 * The stream restorer. A class, not a factory of closures: one is created per response, and a closure
 * per helper cost more than a short response's restore under tsx (keepNames names each one).
 */
class StreamRestorer implements ChunkTransform, BacklogReader {
  private readonly streams = new Map<string, DeltaStream>();
  private readonly needsFilter: (bytes: Buffer) => boolean;
  private readonly ctx: DeltaContext;
  private readonly sink: RestoreSink;
  private readonly limit: number;
  private readonly hctx: HoldContext;
  private readonly queue = new EventQueue();
  private readonly keepsStreams: boolean;
  private pendingStreams = 0;
  private readonly shapes = new EventShapes();
  private parsedDeltas = 0;
  private readonly backlog: Backlog;

  constructor(
    private readonly set: SecretSet,
    private readonly adapter: StreamAdapter,
    private readonly stats: RestoreStats,
    private readonly framing: Framing,
    options: StreamRestorerOptions,
  ) {
    this.needsFilter = options.deltaFilterNeeded ?? NEVER;
    this.ctx = { set, stats, filter: options.deltaFilter, filterNeeded: this.needsFilter };
    this.sink = options.sink ?? RESTORE_ALL;
    this.limit = options.maxHeldBytes ?? Number.MAX_SAFE_INTEGER;
    this.hctx = { sink: this.sink, set, limit: this.limit };
    this.keepsStreams = adapter.streams !== false;
    this.backlog = new Backlog(framing, this);
  }

  private streamFor(key: string, json: boolean, tool: DeltaField['tool'], withhold?: string): DeltaStream {
    let s = this.streams.get(key);
    if (s === undefined) {
      s = createDeltaStream(key, json, tool);
      if (tool !== undefined && this.sink.guarding) s.hold = new ToolHold(key, json ? 'json' : 'text', true);
      this.streams.set(key, s);
    } else {
      // Known as a tool call only now: whatever passed before is not in its copy.
      if (tool !== undefined && this.sink.guarding && s.hold === undefined) s.hold = new ToolHold(key, json ? 'json' : 'text', false);
      noteTool(s, tool);
    }
    // A part of a call that is never decided from its stream: closed from the start, its placeholders stay.
    if (withhold !== undefined && s.hold !== undefined && !s.hold.closed) s.hold.fail(this.sink, this.toolOf(s), withhold);
    return s;
  }
  private streamOf(f: DeltaField): DeltaStream {
    return this.streamFor(f.key, f.json, f.tool, f.withhold);
  }
  private toolOf(s: DeltaStream): ToolCallInfo {
    return s.tool ?? NO_TOOL;
  }
  /** Where streams end at an event: a document of its own ends every one. */
  private endsAt(ev: FramedEvent, obj: Record<string, unknown> | undefined, text: string): Ends | undefined {
    return ev.whole === true ? ALL_KEYS : this.adapter.ends(ev.name, obj, text);
  }
  endStreams(pred: Ends): void {
    for (const key of [...this.streams.keys()]) if (pred(key)) this.streams.delete(key);
  }
  private countPending(): void {
    this.pendingStreams = 0;
    for (const s of this.streams.values()) if (hasPending(s)) this.pendingStreams++;
  }

  /** Another of a run of look-alike deltas of a known stream, accounted without a parse (event-shape.ts): its end, or -1. */
  skip(region: Buffer, at: number): number {
    const m = this.shapes.matchAt(region, at);
    const known = m === undefined ? undefined : this.streams.get(m.field.key);
    if (m === undefined || known === undefined) return -1;
    if (!isSettled(known)) known.text.advance(region, m.start, m.end);
    known.hold?.note(region.subarray(m.start, m.end), this.limit);
    return m.eventEnd;
  }
  /** Brings stream states up to date with an event that passed unread (in stream order). */
  account(block: Buffer): void {
    const ev = this.framing.read(block);
    if (ev.data === undefined) return;
    const text = ev.data.toString('utf8');
    const obj = parseObject(text);
    if (obj === undefined) {
      const ends = this.endsAt(ev, undefined, text);
      if (ends !== undefined) this.endStreams(ends);
      return;
    }
    const opens = this.adapter.opens?.(ev.name, obj) ?? NO_OPENS;
    for (const o of opens) this.streamFor(o.key, o.json, o.tool);
    const fields = this.adapter.deltas(ev.name, obj);
    for (const f of fields) {
      const s = this.streamOf(f);
      const value = getPath(obj, f.path);
      if (!isSettled(s) && typeof value === 'string') s.text.feedContent(value);
      // The same content re-escaped: what the decision reads is the decoded text, and held bytes come only after.
      if (s.hold !== undefined && typeof value === 'string') s.hold.note(Buffer.from(JSON.stringify(value).slice(1, -1), 'utf8'), this.limit);
    }
    const ends = this.endsAt(ev, obj, text);
    if (ends !== undefined) this.endStreams(ends);
    // Learning a shape costs a scan: worth it once a run of deltas is being read, not for the first few.
    else if (fields.length === 1 && opens.length === 0 && ++this.parsedDeltas > SHAPE_AFTER) this.learnShape(block, ev.data, fields[0] as DeltaField);
  }
  /** Remembers a plain one-delta event's bytes around its delta string. */
  private learnShape(block: Buffer, data: Buffer, field: DeltaField): void {
    const at = dataOffset(block, data);
    if (at === -1) return;
    const w = watch(field.path, true);
    if (scanEvent(data, true, [w]).tildes.length > 0 || w.start === -1 || w.duplicate) return;
    this.shapes.learn(block, at + w.start, at + w.end, field);
  }

  /** Bytes that can pass on unread: nothing held, no placeholder byte, nothing for the filter. */
  private untouched(bytes: Buffer): boolean {
    return this.pendingStreams === 0 && bytes.indexOf(PLACEHOLDER_FIRST_BYTE) === -1 && !this.needsFilter(bytes);
  }
  private passUnread(bytes: Buffer, out: Buffer[]): void {
    if (this.keepsStreams) this.backlog.keep(bytes);
    this.queue.push(bytes, out);
  }
  /** Final bytes out, behind whatever is held; past the limit of waiting bytes, held calls fail closed. */
  private send(bytes: Buffer, out: Buffer[]): void {
    this.queue.push(bytes, out);
    if (this.queue.bytes > this.limit) this.failHeld(out);
  }
  private failHeld(out: Buffer[]): void {
    for (const s of this.streams.values()) if (s.hold?.holding === true) s.hold.fail(this.sink, this.toolOf(s), HELD_TOO_LARGE);
    this.queue.drain(out);
  }

  /** Sends what an ended stream still holds, in an event shaped like its last delta; a held call is decided (or failed, when not `complete`). */
  private flushStream(s: DeltaStream, out: Buffer[], complete: boolean): void {
    const bytes = flushDelta(this.ctx, s);
    const t = s.template;
    if (bytes.length > 0 && t !== undefined) {
      const others = t.others.map(([start, end]): Edit => ({ start, end, bytes: EMPTY }));
      if (t.event.separator !== undefined) others.push({ start: 0, end: 0, bytes: t.event.separator });
      const ev = heldEvent(t.event, [...t.edits, ...others]);
      const now = s.hold === undefined ? bytes : s.hold.piece(this.hctx, this.toolOf(s), bytes, ev, t.start, t.end);
      if (now !== undefined) ev.edits.push({ start: t.start, end: t.end, bytes: now });
      this.queue.pushEvent(ev, out);
    }
    s.hold?.end(this.hctx, this.toolOf(s), complete);
  }
  private applyEnds(ends: Ends, inEvent: ReadonlySet<string>, out: Buffer[], complete: boolean): void {
    for (const s of this.streams.values()) if (!inEvent.has(s.key) && ends(s.key) && hasPending(s)) this.flushStream(s, out, complete);
    this.endStreams(ends);
    this.backlog.mark(ends);
  }

  private processEvent(block: Buffer, out: Buffer[], final: boolean): void {
    if (!final && this.processShaped(block, out)) return;
    const ev = this.framing.read(block);
    if (ev.data === undefined) {
      this.send(block, out);
      return;
    }
    const text = ev.data.toString('utf8');
    const obj = parseObject(text);
    // An event that reports a failure, or the unfinished last bytes of a stream: no call it ends completed.
    if (obj === undefined) {
      const ends = this.endsAt(ev, undefined, text);
      if (ends !== undefined) this.applyEnds(ends, NONE, out, !final && this.adapter.fails?.(ev.name, undefined, text) !== true);
      this.send(this.rewriteWhole(ev, ev.data, false), out);
      return;
    }
    const complete = !final && this.adapter.fails?.(ev.name, obj, text) !== true;
    const fields = this.adapter.deltas(ev.name, obj);
    const opens = this.adapter.opens?.(ev.name, obj) ?? NO_OPENS;
    const copies = this.sink.guarding ? (this.adapter.copies?.(ev.name, obj) ?? NO_COPIES).filter((c) => c.tool !== undefined) : NO_COPIES;
    const sites = this.sink.guarding ? (this.adapter.calls?.(ev.name, obj) ?? NO_SITES) : NO_SITES;
    // Streams this event changes must be up to date with the events that passed unread before it.
    if (!this.backlog.empty && !(fields.every((f) => this.settled(f.key)) && opens.every((o) => this.settled(o.key)))) {
      this.backlog.drainUntil(() => fields.every((f) => this.settled(f.key)) && opens.every((o) => this.settled(o.key)));
    }
    for (const o of opens) this.streamFor(o.key, o.json, o.tool);
    const ends = this.endsAt(ev, obj, text);
    const watched = fields.map((f) => watch(f.path, true));
    // Tool-call arguments in the event (whole calls, copies of calls) are the sink's: kept out of the scan's `~`.
    // A copy or call whose arguments are an object (Gemini `args`, Ollama `arguments`) is found as one too.
    const callWatch = [...copies.map((c) => watch(c.path, true, true)), ...sites.map((c) => watch(c.path, true, true))];
    const scan = scanEvent(ev.data, true, callWatch.length === 0 ? watched : [...watched, ...callWatch]);
    if (watched.some((w) => w.duplicate || w.start === -1) || callWatch.some((w) => w.duplicate)) {
      // Duplicate keys (or a field the lexer did not find): which bytes a client reads is unclear, and
      // the streams have missed content. Fail closed: nothing in this event or in those streams is restored.
      for (const f of fields) {
        const s = this.streamOf(f);
        s.poisoned = true;
        if (s.hold?.holding === true) s.hold.fail(this.sink, this.toolOf(s), HELD_TOO_LARGE);
      }
      if (ends !== undefined) this.applyEnds(ends, NONE, out, false);
      for (let i = ev.data.indexOf(PLACEHOLDER_FIRST_BYTE); i !== -1; i = ev.data.indexOf(PLACEHOLDER_FIRST_BYTE, i + 1)) {
        if (probePlaceholder(ev.data, i, ev.data.length).kind !== 'none') this.stats.misses++;
      }
      this.send(block, out);
      this.queue.drain(out);
      return;
    }
    const edits = placeholderEdits(this.set, this.framing, ev.data, scan.tildes, scan.depths, this.stats);
    const data = ev.data;
    const held = heldEvent(ev, edits);
    const inEvent = ends === undefined ? NONE : new Set(fields.map((f) => f.key));
    const done: DeltaStream[] = [];
    // An event may carry several pieces of one stream (Gemini parts), in order: only its last piece ends it.
    const lastPiece = fields.length < 2 ? undefined : new Map(fields.map((f, i) => [f.key, i]));
    fields.forEach((f, i) => {
      const w = watched[i] as WatchedString;
      const s = this.streamOf(f);
      const last = (final || (ends !== undefined && ends(f.key))) && (lastPiece === undefined || lastPiece.get(f.key) === i);
      restorePiece(this.ctx, this.hctx, s, data, w.start, w.end, held, last);
      if (last && s.hold !== undefined) done.push(s);
    });
    // Remember this event as the shape to send held bytes in, for streams that hold some.
    fields.forEach((f, i) => {
      const s = this.streams.get(f.key);
      if (s === undefined || s.held === undefined && !(s.filter !== undefined && s.filter.pending > 0)) return;
      const w = watched[i] as WatchedString;
      const others = watched.filter((o) => o !== w).map((o): [number, number] => [o.start, o.end]);
      s.template = { event: ev, start: w.start, end: w.end, others, edits: edits.filter((e) => !isFieldEdit(e, watched)) };
    });
    // Calls that end here are decided (their events held so far leave with this one), before the
    // copies this event carries, which are decided as their streams were.
    for (const s of done) s.hold?.end(this.hctx, this.toolOf(s), complete);
    if (ends !== undefined) this.applyEnds(ends, inEvent, out, complete);
    copies.forEach((c, i) => this.callEdits(data, callWatch[i] as WatchedString, { key: c.key, tool: c.tool ?? NO_TOOL, kind: c.json ? 'json' : 'text', copy: true }, held.edits));
    sites.forEach((c, i) => this.callEdits(data, callWatch[copies.length + i] as WatchedString, { key: c.key, tool: c.tool, kind: c.kind, copy: c.key !== undefined, withhold: c.withhold }, held.edits));
    if (held.open === 0 && held.edits.length === 0) this.send(block, out);
    else this.queue.pushEvent(held, out);
    this.queue.drain(out);
    // A plain one-delta event: the next ones of its shape are read without a parse (processShaped).
    if (!final && fields.length === 1 && opens.length === 0 && ends === undefined && copies.length === 0 && sites.length === 0 && scan.tildes.length === 0) {
      const at = dataOffset(block, data);
      const w = watched[0] as WatchedString;
      if (at !== -1) this.shapes.learn(block, at + w.start, at + w.end, fields[0] as DeltaField);
    }
  }

  /**
   * Reads an event of a learned shape (event-shape.ts: the bytes around its one delta string are those
   * of a parsed event that had no other field, stream open, end, copy, call or `~`): the same adapter
   * answers hold for it, so its string is restored as the parsed event's was, without a parse or a scan
   * for paths. Returns false, doing nothing, for any other event.
   */
  private processShaped(block: Buffer, out: Buffer[]): boolean {
    const m = this.shapes.matchAt(block, 0);
    if (m === undefined || m.eventEnd !== block.length) return false;
    const ev = this.framing.read(block);
    const data = ev.data;
    const at = data === undefined ? -1 : dataOffset(block, data);
    if (data === undefined || at === -1 || ev.whole === true) return false;
    const f = m.field;
    if (!this.backlog.empty && !this.settled(f.key)) this.backlog.drainUntil(() => this.settled(f.key));
    const s = this.streamOf(f);
    const start = m.start - at;
    const end = m.end - at;
    const held = heldEvent(ev, []);
    restorePiece(this.ctx, this.hctx, s, data, start, end, held, false);
    if (s.held !== undefined || (s.filter !== undefined && s.filter.pending > 0)) s.template = { event: ev, start, end, others: [], edits: [] };
    if (held.open === 0 && held.edits.length === 0) this.send(block, out);
    else this.queue.pushEvent(held, out);
    this.queue.drain(out);
    return true;
  }

  /** Hands a tool call found whole in the event to the sink; its edits join the event's. */
  private callEdits(data: Buffer, w: WatchedString, call: { key: string | undefined; tool: ToolCallInfo; kind: 'json' | 'text'; copy: boolean; withhold?: string | undefined }, edits: Edit[]): void {
    if (w.start === -1) return;
    const raw = data.subarray(w.start, w.end);
    const tool = call.key === undefined ? call.tool : { ...this.streams.get(call.key)?.tool, ...call.tool };
    if (call.withhold !== undefined) {
      this.sink.withhold({ ...call, tool, raw, depth: w.isString ? 1 : 0 }, call.withhold);
      return;
    }
    for (const e of this.sink.decide({ ...call, tool, raw, depth: w.isString ? 1 : 0 })) edits.push({ start: e.start + w.start, end: e.end + w.start, bytes: e.bytes });
  }

  /** Restores whole placeholders anywhere in the data (no delta semantics). */
  private rewriteWhole(ev: FramedEvent, data: Buffer, json: boolean): Buffer {
    const scan = scanEvent(data, json, NO_WATCH);
    return ev.rewrite(placeholderEdits(this.set, this.framing, data, scan.tildes, scan.depths, this.stats));
  }

  private settled(key: string): boolean {
    const s = this.streams.get(key);
    // A tool call's copy needs every byte: its stream is never settled.
    return s !== undefined && s.hold === undefined && isSettled(s);
  }

  private processRegion(region: Buffer, out: Buffer[]): void {
    if (this.untouched(region)) return this.passUnread(region, out);
    const filtering = this.needsFilter(region);
    let pos = 0;
    while (pos < region.length) {
      // Only `~`, held bytes and filter work make an event worth reading: the events before the next
      // `~` pass through as one piece, unsplit.
      if (this.pendingStreams === 0 && !filtering) {
        const tilde = region.indexOf(PLACEHOLDER_FIRST_BYTE, pos);
        if (tilde === -1) {
          this.passUnread(pos === 0 ? region : region.subarray(pos), out);
          return;
        }
        const before = this.framing.lastEventEnd(region, pos, tilde);
        if (before > pos) {
          this.passUnread(region.subarray(pos, before), out);
          pos = before;
        }
      }
      const stop = this.framing.nextEventEnd(region, pos);
      const block = pos === 0 && stop === region.length ? region : region.subarray(pos, stop);
      // Without filter work the event holds the `~` or continues a held stream: it is read.
      if (filtering && this.untouched(block)) this.passUnread(block, out);
      else this.processEvent(block, out, false);
      this.countPending();
      pos = stop;
    }
  }

  push(chunk: Buffer): Buffer[] {
    const out: Buffer[] = [];
    for (const region of this.framing.push(chunk)) this.processRegion(region, out);
    return out;
  }

  end(): Buffer[] {
    const out: Buffer[] = [];
    // Held bytes first, in events of their own; then whatever arrived of an unfinished event, as it
    // came. A tool call still open here did not complete: it fails closed.
    for (const s of this.streams.values()) if (hasPending(s)) this.flushStream(s, out, false);
    this.queue.drain(out);
    const tail = this.framing.end();
    if (tail !== undefined) this.processEvent(tail, out, true);
    for (const s of this.streams.values()) if (s.hold?.holding === true) s.hold.end(this.hctx, this.toolOf(s), false);
    this.queue.drain(out);
    this.streams.clear();
    this.backlog.clear();
    this.pendingStreams = 0;
    return out;
  }
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
const NEVER = (): boolean => false;

/** True when `e` replaces (part of) a delta field's content. */
function isFieldEdit(e: Edit, watched: readonly WatchedString[]): boolean {
  return watched.some((w) => e.start >= w.start && e.end <= w.end);
}

