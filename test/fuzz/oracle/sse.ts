// The oracle's own server-sent-events reader (WHATWG HTML §9.2): blocks separated by a blank line,
// lines ending in CRLF, LF or CR, comments, `event:`, `data:` (joined with LF), other fields — and
// each block's raw text, so untouched events can be compared byte for byte.

export interface SseBlock {
  /** The block's bytes as text, its terminating blank line included. */
  raw: string;
  /** `event:` value, or "message". */
  name: string;
  /** `data:` lines joined with LF, or undefined when there is none. */
  data: string | undefined;
  dataLines: number;
  /** Per data line, whether it was written `data: ` (with the optional space) rather than `data:`. */
  dataSpaces: string;
  /** Every line that is not a `data:` line (comments, event, id, retry, unknown fields), in order. */
  otherLines: string[];
  /** The first line terminator of the block ('' when it has none). */
  eol: string;
}

/** Splits an SSE stream into blocks; a trailing block without its blank line is kept as it is. */
export function parseSseBlocks(text: string): SseBlock[] {
  const blocks: SseBlock[] = [];
  let pos = 0;
  let cur: { start: number; lines: string[]; eol: string } = { start: 0, lines: [], eol: '' };
  const close = (end: number): void => {
    if (end > cur.start) blocks.push(toBlock(text.slice(cur.start, end), cur.lines, cur.eol));
    cur = { start: end, lines: [], eol: '' };
  };
  while (pos < text.length) {
    let i = pos;
    while (i < text.length && text[i] !== '\n' && text[i] !== '\r') i++;
    const line = text.slice(pos, i);
    let eol = '';
    if (i < text.length) eol = text[i] === '\r' && text[i + 1] === '\n' ? '\r\n' : (text[i] as string);
    const next = i + eol.length;
    if (line === '' && eol !== '') {
      close(next);
    } else {
      cur.lines.push(line);
      if (cur.eol === '') cur.eol = eol;
    }
    pos = next;
  }
  close(text.length);
  return blocks;
}

function toBlock(raw: string, lines: string[], eol: string): SseBlock {
  let name = 'message';
  let data: string[] | undefined;
  let dataSpaces = '';
  const otherLines: string[] = [];
  for (const line of lines) {
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      dataSpaces += line.startsWith('data: ') ? 's' : '-';
      (data ??= []).push(value);
      continue;
    }
    if (field === 'event') name = value;
    otherLines.push(line);
  }
  return { raw, name, data: data?.join('\n'), dataLines: data?.length ?? 0, dataSpaces, otherLines, eol };
}
