// Server-sent events at the byte level (WHATWG HTML §9.2): the SSE framing of the stream restorer —
// finding where complete events end (each byte searched once, however the event is cut into chunks
// and lines), splitting a region into event blocks, and reading one block (its rewrite by byte surgery:
// sse-event.ts). Lines end in CRLF, LF or CR; a blank line ends an event. Nothing is decoded here.

import { FictaError } from '../errors.ts';
import { type FramedEvent, type Framing } from './framing.ts';
import { SseEvent, type DataLines } from './sse-event.ts';

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;

/**
 * Offset just past the last complete event in `buf` (after its blank line), or -1. Recognises LF LF,
 * CRLF CRLF, mixed forms, and CR CR for streams that use bare CR.
 */
export function lastEventEnd(buf: Buffer, from = 0, to = buf.length): number {
  let i = previousLf(buf, to - 1, from);
  while (i > from) {
    const p = buf[i - 1];
    if (p === LF || (p === CR && i - 2 >= from && buf[i - 2] === LF) || (p === CR && i - 2 >= from && buf[i - 2] === CR)) return i + 1;
    i = previousLf(buf, i - 1, from);
  }
  // Bare-CR streams: CR CR not followed by LF (a following LF may still arrive; harmless either way).
  if (to - from < 2) return -1;
  const r = buf.lastIndexOf(CRCR, to - 2);
  return r < from ? -1 : r + 2;
}

const CRCR = Buffer.from('\r\r', 'latin1');

/**
 * Bytes looked at one by one before a search call. An event of many short lines (8-byte `data:`
 * lines, 12 MB) cost one Buffer search per line — 80 ms/MB across the passes over it; scanning the
 * next few bytes first costs short lines no call, and long lines still one search.
 */
const NEAR = 48;
/**
 * Bytes looked at one by one for a line break before a search call: a delta event's data line (100–300
 * bytes) cost two search calls past NEAR, more than its bytes; a long line pays this once before its search.
 */
const LINE_NEAR = 256;

/** The last LF in buf[floor, from], or -1. */
function previousLf(buf: Buffer, from: number, floor: number): number {
  const stop = Math.max(from - LINE_NEAR, floor - 1);
  for (let k = from; k > stop; k--) if (buf[k] === LF) return k;
  // A negative offset would search from the buffer's end.
  if (stop < floor) return -1;
  const i = buf.lastIndexOf(LF, stop);
  return i < floor ? -1 : i;
}

/**
 * The next LF or CR at or after `from`, or -1; `cursor.cr` caches the next CR (-2 unknown, -1 none).
 * The first `near` bytes are looked at one by one.
 */
function nextBreak(buf: Buffer, from: number, cursor: { cr: number }, near = LINE_NEAR): number {
  const stop = Math.min(buf.length, from + near);
  for (let k = from; k < stop; k++) {
    const b = buf[k];
    if (b === LF || b === CR) return k;
  }
  if (stop === buf.length) return -1;
  const lf = buf.indexOf(LF, stop);
  if (cursor.cr !== -1 && cursor.cr < stop) cursor.cr = buf.indexOf(CR, stop);
  const cr = cursor.cr;
  return lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
}

/** Offset just past the first complete event starting at `from`, or -1. */
export function nextEventEnd(buf: Buffer, from: number): number {
  return eventEnd(buf, from, { cr: -2 });
}

/**
 * nextEventEnd with the next CR's offset cached across calls (-2 unknown, -1 none left): LF-only
 * streams (all of the provider captures) have no CR, and searching for one from every event start
 * scanned the rest of the region each time — 40 % of SSE restore's own time on 16 KiB regions.
 */
function eventEnd(buf: Buffer, from: number, cursor: { cr: number }): number {
  let i = from;
  while (i < buf.length) {
    const b = buf[i] as number;
    if (b === LF || b === CR) {
      // End of a line; a blank line follows if the next terminator starts right after this one.
      let j = i + 1;
      if (b === CR && buf[j] === LF) j++;
      const c = buf[j];
      if (c === LF) return j + 1;
      if (c === CR) return buf[j + 1] === LF ? j + 2 : j + 1;
      i = j;
      continue;
    }
    const next = nextBreak(buf, i, cursor);
    if (next === -1) return -1;
    i = next;
  }
  return -1;
}

/** Splits a region that ends on an event boundary into event blocks. */
export function splitEvents(region: Buffer): Buffer[] {
  const out: Buffer[] = [];
  const cursor = { cr: -2 };
  let pos = 0;
  while (pos < region.length) {
    const end = eventEnd(region, pos, cursor);
    if (end === -1) {
      out.push(region.subarray(pos));
      break;
    }
    out.push(region.subarray(pos, end));
    pos = end;
  }
  return out;
}

/** The SSE framing: regions of whole events; an unfinished event is kept up to `maxEventBytes`. */
export function createSseFraming(maxEventBytes: number): Framing {
  return new SseFraming(maxEventBytes);
}

/** The SSE framing's state (a class: one per response, and its methods are not closures made per response). */
class SseFraming implements Framing {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private crRegion: Buffer | undefined;
  private crFrom = 0;
  private readonly cursor = { cr: -2 };

  constructor(private readonly maxEventBytes: number) {}

  push(chunk: Buffer): Buffer[] {
    if (chunk.length === 0) return [];
    // Only the new bytes are searched (plus a blank line that straddles the previous chunk's end),
    // so an event cut into many chunks or made of many short lines costs its length, not its square.
    let end = lastEventEnd(chunk);
    if (end === -1 && this.pendingBytes > 0) end = straddlingEnd(this.pending, chunk);
    if (end === -1) {
      this.pending.push(chunk);
      this.pendingBytes += chunk.length;
      if (this.pendingBytes > this.maxEventBytes) this.overflow();
      return [];
    }
    const head = end === chunk.length ? chunk : chunk.subarray(0, end);
    let regions: Buffer[];
    if (this.pending.length === 0) regions = [head];
    else {
      // Only the event that straddles the chunks is joined (copied): the whole events after it are
      // passed on as the chunk's own bytes. Its end is the blank line that straddles the join, or the
      // chunk's first one (the chunk's first byte is the only one whose meaning its pending bytes decide,
      // and a LF there after a CR ends the same line either way).
      let first = straddlingEnd(this.pending, chunk);
      if (first === -1) first = eventEnd(chunk, 0, { cr: -2 });
      regions = first === -1 || first >= end ? [Buffer.concat([...this.pending, head])] : [Buffer.concat([...this.pending, chunk.subarray(0, first)]), chunk.subarray(first, end)];
    }
    this.pending = end === chunk.length ? [] : [chunk.subarray(end)];
    this.pendingBytes = chunk.length - end;
    if (this.pendingBytes > this.maxEventBytes) this.overflow();
    return regions;
  }

  end(): Buffer | undefined {
    if (this.pendingBytes === 0) return undefined;
    const rest = this.pending.length === 1 ? (this.pending[0] as Buffer) : Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    return rest;
  }

  nextEventEnd(region: Buffer, from: number): number {
    // The next CR is searched once per region, not from every event start (a 16 KiB region without
    // CR was searched to its end for each event read).
    if (region !== this.crRegion || from < this.crFrom) {
      this.crRegion = region;
      this.cursor.cr = -2;
    }
    this.crFrom = from;
    const end = eventEnd(region, from, this.cursor);
    return end === -1 ? region.length : end;
  }

  lastEventEnd(region: Buffer, from: number, to: number): number {
    return lastEventEnd(region, from, to);
  }

  read(block: Buffer): FramedEvent {
    return readSseEvent(block);
  }

  /** Every CR in data ends a line (the client would read LF): a value holding one cannot arrive exactly. */
  carries(value: Buffer): boolean {
    return value.indexOf(CR) === -1;
  }

  private overflow(): never {
    throw new FictaError('FICTA_STREAM_OVERFLOW', `restore: an SSE event exceeded ${this.maxEventBytes} bytes`);
  }
}

/** A blank line whose end falls in the first bytes of `chunk` but that began in the pending bytes before it. */
function straddlingEnd(pending: readonly Buffer[], chunk: Buffer): number {
  // A blank line is at most 4 bytes (CRLF CRLF): the last 3 pending bytes, from however many chunks,
  // then the chunk's first 4, gathered in a scratch window (synchronous, never nested).
  let n = 0;
  for (let k = pending.length - 1; k >= 0 && n < 3; k--) {
    const p = pending[k] as Buffer;
    for (let i = p.length - 1; i >= 0 && n < 3; i--) WINDOW[2 - n++] = p[i] as number;
  }
  const t = Math.min(4, chunk.length);
  for (let i = 0; i < t; i++) WINDOW[3 + i] = chunk[i] as number;
  const end = lastEventEnd(WINDOW.subarray(3 - n, 3 + t));
  return end > n ? end - n : -1;
}

const WINDOW = Buffer.alloc(7);

/** Events up to this many bytes are read without a search call (a delta event is 100–300 bytes). */
const SMALL_EVENT = 512;

/** Reads one event block: its name, its data (the `data:` lines joined with LF) and a byte-surgery rewrite. */
export function readSseEvent(block: Buffer): FramedEvent {
  let name = 'message';
  // Value spans of the data lines, in block offsets: the first in locals, the rest (rare) in arrays.
  let start0 = -1;
  let end0 = -1;
  let more: DataLines | undefined;
  let pos = 0;
  const cursor = { cr: -2 };
  // A small event (a delta) is read byte by byte: two searches per line cost more than its bytes.
  const near = block.length <= SMALL_EVENT ? block.length : LINE_NEAR;
  while (pos < block.length) {
    let lineEnd = nextBreak(block, pos, cursor, near);
    if (lineEnd === -1) lineEnd = block.length;
    let next = lineEnd;
    if (block[next] === CR) next++;
    if (next === lineEnd + 1 && block[next] === LF) next++;
    else if (block[lineEnd] === LF) next++;
    // Only `data` and `event` lines matter: a field name ends at the first colon (or the line's end).
    const field = isField(block, pos, DATA) ? 4 : isField(block, pos, EVENT) ? 5 : 0;
    const colon = pos + field;
    if (field > 0 && colon <= lineEnd && (colon === lineEnd || block[colon] === COLON)) {
      let value = colon < lineEnd ? colon + 1 : lineEnd;
      if (value < lineEnd && block[value] === SPACE) value++;
      if (field === 4) {
        if (start0 === -1) {
          start0 = value;
          end0 = lineEnd;
        } else {
          more ??= { starts: new Int32Array(4), ends: new Int32Array(4), count: 0 };
          if (more.count === more.starts.length) growLines(more);
          more.starts[more.count] = value;
          more.ends[more.count++] = lineEnd;
        }
      } else name = eventName(block, value, lineEnd);
    }
    pos = next;
  }
  if (start0 === -1) return new SseEvent(name, undefined, block, 0, 0, undefined);
  if (more === undefined) return new SseEvent(name, block.subarray(start0, end0), block, start0, end0, undefined);
  const lines: DataLines = { starts: new Int32Array(more.count + 1), ends: new Int32Array(more.count + 1), count: more.count + 1 };
  lines.starts[0] = start0;
  lines.ends[0] = end0;
  lines.starts.set(more.starts.subarray(0, more.count), 1);
  lines.ends.set(more.ends.subarray(0, more.count), 1);
  let size = lines.count - 1;
  for (let k = 0; k < lines.count; k++) size += (lines.ends[k] as number) - (lines.starts[k] as number);
  const data = Buffer.allocUnsafe(size);
  let o = 0;
  for (let k = 0; k < lines.count; k++) {
    if (k > 0) data[o++] = LF;
    const s = lines.starts[k] as number;
    const e = lines.ends[k] as number;
    // Short lines are copied here: a copy call per 8-byte line cost more than the bytes.
    if (e - s > NEAR) o += block.copy(data, o, s, e);
    else for (let i = s; i < e; i++) data[o++] = block[i] as number;
  }
  return new SseEvent(name, data, block, 0, 0, lines);
}

/** The last event name decoded: a stream repeats a few names, and decoding each costs a string. */
let lastName = 'message';

/** block[start, end) as an event name. */
function eventName(block: Buffer, start: number, end: number): string {
  const n = end - start;
  if (n === lastName.length) {
    // ASCII bytes equal to the name's code units are the name; anything else is decoded.
    let k = 0;
    for (; k < n; k++) {
      const b = block[start + k] as number;
      if (b >= 0x80 || b !== lastName.charCodeAt(k)) break;
    }
    if (k === n) return lastName;
  }
  lastName = block.toString('utf8', start, end);
  return lastName;
}

const DATA = Buffer.from('data');
const EVENT = Buffer.from('event');

function isField(block: Buffer, pos: number, name: Buffer): boolean {
  for (let k = 0; k < name.length; k++) if (block[pos + k] !== name[k]) return false;
  return true;
}

function growLines(l: DataLines): void {
  const starts = new Int32Array(l.starts.length * 2);
  const ends = new Int32Array(l.ends.length * 2);
  starts.set(l.starts);
  ends.set(l.ends);
  l.starts = starts;
  l.ends = ends;
}
