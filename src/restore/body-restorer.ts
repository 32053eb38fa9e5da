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
  // Created when first needed: a clean JSON body never pays for it.
  let made: JsonLexer | undefined;
  const lexer = (): JsonLexer => (made ??= createJsonLexer(mode === 'json' ? 'value' : 'structured'));
  /** Unread chunks, from `head` on; the first one is read from `headAt`. */
  const unread: Buffer[] = [];
  let head = 0;
  let headAt = 0;
  let unreadBytes = 0;
  /** Stream offsets: bytes received, and bytes the lexer has read. */
  let received = 0;
  let lexed = 0;
  let carry: Buffer | undefined;
  let carryDepth = 0;

  const lexTo = (target: number): void => {
    while (lexed < target) {
      const b = unread[head] as Buffer;
      const n = Math.min(b.length - headAt, target - lexed);
      const l = lexer();
      if (!l.isProse) l.advance(b, headAt, headAt + n);
      headAt += n;
      lexed += n;
      unreadBytes -= n;
      if (headAt === b.length) {
        unread[head++] = EMPTY;
        headAt = 0;
      }
    }
    if (head > 64 && head * 2 > unread.length) {
      unread.splice(0, head);
      head = 0;
    }
  };

  const keep = (chunk: Buffer): void => {
    received += chunk.length;
    if (made?.isProse === true) {
      // Prose never turns back into JSON: nothing left to read.
      lexed = received;
      unread.length = 0;
      head = 0;
      headAt = 0;
      unreadBytes = 0;
      return;
    }
    unread.push(chunk);
    unreadBytes += chunk.length;
    // A text body is read up to its first non-blank byte at once (never past it: a placeholder after
    // it still needs the state right at it): prose then needs nothing kept.
    if (mode === 'text' && lexer().isUndecided) {
      let i = 0;
      while (i < chunk.length && isBlank(chunk[i] as number)) i++;
      lexTo(received - chunk.length + Math.min(i + 1, chunk.length));
    }
  };

  const process = (data: Buffer, dataStart: number, final: boolean): Buffer[] => {
    const held = carry !== undefined;
    const r = restoreBytes(
      set,
      data,
      (pos) => {
        if (held && pos === 0) return carryDepth;
        lexTo(dataStart + pos + 1);
        const l = lexer();
        return l.isProse ? 0 : l.depth();
      },
      stats,
      !final,
    );
    carry = r.heldFrom === -1 ? undefined : Buffer.from(data.subarray(r.heldFrom));
    carryDepth = r.heldDepth;
    if (unreadBytes > LEX_BACKLOG_BYTES) lexTo(received);
    return r.parts;
  };

  return {
    push(chunk) {
      keep(chunk);
      if (carry === undefined && chunk.indexOf(PLACEHOLDER_FIRST_BYTE) === -1) {
        if (unreadBytes > LEX_BACKLOG_BYTES) lexTo(received);
        return [chunk];
      }
      const data = carry === undefined ? chunk : Buffer.concat([carry, chunk]);
      return process(data, received - data.length, false);
    },
    end() {
      if (carry === undefined) return [];
      const data = carry;
      return process(data, received - data.length, true);
    },
  };
}

const EMPTY = Buffer.alloc(0);

function isBlank(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}
