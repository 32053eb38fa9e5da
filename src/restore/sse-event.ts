// One SSE event block as read (sse-frame.ts) and its byte-surgery rewrite: edits in data offsets are
// mapped onto the block's `data:` lines; a replacement holding LF becomes further `data:` lines.

import { FictaError } from '../errors.ts';
import { applyEdits, type Edit, type FramedEvent } from './framing.ts';

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
/** Bytes looked at one by one before a search call. */
const NEAR = 48;

/** Value spans of an event's data lines (block offsets). */
export interface DataLines {
  starts: Int32Array;
  ends: Int32Array;
  count: number;
}


/** One event block as read (a class: a closure per event cost more than reading the event). */
export class SseEvent implements FramedEvent {
  constructor(
    readonly name: string,
    readonly data: Buffer | undefined,
    private readonly block: Buffer,
    /** The one data line's value span, when `lines` is undefined. */
    private readonly start: number,
    private readonly end: number,
    private readonly lines: DataLines | undefined,
  ) {}

  rewrite(edits: readonly Edit[]): Buffer {
    if (this.data === undefined) return this.block;
    return this.lines === undefined ? rewriteLine(this.block, this.start, this.end, edits) : rewriteLines(this.block, this.lines, edits);
  }
}

/** Applies data-offset edits to a block with one data line. */
function rewriteLine(block: Buffer, start: number, end: number, edits: readonly Edit[]): Buffer {
  if (edits.length === 0) return block;
  // applyEdits with the offsets shifted in place: one event per placeholder comes through here.
  const parts: Buffer[] = [];
  let at = 0;
  for (let k = 0; k < edits.length; k++) {
    const e = edits[k] as Edit;
    if (e.end > end - start) throw new FictaError('FICTA_RESTORE_INTERNAL', 'restore: an edit lies past the SSE data');
    const s = e.start + start;
    if (s > at) parts.push(block.subarray(at, s));
    const bytes = lineBytes(e.bytes, block, e.start === 0 ? start : -1, end);
    if (bytes.length > 0) parts.push(bytes);
    at = e.end + start;
  }
  if (at < block.length) parts.push(block.subarray(at));
  return Buffer.concat(parts);
}

/**
 * Applies data-offset edits to the block. A replacement that holds LF (a raw value restored into
 * non-JSON data) is split into further `data:` lines with the block's own line ending: the client
 * joins data lines with LF, so it reads the value exactly. A CR never gets here (see `carries`).
 */
function rewriteLines(block: Buffer, l: DataLines, edits: readonly Edit[]): Buffer {
  if (edits.length === 0) return block;
  const { starts, ends } = l;
  const mapped: Edit[] = [];
  let k = 0;
  let dataStart = 0;
  for (const e of edits) {
    while (k < l.count - 1 && e.start > dataStart + ((ends[k] as number) - (starts[k] as number))) {
      dataStart += (ends[k] as number) - (starts[k] as number) + 1;
      k++;
    }
    const len = (ends[k] as number) - (starts[k] as number);
    if (e.end - dataStart > len) throw new FictaError('FICTA_RESTORE_INTERNAL', 'restore: an edit crossed an SSE data line');
    const at = (starts[k] as number) - dataStart;
    mapped.push({ start: e.start + at, end: e.end + at, bytes: lineBytes(e.bytes, block, e.start === dataStart ? (starts[k] as number) : -1, ends[k] as number) });
  }
  return applyEdits(block, mapped);
}

/**
 * `bytes` as they must stand in a data line ending at `lineEnd`: every LF turned into a line end (the
 * block's own) followed by `data: `; and, when they start the line's value (`valueStart`, else -1) right
 * after `data:` with no space, a leading space doubled (a reader drops one space after the colon).
 */
function lineBytes(bytes: Buffer, block: Buffer, valueStart: number, lineEnd: number): Buffer {
  const breaks = lineBreaks(bytes);
  if ((breaks & HAS_CR) !== 0) throw new FictaError('FICTA_RESTORE_INTERNAL', 'restore: a CR was to be written into SSE data');
  const lead = valueStart !== -1 && bytes[0] === SPACE && block[valueStart - 1] === COLON ? SPACE_BYTE : undefined;
  if ((breaks & HAS_LF) === 0) return lead === undefined ? bytes : Buffer.concat([lead, bytes]);
  const eol = block[lineEnd] === CR ? (block[lineEnd + 1] === LF ? '\r\n' : '\r') : '\n';
  const joiner = Buffer.from(`${eol}data: `, 'latin1');
  const parts: Buffer[] = lead === undefined ? [] : [lead];
  let at = 0;
  for (let i = bytes.indexOf(LF); i !== -1; i = bytes.indexOf(LF, at)) {
    parts.push(bytes.subarray(at, i), joiner);
    at = i + 1;
  }
  parts.push(bytes.subarray(at));
  return Buffer.concat(parts);
}

const SPACE_BYTE = Buffer.from(' ', 'latin1');
const HAS_LF = 1;
const HAS_CR = 2;

/** HAS_LF and HAS_CR as `bytes` hold them (short ones, restored values mostly, byte by byte: cheaper than two searches). */
function lineBreaks(bytes: Buffer): number {
  if (bytes.length > NEAR) return (bytes.indexOf(LF) === -1 ? 0 : HAS_LF) | (bytes.indexOf(CR) === -1 ? 0 : HAS_CR);
  let r = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === LF) r |= HAS_LF;
    else if (b === CR) r |= HAS_CR;
  }
  return r;
}
