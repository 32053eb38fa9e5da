// Reads one event's data for restore: the string depth at every `~` (from a fresh forward lexer over
// the data), and, for JSON data, the spans of the values an adapter named by path (delta fields, left
// unlexed here because their stream's own lexer reads them; copies, lexed as usual; tool-call arguments,
// which may be any JSON value, decided by a sink instead).

import { createJsonLexer, type LexerHooks } from './json-lexer.ts';

const TILDE = 0x7e;

/**
 * A value the scan looks for by path: a string, whose content `start`/`end` bound once found (-1
 * before), or, when `values` is set, also an array or object, bounded with its brackets.
 */
export interface WatchedString {
  readonly path: ReadonlyArray<string | number>;
  /** `~` inside it stays out of the result; a string's content is left unlexed (a delta field). */
  readonly opaque: boolean;
  /** Arrays and objects are found too (tool-call arguments as a JSON value). */
  readonly values: boolean;
  start: number;
  end: number;
  /** What was found is a string (else an array or object). */
  isString: boolean;
  /** The path matched more than one string (duplicate keys): the event is not read by path. */
  duplicate: boolean;
}

export interface EventScan {
  /** Offsets of `~` outside opaque strings, in order. */
  tildes: number[];
  /** String depth at each of those (DEPTH_UNKNOWN when too deep). */
  depths: number[];
}

/** Creates a watched string (or, with `values`, any string, array or object) for `path`. */
export function watch(path: ReadonlyArray<string | number>, opaque: boolean, values = false): WatchedString {
  return { path, opaque, values, start: -1, end: -1, isString: false, duplicate: false };
}

/**
 * Scans `data`: JSON when `json` (any JSON value; the caller parsed it), else text that is JSON only
 * if it starts with `{`/`[` and stays valid. `watched` strings are located in JSON data.
 */
export function scanEvent(data: Buffer, json: boolean, watched: readonly WatchedString[]): EventScan {
  // One lexer of each kind, reused: scans are synchronous and never nested.
  const lexer = json ? JSON_LEXER : TEXT_LEXER;
  lexer.reset();
  const paths = json && watched.length > 0 ? PATHS.start(watched) : undefined;
  if (paths !== undefined) lexer.hooks = paths;
  const tildes: number[] = [];
  const depths: number[] = [];
  let lexed = 0;
  for (let i = data.indexOf(TILDE); i !== -1; i = data.indexOf(TILDE, i + 1)) {
    lexer.advance(data, lexed, i + 1);
    lexed = i + 1;
    if (paths?.inOpaque === true) continue;
    tildes.push(i);
    depths.push(lexer.isProse ? 0 : lexer.depth());
  }
  if (paths !== undefined) {
    lexer.advance(data, lexed, data.length);
    paths.start(NO_WATCHED);
  }
  lexer.reset();
  return { tildes, depths };
}

const NO_WATCHED: WatchedString[] = [];
const JSON_LEXER = createJsonLexer('value');
const TEXT_LEXER = createJsonLexer('structured');

const SEGMENTS = new Map<string, Buffer>();

/** A key as UTF-8 bytes (cached: adapters name the same few keys in every event). */
function segmentBytes(key: string): Buffer {
  let b = SEGMENTS.get(key);
  if (b === undefined) {
    b = Buffer.from(key, 'utf8');
    if (SEGMENTS.size < 4096) SEGMENTS.set(key, b);
  }
  return b;
}

/** Tracks the path of the value being lexed and records the watched strings' spans. */
class PathHooks implements LexerHooks {
  // One entry per open container: array or object, the element index, the current key's raw span.
  private readonly isArray: boolean[] = [];
  private readonly index: number[] = [];
  private readonly keyStart: number[] = [];
  private readonly keyEnd: number[] = [];
  private depth = 0;
  private buf: Buffer | undefined;
  private current: WatchedString | undefined;
  /** The watched array or object being read, and the depth it opened at. */
  private container: WatchedString | undefined;
  private containerDepth = 0;
  private watched: readonly WatchedString[] = [];
  /** Path segments as bytes, to compare keys without decoding them. */
  private segments: Array<Array<Buffer | number>> = [];

  /** Starts a scan for `watched` (one instance serves every scan). */
  start(watched: readonly WatchedString[]): this {
    this.watched = watched;
    this.segments = watched.map((w) => w.path.map((p) => (typeof p === 'number' ? p : segmentBytes(p))));
    this.depth = 0;
    this.buf = undefined;
    this.current = undefined;
    this.container = undefined;
    return this;
  }

  get inOpaque(): boolean {
    return this.current?.opaque === true || this.container?.opaque === true;
  }

  open(isArray: boolean, at: number): void {
    if (this.container === undefined) {
      const w = this.find(true);
      if (w !== undefined) {
        if (w.start !== -1) w.duplicate = true;
        w.start = at;
        w.isString = false;
        this.container = w;
        this.containerDepth = this.depth;
      }
    }
    const d = this.depth++;
    this.isArray[d] = isArray;
    this.index[d] = 0;
    this.keyStart[d] = 0;
    this.keyEnd[d] = -1;
  }

  close(at: number): void {
    this.depth--;
    if (this.container !== undefined && this.depth === this.containerDepth) {
      this.container.end = at + 1;
      this.container = undefined;
    }
  }

  next(): void {
    const d = this.depth - 1;
    if (d >= 0 && this.isArray[d] === true) this.index[d] = (this.index[d] as number) + 1;
  }

  key(buf: Buffer, start: number, end: number): void {
    const d = this.depth - 1;
    if (d < 0) return;
    this.buf = buf;
    this.keyStart[d] = start;
    this.keyEnd[d] = end;
  }

  stringStart(at: number): boolean {
    // Inside a watched container only the container counts.
    if (this.container !== undefined) return false;
    const w = this.find(false);
    if (w === undefined) return false;
    if (w.start !== -1) w.duplicate = true;
    w.start = at + 1;
    w.isString = true;
    this.current = w;
    return w.opaque;
  }

  /** The watched value at the current path (`containers`: only those that accept arrays and objects). */
  private find(containers: boolean): WatchedString | undefined {
    for (let k = 0; k < this.watched.length; k++) {
      const w = this.watched[k] as WatchedString;
      if (containers && !w.values) continue;
      if (this.matches(this.segments[k] as Array<Buffer | number>)) return w;
    }
    return undefined;
  }

  stringEnd(at: number): void {
    if (this.current !== undefined) this.current.end = at;
    this.current = undefined;
  }

  private matches(path: ReadonlyArray<Buffer | number>): boolean {
    if (path.length !== this.depth) return false;
    for (let k = 0; k < path.length; k++) {
      const seg = path[k] as Buffer | number;
      if (this.isArray[k] === true) {
        if (seg !== this.index[k]) return false;
      } else if (typeof seg === 'number' || !this.keyIs(k, seg)) return false;
    }
    return true;
  }

  /** The key of container `k` equals `want` (raw bytes compared; an escaped key is decoded first). */
  private keyIs(k: number, want: Buffer): boolean {
    const buf = this.buf;
    const start = this.keyStart[k] as number;
    const end = this.keyEnd[k] as number;
    if (buf === undefined || end < 0) return false;
    if (end - start === want.length) {
      let k = 0;
      while (k < want.length && buf[start + k] === want[k]) k++;
      if (k === want.length) return true;
    }
    let escaped = false;
    for (let i = start; i < end && !escaped; i++) escaped = buf[i] === 0x5c;
    return escaped && (JSON.parse(`"${buf.toString('utf8', start, end)}"`) as string) === want.toString('utf8');
  }
}

const PATHS = new PathHooks();
