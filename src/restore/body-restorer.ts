// Streaming restore for JSON and text response bodies. Chunks without a placeholder byte pass through
// as they are; a placeholder split across chunks is held back (at most one placeholder's length) and
// restored once whole. Each value is escaped for the exact string depth it lands in, read from a
// forward JSON lexer (json-lexer.ts) that runs lazily: the bytes it has not read yet are kept (as the
// chunks they came in) and read only when a placeholder needs the answer or LEX_BACKLOG_BYTES pile up.

import { PLACEHOLDER_FIRST_BYTE } from '../redact/placeholder.ts';
import type { SecretSet } from '../redact/secret-set.ts';
import { createJsonLexer, type JsonLexer } from './json-lexer.ts';
import { restoreBytes, type RestoreStats } from './restore-bytes.ts';

/**
 * Unread bytes kept for the lexer before it catches up on its own. A response without placeholders
 * below this size is never lexed (500 KiB clean JSON: 0.011 ms/MB, as before the lexer); lexing costs
 * ~0.2 ms/MB on prose-heavy JSON, so a larger body pays that on what lies past this mark.
 */
export const LEX_BACKLOG_BYTES = 4 * 1024 * 1024;

export interface ChunkTransform {
  /** Transforms one chunk; returns the pieces to send now (possibly none). */
  push(chunk: Buffer): Buffer[];
  /** Flushes whatever is held at end of stream. */
  end(): Buffer[];
}

/**
 * A restorer for a body declared JSON (`json`: any JSON value may start it) or text (`text`: JSON only
 * when its first non-blank byte is `{` or `[` and it stays valid; prose otherwise, restored raw).
 */
export function createBodyRestorer(set: SecretSet, mode: 'json' | 'text', stats: RestoreStats): ChunkTransform {
  return new BodyRestorer(set, mode, stats);
}

/** A class, not closures: one object per response, its methods shared (a clean body costs ~nothing). */
class BodyRestorer implements ChunkTransform {
  /** Created when first needed: a clean JSON body never pays for it. */
  private made: JsonLexer | undefined;
  /** Unread chunks, from `head` on; the first one is read from `headAt`. */
  private unread: Buffer[] = [];
  private head = 0;
  private headAt = 0;
  private unreadBytes = 0;
  /** Stream offsets: bytes received, and bytes the lexer has read. */
  private received = 0;
  private lexed = 0;
  private carry: Buffer | undefined;
  private carryDepth = 0;

  constructor(
    private readonly set: SecretSet,
    private readonly mode: 'json' | 'text',
    private readonly stats: RestoreStats,
  ) {}

  push(chunk: Buffer): Buffer[] {
    this.keep(chunk);
    if (this.carry === undefined && chunk.indexOf(PLACEHOLDER_FIRST_BYTE) === -1) {
      if (this.unreadBytes > LEX_BACKLOG_BYTES) this.lexTo(this.received);
      return [chunk];
    }
    const data = this.carry === undefined ? chunk : Buffer.concat([this.carry, chunk]);
    return this.process(data, this.received - data.length, false);
  }

  end(): Buffer[] {
    if (this.carry === undefined) return [];
    const data = this.carry;
    return this.process(data, this.received - data.length, true);
  }

  private lexer(): JsonLexer {
    return (this.made ??= createJsonLexer(this.mode === 'json' ? 'value' : 'structured'));
  }

  private lexTo(target: number): void {
    while (this.lexed < target) {
      const b = this.unread[this.head] as Buffer;
      const n = Math.min(b.length - this.headAt, target - this.lexed);
      const l = this.lexer();
      if (!l.isProse) l.advance(b, this.headAt, this.headAt + n);
      this.headAt += n;
      this.lexed += n;
      this.unreadBytes -= n;
      if (this.headAt === b.length) {
        this.unread[this.head++] = EMPTY;
        this.headAt = 0;
      }
    }
    if (this.head > 64 && this.head * 2 > this.unread.length) {
      this.unread.splice(0, this.head);
      this.head = 0;
    }
  }

  private keep(chunk: Buffer): void {
    this.received += chunk.length;
    if (this.made?.isProse === true) {
      // Prose never turns back into JSON: nothing left to read.
      this.lexed = this.received;
      this.unread = [];
      this.head = 0;
      this.headAt = 0;
      this.unreadBytes = 0;
      return;
    }
    this.unread.push(chunk);
    this.unreadBytes += chunk.length;
    // A text body is read up to its first non-blank byte at once (never past it: a placeholder after
    // it still needs the state right at it): prose then needs nothing kept.
    if (this.mode === 'text' && this.lexer().isUndecided) {
      let i = 0;
      while (i < chunk.length && isBlank(chunk[i] as number)) i++;
      this.lexTo(this.received - chunk.length + Math.min(i + 1, chunk.length));
    }
  }

  private process(data: Buffer, dataStart: number, final: boolean): Buffer[] {
    const held = this.carry !== undefined;
    const r = restoreBytes(
      this.set,
      data,
      (pos) => {
        if (held && pos === 0) return this.carryDepth;
        this.lexTo(dataStart + pos + 1);
        const l = this.lexer();
        return l.isProse ? 0 : l.depth();
      },
      this.stats,
      !final,
    );
    this.carry = r.heldFrom === -1 ? undefined : Buffer.from(data.subarray(r.heldFrom));
    this.carryDepth = r.heldDepth;
    if (this.unreadBytes > LEX_BACKLOG_BYTES) this.lexTo(this.received);
    return r.parts;
  }
}

const EMPTY = Buffer.alloc(0);

function isBlank(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}
