// Writes JSON text the way real clients do and the way hostile ones might: per-character escape
// choices (short escapes, `\u` with upper- or lower-case hex, surrogate pairs, `\/`, Python's
// ensure_ascii), optional whitespace, and strings whose content is itself JSON text, nested to any
// depth — so a backslash of an inner escape can itself be written as `\u005c` (escape-building).

import type { Rng } from '../rng.ts';

export interface StringStyle {
  /** Chance that a character with no need to be escaped is written as `\uXXXX` anyway. */
  unicodeShare: number;
  /** Hex digits of `\u` escapes. */
  hex: 'lower' | 'upper' | 'mixed';
  /** Chance that `/` is written `\/`. */
  slashShare: number;
  /** Every non-ASCII character as `\u` (Python's json.dumps default). */
  asciiOnly: boolean;
  /** Chance that a quote, backslash or control character uses its `\u` form instead of the short one. */
  longFormShare: number;
}

/** JSON.stringify's own escaping. */
export const PLAIN_STYLE: StringStyle = { unicodeShare: 0, hex: 'lower', slashShare: 0, asciiOnly: false, longFormShare: 0 };
/** Python's json.dumps default (ensure_ascii: every non-ASCII character as a lowercase `\u` escape). */
export const PYTHON_STYLE: StringStyle = { unicodeShare: 0, hex: 'lower', slashShare: 0, asciiOnly: true, longFormShare: 0 };

const SHORT: Record<number, string> = { 0x22: '\\"', 0x5c: '\\\\', 0x08: '\\b', 0x0c: '\\f', 0x0a: '\\n', 0x0d: '\\r', 0x09: '\\t' };

function u(rng: Rng, style: StringStyle, unit: number): string {
  let h = unit.toString(16).padStart(4, '0');
  if (style.hex === 'upper' || (style.hex === 'mixed' && rng.chance(0.5))) h = h.toUpperCase();
  return `\\u${h}`;
}

/** The content of a JSON string literal for `s` (no quotes), with `style`'s escape choices. */
export function encodeContent(rng: Rng, s: string, style: StringStyle): string {
  const out: string[] = [];
  for (let i = 0; i < s.length; i++) {
    const unit = s.charCodeAt(i);
    const isHigh = unit >= 0xd800 && unit <= 0xdbff;
    const next = s.charCodeAt(i + 1);
    if (isHigh && next >= 0xdc00 && next <= 0xdfff) {
      // A surrogate pair: both halves as escapes, or the character as it is.
      if (style.asciiOnly || rng.chance(style.unicodeShare)) out.push(u(rng, style, unit), u(rng, style, next));
      else out.push(s.slice(i, i + 2));
      i++;
      continue;
    }
    if (unit >= 0xd800 && unit <= 0xdfff) {
      out.push(u(rng, style, unit)); // a lone surrogate has no UTF-8 form: always escaped
      continue;
    }
    const short = SHORT[unit];
    if (short !== undefined) out.push(rng.chance(style.longFormShare) ? u(rng, style, unit) : short);
    else if (unit < 0x20) out.push(u(rng, style, unit));
    else if (unit === 0x2f && rng.chance(style.slashShare)) out.push('\\/');
    else if ((unit >= 0x80 && style.asciiOnly) || rng.chance(style.unicodeShare)) out.push(u(rng, style, unit));
    else out.push(s[i] as string);
  }
  return out.join('');
}

/** A JSON value to write: strings carry their content, `json` strings carry a nested document. */
export type JNode =
  | { t: 'obj'; entries: Array<[string, JNode]> }
  | { t: 'arr'; items: JNode[] }
  | { t: 'str'; s: string }
  | { t: 'json'; doc: JNode }
  | { t: 'num'; raw: string }
  | { t: 'lit'; raw: 'true' | 'false' | 'null' };

export interface WriteOptions {
  /** Escape style for each nesting level (the last one repeats). */
  styles: readonly StringStyle[];
  /** Whitespace between tokens: none, Python's `, `/`: `, or random blanks. */
  spacing: 'compact' | 'python' | 'random';
}

/** Writes `node` as JSON text; strings holding JSON text are written at the next level's style. */
export function writeJson(rng: Rng, node: JNode, options: WriteOptions, level = 0): string {
  const style = options.styles[Math.min(level, options.styles.length - 1)] as StringStyle;
  const ws = (): string => (options.spacing === 'random' && rng.chance(0.3) ? rng.pick([' ', '\n', '  ', '\t', '\r\n', ' \n ']) : '');
  const comma = options.spacing === 'python' ? ', ' : ',';
  const colon = options.spacing === 'python' ? ': ' : ':';
  switch (node.t) {
    case 'obj':
      return `{${ws()}${node.entries.map(([k, v]) => `"${encodeContent(rng, k, style)}"${ws()}${colon}${ws()}${writeJson(rng, v, options, level)}${ws()}`).join(comma + ws())}}`;
    case 'arr':
      return `[${ws()}${node.items.map((v) => writeJson(rng, v, options, level)).join(`${comma}${ws()}`)}${ws()}]`;
    case 'str':
      return `"${encodeContent(rng, node.s, style)}"`;
    case 'json':
      return `"${encodeContent(rng, writeJson(rng, node.doc, options, level + 1), style)}"`;
    case 'num':
    case 'lit':
      return node.raw;
  }
}
