// One delta stream (a content block's text, a tool call's arguments, …) as the stream restorer keeps
// it: a lexer over the stream's content from its first byte (so the string depth of a placeholder is
// the same as in a whole copy of the text), the placeholder prefix held back from the last event, the
// per-stream delta filter (watermark frames split across events), and the last delta event to send
// held bytes in when the stream ends before they continue.

import type { ToolCallInfo } from '../providers/types.ts';
import type { SecretSet } from '../redact/secret-set.ts';
import type { Edit, FramedEvent } from './framing.ts';
import { JsonLexer } from './json-lexer.ts';
import { restoreBytes, type RestoreStats } from './restore-bytes.ts';
import { RESTORE_ALL, type RestoreSink, type StreamInfo } from './restore-sink.ts';

/** A per-stream filter over a field's raw content, applied before restore (the watermark frame stripper). */
export interface DeltaFilter {
  push(raw: Buffer): Buffer;
  flush(): Buffer;
  /** Bytes held back for the next piece. */
  readonly pending: number;
}

/** What every stream shares: the secrets, counters, sink and filter. */
export interface DeltaContext {
  set: SecretSet;
  stats: RestoreStats;
  sink: RestoreSink;
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

export interface DeltaStream extends StreamInfo {
  tool: ToolCallInfo | undefined;
  /** Inside a string (as after its opening quote): reads the stream's content across events. */
  readonly text: JsonLexer;
  /** The stream's content was not all seen (an event read by position only): no restores in it. */
  poisoned: boolean;
  held: Buffer | undefined;
  heldDepth: number;
  filter: DeltaFilter | undefined;
  /** The sink holds this stream. */
  holding: boolean;
  template: Template | undefined;
}

const EMPTY = Buffer.alloc(0);

export function createDeltaStream(key: string, json: boolean, tool: ToolCallInfo | undefined): DeltaStream {
  const text = new JsonLexer('value');
  text.enterString();
  return { key, json, tool, text, poisoned: false, held: undefined, heldDepth: 0, filter: undefined, holding: false, template: undefined };
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

/** True when the stream holds bytes back (a placeholder prefix, a filter's tail, or the sink). */
export function hasPending(stream: DeltaStream): boolean {
  return stream.held !== undefined || stream.holding || (stream.filter !== undefined && stream.filter.pending > 0);
}

/**
 * Restores one event's piece of the stream (`raw`: the field's string content as it came). Returns
 * the bytes for the field now; a trailing placeholder prefix is held for the next piece unless `final`.
 */
export function restoreDelta(ctx: DeltaContext, stream: DeltaStream, raw: Buffer, final: boolean): Buffer {
  let content = raw;
  if (stream.filter === undefined && ctx.filter !== undefined && raw.length > 0 && ctx.filterNeeded(raw)) stream.filter = ctx.filter();
  if (stream.filter !== undefined) {
    content = stream.filter.push(raw);
    if (final) {
      const rest = stream.filter.flush();
      if (rest.length > 0) content = Buffer.concat([content, rest]);
    }
  }
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
  const kept = r.heldFrom === -1 ? combined.length : r.heldFrom;
  if (r.heldFrom !== -1) {
    stream.held = Buffer.from(combined.subarray(r.heldFrom));
    stream.heldDepth = r.heldDepth;
  }
  let restored = r.parts.length === 1 ? (r.parts[0] as Buffer) : Buffer.concat(r.parts);
  if (ctx.sink !== RESTORE_ALL) {
    const s = ctx.sink.delta(stream, combined.subarray(0, kept), restored);
    stream.holding = s.hold;
    restored = s.emit;
  }
  if (final && ctx.sink !== RESTORE_ALL) {
    const release = ctx.sink.end(stream);
    stream.holding = false;
    if (release.length > 0) restored = Buffer.concat([restored, release]);
  }
  return restored;
}

/** Everything the stream still holds, restored as far as it can be (the stream ended). */
export function flushDelta(ctx: DeltaContext, stream: DeltaStream): Buffer {
  return restoreDelta(ctx, stream, EMPTY, true);
}
