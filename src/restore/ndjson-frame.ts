// Newline-delimited JSON framing (`application/x-ndjson`: Ollama `/api/chat` and `/api/generate`
// streams): one event per line, LF or CRLF ended. Lines are found with one search per chunk.

import { FictaError } from '../errors.ts';
import { applyEdits, type FramedEvent, type Framing } from './framing.ts';

const LF = 0x0a;
const CR = 0x0d;

/** The NDJSON framing: regions of whole lines; an unfinished line is kept up to `maxEventBytes`. */
export function createNdjsonFraming(maxEventBytes: number): Framing {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  return {
    push(chunk) {
      const lf = chunk.lastIndexOf(LF);
      if (lf === -1) {
        pending.push(chunk);
        pendingBytes += chunk.length;
        if (pendingBytes > maxEventBytes) throw new FictaError('FICTA_STREAM_OVERFLOW', `restore: an NDJSON line exceeded ${maxEventBytes} bytes`);
        return [];
      }
      const head = chunk.subarray(0, lf + 1);
      const region = pending.length === 0 ? head : Buffer.concat([...pending, head]);
      pending = lf + 1 === chunk.length ? [] : [chunk.subarray(lf + 1)];
      pendingBytes = chunk.length - lf - 1;
      return [region];
    },
    end() {
      if (pendingBytes === 0) return undefined;
      const rest = Buffer.concat(pending);
      pending = [];
      pendingBytes = 0;
      return rest;
    },
    nextEventEnd(region, from) {
      const lf = region.indexOf(LF, from);
      return lf === -1 ? region.length : lf + 1;
    },
    lastEventEnd(region, from, to) {
      if (to <= from) return -1;
      const lf = region.lastIndexOf(LF, to - 1);
      return lf < from ? -1 : lf + 1;
    },
    read: readLine,
    // A raw value with a line break would cut its line in two (and readers split on CR too).
    carries: (value) => value.indexOf(LF) === -1 && value.indexOf(CR) === -1,
  };
}

function readLine(block: Buffer): FramedEvent {
  let end = block.length;
  if (block[end - 1] === LF) end--;
  if (block[end - 1] === CR) end--;
  let start = 0;
  while (start < end && (block[start] === 0x20 || block[start] === 0x09)) start++;
  const data = start < end ? block.subarray(start, end) : undefined;
  return { name: 'message', data, rewrite: (edits) => applyEdits(block, edits, start) };
}
