// The oracle's own readers for the non-SSE event streams, as blocks like SSE's (oracle/sse.ts): NDJSON
// (Ollama `/api/chat`, `/api/generate`: one JSON object per line) and a streamed JSON array (Gemini
// `:streamGenerateContent` without alt=sse: `[{…},\r\n{…}]`), each element a block whose raw text keeps
// the separators before it, so untouched elements can be compared byte for byte.

import type { SseBlock } from './sse.ts';

function block(raw: string, data: string | undefined): SseBlock {
  return { raw, name: 'message', data, dataLines: data === undefined ? 0 : 1, dataSpaces: '', otherLines: [], eol: '' };
}

/** NDJSON: a block per line (its LF included); a last line without LF is kept as it is. */
export function parseNdjsonBlocks(text: string): SseBlock[] {
  const out: SseBlock[] = [];
  let pos = 0;
  while (pos < text.length) {
    const lf = text.indexOf('\n', pos);
    const end = lf === -1 ? text.length : lf + 1;
    const line = text.slice(pos, lf === -1 ? text.length : lf);
    out.push(block(text.slice(pos, end), line === '' ? undefined : line));
    pos = end;
  }
  return out;
}

/**
 * A streamed JSON array: the opening `[`, then one block per element (the commas and blanks before it
 * in its raw text, its data the element alone), then the closing `]` with the blanks before it.
 */
export function parseJsonArrayBlocks(text: string): SseBlock[] {
  const out: SseBlock[] = [];
  let pos = 0;
  while (pos < text.length && /\s/.test(text[pos] as string)) pos++;
  if (text[pos] !== '[') return [block(text, text)];
  out.push(block(text.slice(0, pos + 1), undefined));
  pos++;
  let start = pos;
  let depth = 0;
  let inString = false;
  let dataStart = -1;
  for (let i = pos; i < text.length; i++) {
    const c = text[i] as string;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    if (dataStart === -1 && !/[\s,\]]/.test(c)) dataStart = i;
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || (c === ']' && depth > 0)) {
      depth--;
      if (depth === 0 && dataStart !== -1) {
        out.push(block(text.slice(start, i + 1), text.slice(dataStart, i + 1)));
        start = i + 1;
        dataStart = -1;
      }
    } else if (c === ']' && depth === 0) {
      out.push(block(text.slice(start), undefined));
      return out;
    }
  }
  if (start < text.length) out.push(block(text.slice(start), undefined));
  return out;
}
