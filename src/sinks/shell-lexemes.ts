// Two lexemes of shell text with their own small grammars: a here-document delimiter word (`<<'EOF'`,
// `<<-"END"`) and an ANSI-C quoted string (`$'\x63url'`), decoded the way bash does.

/** Reads a here-document delimiter word after `<<`: its unquoted text and whether any part was quoted. */
export function readDelimiter(text: string, from: number): { delim: string; quoted: boolean; end: number } {
  let i = from;
  while (i < text.length && (text[i] === ' ' || text[i] === '\t')) i++;
  let delim = '';
  let quoted = false;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === "'" || ch === '"') {
      quoted = true;
      const close = text.indexOf(ch, i + 1);
      const e = close === -1 ? text.length : close;
      delim += text.slice(i + 1, e);
      i = e + 1;
      continue;
    }
    if (ch === '\\') {
      quoted = true;
      delim += text[i + 1] ?? '';
      i += 2;
      continue;
    }
    if (' \t\n;&|<>()'.includes(ch)) break;
    delim += ch;
    i++;
  }
  return { delim, quoted, end: i };
}

/** Decodes the body of `$'…'` from `from` (after the quote): \xHH, \NNN, \uHHHH, \UHHHHHHHH, \n and friends. */
export function readAnsiC(text: string, from: number): { value: string; end: number } {
  const out: string[] = [];
  let i = from;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === "'") return { value: out.join(''), end: i + 1 };
    if (ch !== '\\') {
      out.push(ch);
      i++;
      continue;
    }
    const e = text[i + 1] ?? '';
    const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' };
    if (simple[e] !== undefined) {
      out.push(simple[e]);
      i += 2;
    } else if (e === 'x' || e === 'u' || e === 'U') {
      const max = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      let j = i + 2;
      while (j < i + 2 + max && j < text.length && /[0-9a-fA-F]/.test(text[j] as string)) j++;
      const cp = j > i + 2 ? Number.parseInt(text.slice(i + 2, j), 16) : Number.NaN;
      out.push(Number.isNaN(cp) || cp > 0x10ffff ? `\\${e}` : String.fromCodePoint(cp));
      i = j;
    } else if (e >= '0' && e <= '7') {
      let j = i + 1;
      while (j < i + 4 && j < text.length && (text[j] as string) >= '0' && (text[j] as string) <= '7') j++;
      out.push(String.fromCharCode(Number.parseInt(text.slice(i + 1, j), 8) & 0xff));
      i = j;
    } else {
      out.push(`\\${e}`);
      i += 2;
    }
  }
  return { value: out.join(''), end: text.length };
}
