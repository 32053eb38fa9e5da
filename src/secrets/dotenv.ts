// A dotenv parser: `KEY=value`, `export KEY=value`, comments, single/double/backtick quotes,
// escapes in double quotes, multi-line quoted values, CRLF. No variable expansion: `$` is literal.
// Errors name the line, never the value.

import { FictaError } from '../errors.ts';
import { err, ok, type Result } from '../util/result.ts';

export interface DotenvEntry {
  name: string;
  value: string;
  /** 1-based line where the entry starts. */
  line: number;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/**
 * Parses dotenv text into every assignment, in order. A name assigned twice appears twice: as a list of
 * secrets both values matter (dropping one would let it reach the provider raw), so callers decide —
 * serve protects every value, `vault import` refuses different values for one name unless asked to rename.
 */
export function parseDotenv(text: string, source = 'env file'): Result<DotenvEntry[]> {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const entries: DotenvEntry[] = [];
  let i = 0;
  let line = 1;
  const n = src.length;

  const fail = (what: string, at: number): Result<DotenvEntry[]> =>
    err(new FictaError('FICTA_SECRETS_INVALID', `secrets: ${source}: line ${at}: ${what}`));

  while (i < n) {
    // Skip blank space (including blank lines) before an entry.
    const c = src[i] as string;
    if (c === '\n') { line++; i++; continue; }
    if (c === ' ' || c === '\t' || c === '\r') { i++; continue; }
    if (c === '#') { i = skipToLineEnd(src, i); continue; }

    const startLine = line;
    let lineEnd = src.indexOf('\n', i);
    if (lineEnd === -1) lineEnd = n;
    const eq = src.indexOf('=', i);
    if (eq === -1 || eq > lineEnd) {
      return fail('expected NAME=value', startLine);
    }
    let name = src.slice(i, eq).trim();
    if (name.startsWith('export ') || name.startsWith('export\t')) name = name.slice(7).trim();
    if (!NAME.test(name)) return fail('invalid variable name', startLine);
    i = eq + 1;
    while (i < n && (src[i] === ' ' || src[i] === '\t')) i++;

    const q = src[i];
    let value: string;
    if (q === '"' || q === "'" || q === '`') {
      const close = findClosingQuote(src, i + 1, q);
      if (close === -1) return fail(`unterminated ${q === '"' ? 'double' : q === "'" ? 'single' : 'backtick'}-quoted value`, startLine);
      const raw = src.slice(i + 1, close);
      value = q === '"' ? unescapeDouble(raw) : raw;
      value = value.replace(/\r\n/g, '\n');
      for (let k = i; k < close; k++) if (src[k] === '\n') line++;
      i = close + 1;
      // Only blank space or a comment may follow a closing quote on its line.
      let end = src.indexOf('\n', i);
      if (end === -1) end = n;
      const tail = src.slice(i, end).trim();
      if (tail !== '' && !tail.startsWith('#')) return fail('unexpected text after closing quote', line);
      i = end;
    } else {
      let raw = src.slice(i, lineEnd);
      const hash = raw.search(/\s#/);
      if (hash !== -1) raw = raw.slice(0, hash);
      value = raw.trim();
      i = lineEnd;
    }
    entries.push({ name, value, line: startLine });
  }
  return ok(entries);
}

function skipToLineEnd(src: string, i: number): number {
  const end = src.indexOf('\n', i);
  return end === -1 ? src.length : end;
}

function findClosingQuote(src: string, from: number, q: string): number {
  for (let k = from; k < src.length; k++) {
    const c = src[k];
    if (c === '\\' && q === '"') { k++; continue; }
    if (c === q) return k;
  }
  return -1;
}

const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\', $: '$', "'": "'", '`': '`' };

function unescapeDouble(raw: string): string {
  return raw.replace(/\\([nrt"\\$'`])/g, (_m, ch: string) => ESCAPES[ch] as string);
}
