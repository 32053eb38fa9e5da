// A tool call's argument stream under a sink (DESIGN §10): its pieces pass as they came until the first
// placeholder; from there the call's events are held until the call completes, then the sink decides the
// whole call once and each held piece gets its share of the answer (only placeholder bytes change, and a
// placeholder never straddles two pieces). A copy of the arguments is kept from their first byte for the
// decision, bounded by the limit (limits.maxEventBytes); past it, or when the call ends early, the call
// fails closed: the held pieces leave as they came and their placeholders are counted withheld.

import type { ToolCallInfo } from '../providers/types.ts';
import { PLACEHOLDER_FIRST_BYTE, probePlaceholder } from '../redact/placeholder.ts';
import type { SecretSet } from '../redact/secret-set.ts';
import { holdField, releaseField, type HeldEvent, type HeldField } from './event-queue.ts';
import { applyEdits, type Edit } from './framing.ts';
import { CALL_INCOMPLETE, HELD_TOO_LARGE, type RestoreSink, type SinkCall } from './restore-sink.ts';

/** The state of one guarded tool-call stream. */
export class ToolHold {
  /** The arguments from their first byte (undefined once a byte is missing: past the limit, or begun late). */
  private copy: Buffer[] | undefined = [];
  private copied = 0;
  /** Offset in the arguments where holding began (-1: not holding). */
  private heldFrom = -1;
  private held: HeldField[] = [];
  /** Failed closed: every later piece passes as it came, its placeholders counted withheld with this reason. */
  private failed: string | undefined;

  constructor(
    private readonly key: string,
    private readonly kind: 'json' | 'text',
    /** Whether the copy starts at the first byte (false: the stream was seen before it was known to be a tool call). */
    complete: boolean,
  ) {
    if (!complete) this.copy = undefined;
  }

  get holding(): boolean {
    return this.heldFrom !== -1;
  }

  /** Failed closed: nothing in the call is restored any more. */
  get closed(): boolean {
    return this.failed !== undefined;
  }

  /** Adds bytes of the arguments that passed unread (before any placeholder): for the decision only. */
  note(bytes: Buffer, limit: number): void {
    if (this.copy === undefined || this.failed !== undefined) return;
    if (this.copied + bytes.length > limit) {
      this.copy = undefined;
      return;
    }
    this.copy.push(bytes);
    this.copied += bytes.length;
  }

  /**
   * Takes the next piece of the arguments (placeholders whole). Returns the bytes to send now, or
   * undefined when the piece is held (then `owner` waits for it, at data span [start, end)).
   */
  piece(ctx: HoldContext, tool: ToolCallInfo, piece: Buffer, owner: HeldEvent, start: number, end: number): Buffer | undefined {
    const { sink, set, limit } = ctx;
    if (this.failed !== undefined) {
      if (hasPlaceholder(set, piece)) sink.withhold(this.call(tool, piece), this.failed);
      return piece;
    }
    if (!sink.holds) {
      // The answer needs no more of the call ("never"): each piece is decided as it comes.
      if (!hasPlaceholder(set, piece)) return piece;
      return applyEdits(piece, sink.decide(this.call(tool, piece)));
    }
    const from = this.copied;
    if (this.copy !== undefined && this.copied + piece.length > limit) this.copy = undefined;
    if (this.copy === undefined) {
      if (this.holding) {
        this.fail(sink, tool, HELD_TOO_LARGE, piece);
        return piece;
      }
      if (!hasPlaceholder(set, piece)) return piece;
      // A placeholder in a call whose first bytes are no longer known: no decision is possible.
      this.fail(sink, tool, HELD_TOO_LARGE, piece);
      return piece;
    }
    this.copy.push(piece);
    this.copied += piece.length;
    if (!this.holding) {
      if (!hasPlaceholder(set, piece)) return piece;
      this.heldFrom = from;
    }
    this.held.push(holdField(owner, start, end, piece, from));
    return undefined;
  }

  /** The call ended: decided when `complete`, else failed closed. Releases every held piece. */
  end(ctx: HoldContext, tool: ToolCallInfo, complete: boolean): void {
    if (!this.holding) return;
    if (!complete || this.copy === undefined) {
      this.fail(ctx.sink, tool, complete ? HELD_TOO_LARGE : CALL_INCOMPLETE);
      return;
    }
    const raw = this.copy.length === 1 ? (this.copy[0] as Buffer) : Buffer.concat(this.copy, this.copied);
    const edits = ctx.sink.decide(this.call(tool, raw));
    let k = 0;
    for (const f of this.held) {
      const to = f.from + f.piece.length;
      const mine: Edit[] = [];
      while (k < edits.length && (edits[k] as Edit).start < to) mine.push(edits[k++] as Edit);
      releaseField(f, mine.length === 0 ? f.piece : applyEdits(f.piece, mine, -f.from));
    }
    this.reset();
  }

  /** Fails the call closed: held pieces leave as they came, their placeholders (and `extra`'s) counted withheld. */
  fail(sink: RestoreSink, tool: ToolCallInfo, reason: string, extra?: Buffer): void {
    const parts = this.held.map((f) => f.piece);
    if (extra !== undefined) parts.push(extra);
    if (parts.length > 0) sink.withhold(this.call(tool, Buffer.concat(parts)), reason);
    else sink.withhold(this.call(tool, EMPTY), reason);
    for (const f of this.held) releaseField(f, f.piece);
    this.reset();
    this.failed = reason;
    this.copy = undefined;
  }

  private reset(): void {
    this.held = [];
    this.heldFrom = -1;
  }

  private call(tool: ToolCallInfo, raw: Buffer): SinkCall {
    return { key: this.key, tool, kind: this.kind, raw, depth: 1, copy: false };
  }
}

/** What every guarded stream of a response shares. */
export interface HoldContext {
  readonly sink: RestoreSink;
  readonly set: SecretSet;
  /** Most bytes of one call's arguments kept (limits.maxEventBytes). */
  readonly limit: number;
}

const EMPTY = Buffer.alloc(0);

/** True when `buf` holds a whole placeholder of a known value (registered or detected). */
export function hasPlaceholder(set: SecretSet, buf: Buffer): boolean {
  for (let i = buf.indexOf(PLACEHOLDER_FIRST_BYTE); i !== -1; i = buf.indexOf(PLACEHOLDER_FIRST_BYTE, i + 1)) {
    const p = probePlaceholder(buf, i, buf.length);
    if (p.kind === 'full' && set.secretForId(p.id) !== -1) return true;
  }
  return false;
}
