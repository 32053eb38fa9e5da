// Removes watermark frames from responses: raw UTF-8 and `\u`-escaped JSON forms (escaped once, or
// twice for JSON text inside a JSON string), across chunk boundaries with a carry of at most 35 bytes.

import { FRAME_DIGITS } from './frame.ts';

/*
 * A frame is START followed by 1–4 DIGITs (a full frame has 4; truncated ones are removed too, because
 * U+2060 followed by U+FE00..U+FE0F never occurs in legitimate text — except, in bytes, one that ends a
 * JSON string: its other digits may start the next SSE event, where the restorer's per-delta-stream stripper
 * joins them). A lone U+2060, a variation
 * selector after a visible character (emoji VS16, CJK variation sequences), ZWJ and ZWNJ are never
 * touched. Forms:
 *   raw      E2 81 A0            digits EF B8 80..8F
 *   level 1  \u2060              digits \ufe0X        (the backslash run before `u` has odd length)
 *   level 2  \\u2060             digits \\ufe0X       (run length ≡ 2 mod 4: JSON text inside a JSON string)
 */

const BS = 0x5c;
const U = 0x75;
const QUOTE = 0x22;

/** Bytes or UTF-16 units, so one scanner serves Buffers and strings. */
interface View {
  readonly length: number;
  at(i: number): number;
  /** Raw start at i: length consumed, 0 if none, -1 if the data ends inside it. */
  rawStart(i: number): number;
  /** Raw digit at i: length consumed, 0 if none, -1 if the data ends inside it. */
  rawDigit(i: number): number;
  /** Next index ≥ from where a raw or escaped start may begin, or -1. */
  nextCandidate(from: number): number;
  /**
   * Bytes of an SSE/JSON body: a truncated frame that ends a JSON string is left for the per-delta
   * stripper, because its remaining digits may open the next event's string.
   */
  readonly stringEndsSplitFrames: boolean;
}

function bufferView(b: Buffer): View {
  // -2: not searched yet; -1: none left.
  let nextRaw = -2;
  let nextEsc = -2;
  return {
    stringEndsSplitFrames: true,
    length: b.length,
    at: (i) => b[i]!,
    rawStart(i) {
      if (b[i] !== 0xe2) return 0;
      if (i + 1 >= b.length) return -1;
      if (b[i + 1] !== 0x81) return 0;
      if (i + 2 >= b.length) return -1;
      return b[i + 2] === 0xa0 ? 3 : 0;
    },
    rawDigit(i) {
      if (b[i] !== 0xef) return 0;
      if (i + 1 >= b.length) return -1;
      if (b[i + 1] !== 0xb8) return 0;
      if (i + 2 >= b.length) return -1;
      const c = b[i + 2]!;
      return c >= 0x80 && c <= 0x8f ? 3 : 0;
    },
    nextCandidate(from) {
      // Search the rare second/third bytes (81 A0) and the digits "2060": both have rare first bytes,
      // so Buffer.indexOf stays at memchr speed on text full of E2-led punctuation. Each search result
      // is kept until passed, so a chunk full of frames is still scanned once.
      if (nextRaw !== -1 && nextRaw < from) nextRaw = b.indexOf(RAW_TAIL, from + 1) - 1;
      if (nextEsc !== -1 && nextEsc < from) nextEsc = b.indexOf(ESC_DIGITS, from + 1) - 1;
      if (nextRaw < -1) nextRaw = -1;
      if (nextEsc < -1) nextEsc = -1;
      if (nextRaw < 0) return nextEsc;
      if (nextEsc < 0) return nextRaw;
      return Math.min(nextRaw, nextEsc);
    },
  };
}

const RAW_TAIL = Buffer.from([0x81, 0xa0]);
const ESC_DIGITS = Buffer.from('2060', 'latin1');

function stringView(s: string): View {
  let nextRaw = -2;
  let nextEsc = -2;
  return {
    stringEndsSplitFrames: false,
    length: s.length,
    at: (i) => s.charCodeAt(i),
    rawStart: (i) => (s.charCodeAt(i) === 0x2060 ? 1 : 0),
    rawDigit(i) {
      const c = s.charCodeAt(i);
      return c >= 0xfe00 && c <= 0xfe0f ? 1 : 0;
    },
    nextCandidate(from) {
      if (nextRaw !== -1 && nextRaw < from) nextRaw = s.indexOf('\u2060', from);
      if (nextEsc !== -1 && nextEsc < from) nextEsc = s.indexOf('u2060', from);
      if (nextRaw < 0) return nextEsc;
      if (nextEsc < 0) return nextRaw;
      return Math.min(nextRaw, nextEsc);
    },
  };
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);
}

/** Matches `expected` (lowercase ASCII) case-insensitively at i: 1 yes, 0 no, -1 data ends first. */
function matchAscii(v: View, i: number, expected: string): number {
  for (let k = 0; k < expected.length; k++) {
    if (i + k >= v.length) return -1;
    const c = v.at(i + k);
    const want = expected.charCodeAt(k);
    const isLetter = want >= 0x61 && want <= 0x7a;
    if (c !== want && !(isLetter && (c | 0x20) === want)) return 0;
  }
  return 1;
}

/** An escaped digit (`\ufe0X` with `level` backslashes) at i: length, 0 if none, -1 if cut off. */
function escDigit(v: View, i: number, level: number): number {
  for (let k = 0; k < level; k++) {
    if (i + k >= v.length) return -1;
    if (v.at(i + k) !== BS) return 0;
  }
  const m = matchAscii(v, i + level, 'ufe0');
  if (m <= 0) return m;
  const h = i + level + 4;
  if (h >= v.length) return -1;
  return isHex(v.at(h)) ? level + 5 : 0;
}

interface Scan {
  /** Ranges [start, end) to delete, in order, all below safeEnd. */
  cuts: number[];
  /** Output may be emitted up to here; the rest is carried. */
  safeEnd: number;
}

/** Finds frames in v; when not final, stops at the first frame or start prefix the data cuts off. */
function scan(v: View, final: boolean): Scan {
  const cuts: number[] = [];
  let pos = v.nextCandidate(0);
  while (pos >= 0 && pos < v.length) {
    let start = -1;
    let level = 0;
    let headLen = 0;
    const raw = v.rawStart(pos);
    if (raw > 0) {
      start = pos;
      headLen = raw;
    } else if (v.at(pos) === U && pos > 0 && v.at(pos - 1) === BS && matchAscii(v, pos, 'u2060') === 1) {
      let run = 0;
      while (pos - 1 - run >= 0 && v.at(pos - 1 - run) === BS) run++;
      if (run % 2 === 1) level = 1;
      else if (run % 4 === 2) level = 2;
      if (level > 0) {
        start = pos - level;
        headLen = level + 5;
      }
    }
    if (start < 0) {
      pos = v.nextCandidate(pos + 1);
      continue;
    }
    let end = start + headLen;
    let digits = 0;
    let cutOff = false;
    while (digits < FRAME_DIGITS) {
      const len = level === 0 ? v.rawDigit(end) : escDigit(v, end, level);
      if (len < 0 || (len === 0 && end >= v.length)) {
        cutOff = true;
        break;
      }
      if (len === 0) break;
      end += len;
      digits++;
    }
    if (cutOff && !final) return { cuts, safeEnd: carryStart(v, start, level) };
    const endsString = v.at(end) === QUOTE || (v.at(end) === BS && v.at(end + 1) === QUOTE);
    if (digits === FRAME_DIGITS || (digits > 0 && !(v.stringEndsSplitFrames && endsString))) cuts.push(start, end);
    pos = v.nextCandidate(digits > 0 ? end : start + headLen);
  }
  if (final) return { cuts, safeEnd: v.length };
  const lastCut = cuts.length > 0 ? cuts[cuts.length - 1]! : 0;
  return { cuts, safeEnd: Math.max(lastCut, tailCarry(v)) };
}

/** Backslashes to carry from a run of `run`: all of a short run, else enough to keep its length mod 4. */
function carriedRun(run: number): number {
  return run <= 7 ? run : 4 + (run % 4);
}

/** Where the carry begins for a frame starting at `start` (its escaping backslashes included). */
function carryStart(v: View, start: number, level: number): number {
  if (level === 0) return start;
  const u = start + level;
  let run = 0;
  while (u - 1 - run >= 0 && v.at(u - 1 - run) === BS) run++;
  return u - carriedRun(run);
}

/** The start of a trailing start prefix (raw E2 / E2 81, or backslashes + a prefix of `u2060`). */
function tailCarry(v: View): number {
  const n = v.length;
  for (let i = Math.max(0, n - 2); i < n; i++) if (v.rawStart(i) < 0) return i;
  for (let b = n - 1; b >= 0 && b >= n - 5; b--) {
    if (v.at(b) !== BS) continue;
    if (matchAscii(v, b + 1, 'u2060') !== -1) return n;
    let run = 1;
    while (b - run >= 0 && v.at(b - run) === BS) run++;
    return b + 1 - carriedRun(run);
  }
  return n;
}

function applyCuts(buf: Buffer, cuts: readonly number[], end: number): Buffer {
  if (cuts.length === 0) return end === buf.length ? buf : buf.subarray(0, end);
  const parts: Buffer[] = [];
  let at = 0;
  for (let i = 0; i < cuts.length; i += 2) {
    if (cuts[i]! > at) parts.push(buf.subarray(at, cuts[i]!));
    at = cuts[i + 1]!;
  }
  if (end > at) parts.push(buf.subarray(at, end));
  return Buffer.concat(parts);
}

function applyStringCuts(s: string, cuts: readonly number[], end: number): string {
  if (cuts.length === 0) return end === s.length ? s : s.slice(0, end);
  let out = '';
  let at = 0;
  for (let i = 0; i < cuts.length; i += 2) {
    out += s.slice(at, cuts[i]!);
    at = cuts[i + 1]!;
  }
  return out + s.slice(at, end);
}

/** A frame found in text: its UTF-16 range and its nibbles (fewer than 4 when truncated). */
export interface FoundFrame {
  start: number;
  end: number;
  digits: number[];
}

/** Every frame in `text`, raw or escaped, with its nibbles. */
export function findFrames(text: string): FoundFrame[] {
  const { cuts } = scan(stringView(text), true);
  const found: FoundFrame[] = [];
  for (let i = 0; i < cuts.length; i += 2) {
    const start = cuts[i]!;
    const end = cuts[i + 1]!;
    const body = text.slice(start, end);
    const digits: number[] = [];
    if (body.charCodeAt(0) === 0x2060) {
      for (let k = 1; k < body.length; k++) digits.push(body.charCodeAt(k) - 0xfe00);
    } else {
      for (const m of body.matchAll(/ufe0([0-9a-f])/gi)) digits.push(parseInt(m[1]!, 16));
    }
    found.push({ start, end, digits });
  }
  return found;
}

/** Removes every frame from a complete buffer; returns the same Buffer when there is none. */
export function stripFrames(buf: Buffer): Buffer {
  const { cuts } = scan(bufferView(buf), true);
  return applyCuts(buf, cuts, buf.length);
}

/** Removes every frame from a complete string; returns the same string when there is none. */
export function stripFramesFromText(text: string): string {
  const { cuts } = scan(stringView(text), true);
  return applyStringCuts(text, cuts, text.length);
}

export interface FrameStripper<T> {
  /** Returns what can be emitted now; holds back at most a frame's worth that the chunk cuts off. */
  push(chunk: T): T;
  /** Returns the held-back tail (frames in it removed); call once at the end of the stream. */
  flush(): T;
  /** Units (bytes or UTF-16 code units) currently held back; never more than a frame's worth. */
  readonly pending: number;
}

/** A streaming frame stripper for bytes; chunks without a frame byte pass through as the same Buffer. */
export function createFrameStripper(): FrameStripper<Buffer> {
  let carry: Buffer | undefined;
  const EMPTY = Buffer.alloc(0);
  return {
    push(chunk) {
      const data = carry === undefined ? chunk : Buffer.concat([carry, chunk]);
      carry = undefined;
      const { cuts, safeEnd } = scan(bufferView(data), false);
      if (safeEnd < data.length) carry = Buffer.from(data.subarray(safeEnd));
      if (cuts.length === 0 && safeEnd === data.length) return data;
      return applyCuts(data, cuts, safeEnd);
    },
    flush() {
      if (carry === undefined) return EMPTY;
      const data = carry;
      carry = undefined;
      return stripFrames(data);
    },
    get pending() {
      return carry?.length ?? 0;
    },
  };
}

/** A chunk transform in the shape the proxy's response pipeline composes ({ push → pieces, end }). */
export interface StripTransform {
  push(chunk: Buffer): Buffer[];
  end(): Buffer[];
}

/** Wraps a fresh byte stripper as a chunk transform to put in front of placeholder restore. */
export function createStripTransform(): StripTransform {
  const s = createFrameStripper();
  return {
    push(chunk) {
      const out = s.push(chunk);
      return out.length === 0 ? [] : [out];
    },
    end() {
      const out = s.flush();
      return out.length === 0 ? [] : [out];
    },
  };
}

const TRIGGER_RAW = Buffer.from('\u2060', 'utf8');
const TRIGGER_ESCAPED = Buffer.from('2060', 'latin1');

/**
 * True when `buf` may hold (part of) a frame start, raw or escaped — a cheap pre-check so a stream
 * stage can skip parsing events that cannot need the per-delta stripper.
 */
export function mayHoldFrame(buf: Buffer): boolean {
  return buf.indexOf(TRIGGER_RAW) !== -1 || buf.indexOf(TRIGGER_ESCAPED) !== -1;
}
