// Framing for a streamed JSON array (Gemini `:streamGenerateContent` without `alt=sse`:
// `[{…},\r\n{…}]`) or a sequence of JSON values: each element is one event. A string-aware bracket
// counter finds where elements end (strings skipped with one search per quote); the opening `[` is a
// region of its own and the closing `]` comes with the stream's end, both without data.

import { FictaError } from '../errors.ts';
import { applyEdits, type FramedEvent, type Framing } from './framing.ts';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isBlank(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

/** The streamed-JSON-array framing: one region per element; an unfinished element is kept up to `maxEventBytes`. */
export function createJsonSeqFraming(maxEventBytes: number): Framing {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let started = false;
  /** Container depth at which elements sit: 1 inside a top-level array, 0 for a sequence of values. */
  let elementDepth = 0;
  let depth = 0;
  let inString = false;
  let escaped = false;
  /** Inside a number or literal that is itself an element. */
  let scalar = false;

  return {
    push(chunk) {
      const out: Buffer[] = [];
      let from = 0;
      const cut = (end: number): void => {
        const head = chunk.subarray(from, end);
        out.push(pending.length === 0 ? head : Buffer.concat([...pending, head]));
        pending = [];
        pendingBytes = 0;
        from = end;
      };
      let i = 0;
      while (i < chunk.length) {
        if (inString) {
          const q = closingQuote(chunk, i);
          if (q === -1) {
            i = chunk.length;
            break;
          }
          inString = false;
          i = q + 1;
          if (depth === elementDepth) cut(i);
          continue;
        }
        const b = chunk[i] as number;
        if (scalar && depth === elementDepth && (isBlank(b) || b === 0x2c || b === 0x5d || b === 0x7d)) {
          scalar = false;
          cut(i);
        }
        if (b === QUOTE) {
          inString = true;
          started = true;
        } else if (b === 0x7b || b === 0x5b) {
          if (!started && b === 0x5b) {
            started = true;
            elementDepth = 1;
            depth = 1;
            cut(i + 1);
            i++;
            continue;
          }
          started = true;
          depth++;
        } else if (b === 0x7d || b === 0x5d) {
          depth--;
          if (depth === elementDepth) cut(i + 1);
        } else if (!isBlank(b) && b !== 0x2c) {
          started = true;
          if (depth === elementDepth) scalar = true;
        }
        i++;
      }
      if (from < chunk.length) {
        pending.push(chunk.subarray(from));
        pendingBytes += chunk.length - from;
        if (pendingBytes > maxEventBytes) throw new FictaError('FICTA_STREAM_OVERFLOW', `restore: a streamed JSON element exceeded ${maxEventBytes} bytes`);
      }
      return out;
    },
    end() {
      if (pendingBytes === 0) return undefined;
      const rest = Buffer.concat(pending);
      pending = [];
      pendingBytes = 0;
      return rest;
    },
    // push returns one element per region.
    nextEventEnd: (region) => region.length,
    lastEventEnd: (region, _from, to) => (to === region.length ? to : -1),
    read: readElement,
    // Elements are cut by JSON structure, not by lines: any bytes reach the client as they are.
    carries: () => true,
  };

  /** The closing quote of the string being skipped in chunk[i, end), or -1 (then `escaped` says whether the next byte is). */
  function closingQuote(chunk: Buffer, i: number): number {
    let from = i;
    if (escaped) {
      escaped = false;
      from++;
    }
    // No escape is pending at `from`, so a run of backslashes counted down to it decides.
    let p = from;
    for (;;) {
      const q = p < chunk.length ? chunk.indexOf(QUOTE, p) : -1;
      if (q === -1) {
        let k = chunk.length - 1;
        while (k >= from && chunk[k] === BACKSLASH) k--;
        escaped = ((chunk.length - 1 - k) & 1) === 1;
        return -1;
      }
      let k = q - 1;
      while (k >= from && chunk[k] === BACKSLASH) k--;
      if (((q - 1 - k) & 1) === 0) return q;
      p = q + 1;
    }
  }
}

/** One element: its data starts after the separators (blanks and commas); the opener and closer have none. */
function readElement(block: Buffer): FramedEvent {
  let start = 0;
  while (start < block.length && (isBlank(block[start] as number) || block[start] === 0x2c)) start++;
  const first = block[start];
  const data = start === block.length || first === 0x5d || (first === 0x5b && start === block.length - 1) ? undefined : block.subarray(start);
  return { name: 'message', data, rewrite: (edits) => applyEdits(block, edits, start) };
}
