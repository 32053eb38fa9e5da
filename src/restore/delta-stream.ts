// One delta stream (a content block's text, a tool call's arguments, …) as the stream restorer keeps
// it: a lexer over the stream's content from its first byte (so the string depth of a placeholder is
// the same as in a whole copy of the text), the placeholder prefix held back from the last event, the
// per-stream delta filter (watermark frames split across events), and the last delta event to send
// held bytes in when the stream ends before they continue. A tool call's arguments under a sink are
// not restored here: their pieces go, placeholders whole, to the stream's ToolHold (tool-hold.ts).

import type { ToolCallInfo } from '../providers/types.ts';
import { PLACEHOLDER_FIRST_BYTE, PLACEHOLDER_LENGTH, probePlaceholder } from '../redact/placeholder.ts';
import type { SecretSet } from '../redact/secret-set.ts';
import type { Edit, FramedEvent } from './framing.ts';
import { JsonLexer } from './json-lexer.ts';
import { restoreBytes, type RestoreStats } from './restore-bytes.ts';
import type { HeldEvent } from './event-queue.ts';
import type { HoldContext, ToolHold } from './tool-hold.ts';

/** A per-stream filter over a field's raw content, applied before restore (the watermark frame stripper). */
export interface DeltaFilter {
  push(raw: Buffer): Buffer;
  flush(): Buffer;
  /** Bytes held back for the next piece. */
  readonly pending: number;
}

/** What every stream shares: the secrets, counters and filter. */
export interface DeltaContext {
  set: SecretSet;
  stats: RestoreStats;
  filter: (() => DeltaFilter) | undefined;
  filterNeeded: (raw: Buffer) => boolean;
}

/** The last delta event of a stream, to send bytes in when the stream ends. */
export interface Template {
  event: FramedEvent;
  /** The stream's field (data offsets). */
  start: number;
  end: number;
  /** Other delta fields of that event, emptied in the copy. */
  others: Array<[number, number]>;
  /** The event's other edits (restored placeholders outside delta fields). */
  edits: Edit[];
}

export interface DeltaStream {
  readonly key: string;
  /** The adapter declared the content JSON text (tool arguments). */
  readonly json: boolean;
  /** The tool call whose arguments this stream carries (id and name as far as seen), or undefined. */
  tool: ToolCallInfo | undefined;
  /** Inside a string (as after its opening quote): reads the stream's content across events. */
  readonly text: JsonLexer;
  /** The stream's content was not all seen (an event read by position only): no restores in it. */
  poisoned: boolean;
  held: Buffer | undefined;
  heldDepth: number;
  filter: DeltaFilter | undefined;
  /** A tool call's arguments decided by a sink (held from the first placeholder), or undefined. */
  hold: ToolHold | undefined;
  template: Template | undefined;
}

const EMPTY = Buffer.alloc(0);
const NO_TOOL: ToolCallInfo = {};

export function createDeltaStream(key: string, json: boolean, tool: ToolCallInfo | undefined): DeltaStream {
  const text = new JsonLexer('value');
  text.enterString();
  return { key, json, tool, text, poisoned: false, held: undefined, heldDepth: 0, filter: undefined, hold: undefined, template: undefined };
}

/** Merges newly seen tool-call details (Chat sends id and name in the first fragment only). */
export function noteTool(stream: DeltaStream, tool: ToolCallInfo | undefined): void {
  if (tool === undefined) return;
  stream.tool = { ...stream.tool, ...tool };
}

/** True when the stream's state cannot change any more: its content is prose, or it is poisoned. */
export function isSettled(stream: DeltaStream): boolean {
  return stream.poisoned || stream.text.inProseString;
}

/** True when the stream holds bytes back (a placeholder prefix, a filter's tail, or a held tool call). */
export function hasPending(stream: DeltaStream): boolean {
  return stream.held !== undefined || stream.hold?.holding === true || (stream.filter !== undefined && stream.filter.pending > 0);
}

/**
 * Restores one event's piece of the stream (`raw`: the field's string content as it came). Returns
 * the bytes for the field now; a trailing placeholder prefix is held for the next piece unless `final`.
 */
export function restoreDelta(ctx: DeltaContext, stream: DeltaStream, raw: Buffer, final: boolean): Buffer {
  const content = filtered(ctx, stream, raw, final);
  const held = stream.held;
  stream.held = undefined;
  const combined = held === undefined ? content : Buffer.concat([held, content]);
  const base = held === undefined ? 0 : held.length;
  const lexing = !isSettled(stream);
  let lexed = 0;
  const r = restoreBytes(
    ctx.set,
    combined,
    (pos) => {
      if (stream.poisoned) return -1;
      // The held prefix's `~` was placed when it arrived.
      if (pos < base) return stream.heldDepth;
      const upTo = pos - base + 1;
      if (lexing && upTo > lexed) {
        stream.text.advance(content, lexed, upTo);
        lexed = upTo;
      }
      return stream.text.depth();
    },
    ctx.stats,
    !final,
  );
  if (lexing && lexed < content.length) stream.text.advance(content, lexed, content.length);
  if (r.heldFrom !== -1) {
    stream.held = Buffer.from(combined.subarray(r.heldFrom));
    stream.heldDepth = r.heldDepth;
  }
  return r.parts.length === 1 ? (r.parts[0] as Buffer) : Buffer.concat(r.parts);
}

/**
 * One event's piece data[start, end) of the stream: restored, or handed to the stream's held tool call;
 * the edit that puts it in the event joins `held`'s (none when the piece stays as it came).
 */
export function restorePiece(ctx: DeltaContext, hctx: HoldContext, stream: DeltaStream, data: Buffer, start: number, end: number, held: HeldEvent, last: boolean): void {
  const raw = data.subarray(start, end);
  if (stream.hold === undefined) {
    const emit = restoreDelta(ctx, stream, raw, last);
    if (emit !== raw) held.edits.push({ start, end, bytes: emit });
    return;
  }
  const now = stream.hold.piece(hctx, stream.tool ?? NO_TOOL, toolPiece(ctx, stream, raw, last), held, start, end);
  if (now !== undefined && now !== raw) held.edits.push({ start, end, bytes: now });
}

/**
 * One event's piece of a tool call's arguments for its ToolHold, restored nowhere: filtered like any
 * delta, with a trailing placeholder prefix held for the next piece unless `final` (so no placeholder is
 * ever cut between two pieces).
 */
export function toolPiece(ctx: DeltaContext, stream: DeltaStream, raw: Buffer, final: boolean): Buffer {
  const content = filtered(ctx, stream, raw, final);
  if (!isSettled(stream) && content.length > 0) stream.text.advance(content, 0, content.length);
  const held = stream.held;
  stream.held = undefined;
  const combined = held === undefined ? content : Buffer.concat([held, content]);
  if (final) return combined;
  const cut = partialTail(combined);
  if (cut === -1) return combined;
  stream.held = Buffer.from(combined.subarray(cut));
  return combined.subarray(0, cut);
}

/** The content after the stream's filter (the watermark frame stripper), if it has one. */
function filtered(ctx: DeltaContext, stream: DeltaStream, raw: Buffer, final: boolean): Buffer {
  if (stream.filter === undefined && ctx.filter !== undefined && raw.length > 0 && ctx.filterNeeded(raw)) stream.filter = ctx.filter();
  if (stream.filter === undefined) return raw;
  const content = stream.filter.push(raw);
  if (!final) return content;
  const rest = stream.filter.flush();
  return rest.length > 0 ? Buffer.concat([content, rest]) : content;
}

/** Where a placeholder cut off by the end of `buf` begins, or -1. */
function partialTail(buf: Buffer): number {
  for (let i = buf.indexOf(PLACEHOLDER_FIRST_BYTE, Math.max(0, buf.length - PLACEHOLDER_LENGTH + 1)); i !== -1; i = buf.indexOf(PLACEHOLDER_FIRST_BYTE, i + 1)) {
    if (probePlaceholder(buf, i, buf.length).kind === 'partial') return i;
  }
  return -1;
}

/** Everything the stream still holds, restored as far as it can be (the stream ended); a tool call's, unrestored. */
export function flushDelta(ctx: DeltaContext, stream: DeltaStream): Buffer {
  return stream.hold !== undefined ? toolPiece(ctx, stream, EMPTY, true) : restoreDelta(ctx, stream, EMPTY, true);
}
