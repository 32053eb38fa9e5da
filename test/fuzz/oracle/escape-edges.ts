// Where a JSON document's raw text holds a value only by reading across the edge of an escape: `tok\` in
// `"tok\" now"`, `tabc` in `"\tabc"`, `u00e9-x` in `"\u00e9-x"`. Inside a string literal those characters
// are not the value (the string decodes to something else), so the raw views of a JSON body do not count
// such an occurrence as a leak; every decoded view still looks for the value. Written for the oracle alone,
// on its own lexer.

import { lexJson } from './json-lexer.ts';

/**
 * For JSON text (or JSONL: one JSON text per line), a predicate saying whether text[start, end) lies
 * inside one string literal and starts or ends strictly inside one of its escapes; undefined when the
 * text does not lex (then every raw occurrence counts).
 */
export function escapeEdgeTest(text: string, kind: 'json' | 'jsonl'): ((start: number, end: number) => boolean) | undefined {
  // stringOf[i]: index + 1 of the string literal whose content holds position i (0 outside strings);
  // inside[i]: position i lies strictly between the first and last character of an escape.
  const stringOf = new Int32Array(text.length + 1);
  const inside = new Uint8Array(text.length + 1);
  let strings = 0;
  const lines: Array<[number, number]> = kind === 'json' ? [[0, text.length]] : lineSpans(text);
  for (const [from, to] of lines) {
    const line = text.slice(from, to);
    if (kind === 'jsonl' && line.trim() === '') continue;
    const lexed = lexJson(line);
    if (!lexed.ok) return undefined;
    for (const tok of lexed.tokens) {
      if (tok.kind !== 'string') continue;
      strings++;
      const a = from + tok.start + 1;
      const b = from + tok.end - 1;
      for (let i = a; i <= b; i++) stringOf[i] = strings;
      for (let i = a; i < b; i++) {
        if (text.charCodeAt(i) !== 0x5c) continue;
        const len = text[i + 1] === 'u' ? 6 : 2;
        for (let k = i + 1; k < i + len; k++) inside[k] = 1;
        i += len - 1;
      }
    }
  }
  return (start, end) => stringOf[start] !== 0 && stringOf[start] === stringOf[end] && (inside[start] === 1 || inside[end] === 1);
}

function lineSpans(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let from = 0;
  for (;;) {
    const nl = text.indexOf('\n', from);
    if (nl === -1) {
      out.push([from, text.length]);
      return out;
    }
    out.push([from, nl]);
    from = nl + 1;
  }
}
