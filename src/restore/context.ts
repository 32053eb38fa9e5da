// How deep a position sits in nested JSON strings, which decides how a restored value is escaped:
// 0 = not in a string (plain text), 1 = in a string, 2 = in a string of JSON text inside a string
// (tool-call arguments), and so on. Computed only where a placeholder is found.

import { decodeEscapes, findStringStart } from '../redact/json-text.ts';

/** Nesting levels considered; deeper placeholders are escaped for this many levels. */
const MAX_DEPTH = 4;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** String depth of `pos` in JSON text `buf` (a placeholder can only sit inside a string in valid JSON). */
export function jsonDepthAt(buf: Buffer, pos: number): number {
  return depthAt(buf, pos, MAX_DEPTH);
}

/**
 * Extra depth of `pos` within the decoded content of one JSON string: 0 unless that content is JSON
 * text and `pos` is inside one of its strings.
 */
export function depthWithinString(content: Buffer, pos: number): number {
  if (!startsLikeJson(content, 0, pos)) return 0;
  if (!endsInsideString(content, pos)) return 0;
  return depthAt(content, pos, MAX_DEPTH - 1);
}

function depthAt(buf: Buffer, pos: number, budget: number): number {
  if (budget <= 0) return 0;
  const s = findStringStart(buf, pos, 0);
  if (s === -1) return 0;
  if (budget === 1 || !startsLikeJson(buf, s + 1, pos)) return 1;
  const content = decodeEscapes(buf, s + 1, pos).bytes;
  if (!endsInsideString(content, content.length)) return 1;
  return 1 + depthAt(content, content.length, budget - 1);
}

/** True when the first non-blank byte in [from, to) — escaped blanks (`\n`) count as blank — is `{` or `[`. */
function startsLikeJson(buf: Buffer, from: number, to: number): boolean {
  let i = from;
  while (i < to) {
    const b = buf[i] as number;
    if (b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09) {
      i++;
      continue;
    }
    if (b === BACKSLASH && i + 1 < to) {
      const n = buf[i + 1];
      if (n === 0x6e || n === 0x72 || n === 0x74) {
        i += 2;
        continue;
      }
    }
    return b === 0x7b || b === 0x5b;
  }
  return false;
}

/** True when the end of `buf[0, end)` lies inside a string literal (forward scan of quotes). */
function endsInsideString(buf: Buffer, end: number): boolean {
  let inString = false;
  let i = 0;
  while (i < end) {
    const q = buf.indexOf(QUOTE, i);
    if (q === -1 || q >= end) break;
    if (inString) {
      let n = 0;
      for (let k = q - 1; k >= 0 && buf[k] === BACKSLASH; k--) n++;
      if ((n & 1) === 0) inString = false;
    } else inString = true;
    i = q + 1;
  }
  return inString;
}
