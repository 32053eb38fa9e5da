// Reads one event's data for restore: the string depth at every `~` (from a fresh forward lexer over
// the data), and, for JSON data, the content spans of the strings an adapter named by path (delta
// fields, left unlexed here because their stream's own lexer reads them; copies, lexed as usual).

import { createJsonLexer, type LexerHooks } from './json-lexer.ts';

const TILDE = 0x7e;

/** A string the scan looks for by path; `start`/`end` bound its content once found (-1 before). */
export interface WatchedString {
  readonly path: ReadonlyArray<string | number>;
  /** Leave the content unlexed, and `~` inside it out of the result (a delta field). */
  readonly opaque: boolean;
  start: number;
  end: number;
  /** The path matched more than one string (duplicate keys): the event is not read by path. */
  duplicate: boolean;
}

export interface EventScan {
  /** Offsets of `~` outside opaque strings, in order. */
  tildes: number[];
  /** String depth at each of those (DEPTH_UNKNOWN when too deep). */
  depths: number[];
}

/** Creates a watched string for `path`. */
export function watch(path: ReadonlyArray<string | number>, opaque: boolean): WatchedString {
  return { path, opaque, start: -1, end: -1, duplicate: false };
}

/**
 * Scans `data`: JSON when `json` (any JSON value; the caller parsed it), else text that is JSON only
 * if it starts with `{`/`[` and stays valid. `watched` strings are located in JSON data.
 */
export function scanEvent(data: Buffer, json: boolean, watched: readonly WatchedString[]): EventScan {
  const lexer = createJsonLexer(json ? 'value' : 'structured');
  const paths = json && watched.length > 0 ? new PathHooks(watched) : undefined;
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
  if (paths !== undefined) lexer.advance(data, lexed, data.length);
  return { tildes, depths };
}

interface Frame {
  isArray: boolean;
  key: string;
  index: number;
}

/** Tracks the path of the value being lexed and records the watched strings' spans. */
class PathHooks implements LexerHooks {
  private readonly frames: Frame[] = [];
  private current: WatchedString | undefined;

  constructor(private readonly watched: readonly WatchedString[]) {}

  get inOpaque(): boolean {
    return this.current?.opaque === true;
  }

  open(isArray: boolean): void {
    this.frames.push({ isArray, key: '', index: 0 });
  }

  close(): void {
    this.frames.pop();
  }

  next(): void {
    const top = this.frames[this.frames.length - 1];
    if (top !== undefined && top.isArray) top.index++;
  }

  key(buf: Buffer, start: number, end: number): void {
    const top = this.frames[this.frames.length - 1];
    if (top === undefined) return;
    const raw = buf.toString('utf8', start, end);
    let escaped = false;
    for (let i = start; i < end && !escaped; i++) escaped = buf[i] === 0x5c;
    top.key = escaped ? (JSON.parse(`"${raw}"`) as string) : raw;
  }

  stringStart(at: number): boolean {
    for (const w of this.watched) {
      if (!this.matches(w.path)) continue;
      if (w.start !== -1) w.duplicate = true;
      w.start = at + 1;
      this.current = w;
      return w.opaque;
    }
    return false;
  }

  stringEnd(at: number): void {
    if (this.current !== undefined) this.current.end = at;
    this.current = undefined;
  }

  private matches(path: ReadonlyArray<string | number>): boolean {
    if (path.length !== this.frames.length) return false;
    for (let k = 0; k < path.length; k++) {
      const f = this.frames[k] as Frame;
      if ((f.isArray ? f.index : f.key) !== path[k]) return false;
    }
    return true;
  }
}
