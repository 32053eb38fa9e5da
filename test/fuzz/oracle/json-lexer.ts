// The oracle's own JSON lexer (strict RFC 8259 grammar): raw token slices with the path of each string,
// so a check can compare two documents token by token — structure, numbers and whitespace byte for byte,
// strings by what they decode to — and say where a placeholder sits in nested JSON text.

import { unescapeStrict } from './decode.ts';

export type JsonPath = ReadonlyArray<string | number>;

export interface JsonToken {
  kind: 'string' | 'number' | 'literal' | 'punct';
  /** Offsets in the text; for strings, the quotes included. */
  start: number;
  end: number;
  /** A string used as an object key. */
  isKey: boolean;
  /** For strings: the path of the value (a key's own path ends in the key). */
  path: JsonPath;
}

export type LexResult = { ok: true; tokens: JsonToken[] } | { ok: false; at: number };

type Frame = { type: 'obj'; key: string } | { type: 'arr'; index: number };
type State = 'value' | 'valueOrEnd' | 'keyOrEnd' | 'key' | 'colon' | 'commaOrEnd' | 'done';

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

/** Lexes one JSON text (a single value with optional whitespace around it). */
export function lexJson(text: string): LexResult {
  const tokens: JsonToken[] = [];
  const stack: Frame[] = [];
  let state = 'value' as State;
  let pos = 0;
  const path = (): Array<string | number> => stack.map((f) => (f.type === 'obj' ? f.key : f.index));
  const afterValue = (): State => (stack.length === 0 ? 'done' : 'commaOrEnd');
  const punct = (): void => {
    tokens.push({ kind: 'punct', start: pos, end: pos + 1, isKey: false, path: [] });
    pos++;
  };
  for (;;) {
    while (pos < text.length && (text[pos] === ' ' || text[pos] === '\t' || text[pos] === '\n' || text[pos] === '\r')) pos++;
    if (pos >= text.length) return state === 'done' ? { ok: true, tokens } : { ok: false, at: pos };
    const c = text[pos] as string;
    const top = stack[stack.length - 1];
    if (state === 'valueOrEnd') {
      if (c === ']') {
        punct();
        stack.pop();
        state = afterValue();
        continue;
      }
      state = 'value';
    }
    switch (state) {
      case 'done':
        return { ok: false, at: pos };
      case 'colon':
        if (c !== ':') return { ok: false, at: pos };
        punct();
        state = 'value';
        continue;
      case 'commaOrEnd':
        if (c === ',') {
          punct();
          if (top?.type === 'arr') {
            top.index++;
            state = 'value';
          } else state = 'key';
          continue;
        }
        if ((c === '}' && top?.type === 'obj') || (c === ']' && top?.type === 'arr')) {
          punct();
          stack.pop();
          state = afterValue();
          continue;
        }
        return { ok: false, at: pos };
      case 'keyOrEnd':
      case 'key': {
        if (c === '}' && state === 'keyOrEnd') {
          punct();
          stack.pop();
          state = afterValue();
          continue;
        }
        if (c !== '"') return { ok: false, at: pos };
        const end = stringEnd(text, pos);
        if (end < 0) return { ok: false, at: pos };
        const key = unescapeStrict(text.slice(pos + 1, end - 1));
        if (key === undefined || top?.type !== 'obj') return { ok: false, at: pos };
        top.key = key;
        tokens.push({ kind: 'string', start: pos, end, isKey: true, path: path() });
        pos = end;
        state = 'colon';
        continue;
      }
      case 'value': {
        if (c === '{') {
          punct();
          stack.push({ type: 'obj', key: '' });
          state = 'keyOrEnd';
          continue;
        }
        if (c === '[') {
          punct();
          stack.push({ type: 'arr', index: 0 });
          state = 'valueOrEnd';
          continue;
        }
        if (c === '"') {
          const end = stringEnd(text, pos);
          if (end < 0 || unescapeStrict(text.slice(pos + 1, end - 1)) === undefined) return { ok: false, at: pos };
          tokens.push({ kind: 'string', start: pos, end, isKey: false, path: path() });
          pos = end;
          state = afterValue();
          continue;
        }
        const lit = ['true', 'false', 'null'].find((l) => text.startsWith(l, pos));
        if (lit !== undefined) {
          tokens.push({ kind: 'literal', start: pos, end: pos + lit.length, isKey: false, path: path() });
          pos += lit.length;
          state = afterValue();
          continue;
        }
        NUMBER.lastIndex = pos;
        const m = NUMBER.exec(text);
        if (m === null || m[0].length === 0) return { ok: false, at: pos };
        tokens.push({ kind: 'number', start: pos, end: pos + m[0].length, isKey: false, path: path() });
        pos += m[0].length;
        state = afterValue();
        continue;
      }
    }
  }
}

/** Offset just past the closing quote of the string opening at `start`, or -1. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c === 0x5c) i += 2;
    else i++;
  }
  return -1;
}

/** True when `text` is one valid JSON text. */
export function isJsonText(text: string): boolean {
  return lexJson(text).ok;
}

/** The decoded value of a string token. */
export function stringValue(text: string, tok: JsonToken): string {
  return unescapeStrict(text.slice(tok.start + 1, tok.end - 1)) as string;
}
