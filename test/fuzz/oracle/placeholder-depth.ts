// Where a placeholder sits, as the oracle sees it: the JSON string depth its restored value needs, by
// the forward prefix rule (DESIGN §1). A text is JSON text when its first non-blank character is `{` or
// `[` (a document declared JSON: any value) and only while it is valid so far, by the strict RFC 8259
// grammar; from its first violation on it is prose. Inside a string value the depth is 1 + the depth
// in the string's decoded content so far, read by the same rule; an object key is never JSON text.
// Only what comes before the placeholder decides — what follows it never changes its depth.

import type { PlaceholderMap } from './placeholder-map.ts';

/** How to read a text: as a document declared JSON, as plain text, or by the prefix rule. */
export type Reading = 'json' | 'plain' | 'prefix';

/** How a text's JSON-ness starts: any JSON value (declared JSON), or JSON only when `{`/`[` comes first. */
export type Start = 'value' | 'structured';

const BLANK = new Set([' ', '\t', '\n', '\r']);
const SIMPLE_ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const SIMPLE_VALUE: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const HEX = /^[0-9a-fA-F]$/;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const LITERALS = ['true', 'false', 'null'];

/** What the grammar expects next, outside tokens. */
type Expect = 'value' | 'valueOrClose' | 'keyOrClose' | 'key' | 'colon' | 'after' | 'end';

/** Where a text ends, as far as the depth of a character appended to it goes. */
type EndState =
  /** Prose, undecided, or outside any string: depth 0 here. */
  | { kind: 'outside' }
  /** Inside a string (a key or a value); `decoded` is its content so far; `escape` a pending escape. */
  | { kind: 'string'; key: boolean; decoded: string; escape: string };

/** Reads `text` forward by the prefix rule and says where it ends. */
function endState(text: string, start: Start): EndState {
  const outside: EndState = { kind: 'outside' };
  let i = 0;
  while (i < text.length && BLANK.has(text[i] as string)) i++;
  if (i === text.length) return outside;
  if (start === 'structured' && text[i] !== '{' && text[i] !== '[') return outside;
  // The grammar: a stack of open containers and what may come next.
  const stack: Array<'obj' | 'arr'> = [];
  let expect = 'value' as Expect;
  const valueDone = (): void => {
    expect = stack.length === 0 ? 'end' : 'after';
  };
  while (i < text.length) {
    const c = text[i] as string;
    if (BLANK.has(c)) {
      i++;
      continue;
    }
    if (expect === 'end') return outside;
    if (expect === 'colon') {
      if (c !== ':') return outside;
      expect = 'value';
      i++;
      continue;
    }
    if (expect === 'after') {
      const top = stack[stack.length - 1];
      if (c === ',') expect = top === 'obj' ? 'key' : 'value';
      else if ((c === '}' && top === 'obj') || (c === ']' && top === 'arr')) {
        stack.pop();
        valueDone();
      } else return outside;
      i++;
      continue;
    }
    if (expect === 'keyOrClose' && c === '}') {
      stack.pop();
      valueDone();
      i++;
      continue;
    }
    if (expect === 'valueOrClose' && c === ']') {
      stack.pop();
      valueDone();
      i++;
      continue;
    }
    const wantsKey = expect === 'key' || expect === 'keyOrClose';
    if (c === '"') {
      // A string: read to its closing quote, strictly (no raw control character, valid escapes only).
      const s = readString(text, i + 1);
      if (s.kind === 'invalid') return outside;
      if (s.kind === 'open') return { kind: 'string', key: wantsKey, decoded: s.decoded, escape: s.escape };
      i = s.end;
      if (wantsKey) expect = 'colon';
      else valueDone();
      continue;
    }
    if (wantsKey) return outside;
    if (c === '{' || c === '[') {
      stack.push(c === '{' ? 'obj' : 'arr');
      expect = c === '{' ? 'keyOrClose' : 'valueOrClose';
      i++;
      continue;
    }
    const literal = LITERALS.find((l) => text.startsWith(l, i));
    if (literal !== undefined) {
      i += literal.length;
      valueDone();
      continue;
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    // A number or literal cut off by the text's end is outside any string either way.
    if (m === null) return outside;
    i += m[0].length;
    valueDone();
  }
  return outside;
}

type StringRead = { kind: 'closed'; end: number } | { kind: 'open'; decoded: string; escape: string } | { kind: 'invalid' };

/** Reads string content from `from` (just past the opening quote). */
function readString(text: string, from: number): StringRead {
  let decoded = '';
  let i = from;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '"') return { kind: 'closed', end: i + 1 };
    if (c.charCodeAt(0) < 0x20) return { kind: 'invalid' };
    if (c !== '\\') {
      decoded += c;
      i++;
      continue;
    }
    const e = text[i + 1];
    if (e === undefined) return { kind: 'open', decoded, escape: '\\' };
    if (SIMPLE_ESCAPES.has(e)) {
      decoded += SIMPLE_VALUE[e] as string;
      i += 2;
      continue;
    }
    if (e !== 'u') return { kind: 'invalid' };
    const hex = text.slice(i + 2, i + 6);
    for (const h of hex) if (!HEX.test(h)) return { kind: 'invalid' };
    if (hex.length < 4) return { kind: 'open', decoded, escape: `\\u${hex}` };
    decoded += String.fromCharCode(parseInt(hex, 16));
    i += 6;
  }
  return { kind: 'open', decoded, escape: '' };
}

/**
 * The string depth of a placeholder written right after `before`: 0 outside strings (and in prose), 1 in
 * a key, 1 + the depth in the decoded content so far in a string value. A pending escape makes the
 * placeholder's `~` an invalid escape: a violation, so prose.
 */
export function depthAfter(before: string, start: Start): number {
  let depth = 0;
  let text = before;
  let how = start;
  // One round per string level (iterative: the nesting a generator writes is small anyway).
  for (;;) {
    const end = endState(text, how);
    if (end.kind === 'outside' || end.escape !== '') return depth;
    depth++;
    if (end.key) return depth;
    text = end.decoded;
    how = 'structured';
  }
}

/** The depth of each known placeholder occurrence in `text`, in the order `map.find` lists them. */
export function occurrenceDepths(text: string, map: PlaceholderMap, reading: Reading): number[] {
  const found = map.find(text);
  if (reading === 'plain') return found.map(() => 0);
  const start: Start = reading === 'json' ? 'value' : 'structured';
  return found.map((o) => depthAfter(text.slice(0, o.start), start));
}
