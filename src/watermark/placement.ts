// Where a frame may go: the ends of prose lines and of code comment lines, never in structured data
// (JSON/YAML/CSV/TOML), string literals, URLs, paths, tables, or after an identifier in code.

/** Prose lines shorter than this carry no frame (headings, list stubs, labels). */
export const MIN_PROSE_LINE_CHARS = 20;
/** Comment lines shorter than this carry no frame. */
export const MIN_COMMENT_LINE_CHARS = 12;

export interface LineEnds {
  /** UTF-16 offsets where a frame may be inserted (just before the line's `\r` or `\n`). */
  offsets: number[];
  /** For each offset, the ordinal of that line's `\n` among all `\n` in the text. */
  ordinals: number[];
}

type Mode = 'prose' | 'code' | 'skip';

// Last characters after which a frame may follow in prose: sentence-final and closing punctuation
// (ASCII, typographic and CJK). A frame after a letter would be selected with the word by a double click.
const PROSE_END = /[.!?:;,)\]"'»”’…。！？；：，）」』】》]/;
// In comments a word may end the line: comments are not parsed, and never end in an identifier context.
const COMMENT_END = /[\p{L}\p{N}.!?:;,)\]"'»”’…。！？；：，）」』】》]/u;
// A last token that is a URL, e-mail, path, assignment, markup or code would be damaged or linkified.
const RISKY_LAST_TOKEN = /:\/\/|www\.|@|[\\/=`<>|{}]|\$\(/;
const FENCE = /^\s{0,3}(`{3,}|~{3,})\s*([\w+#.-]*)/;
const STRUCTURED_LANGS = new Set(['', 'json', 'jsonc', 'json5', 'jsonl', 'ndjson', 'yaml', 'yml', 'csv', 'tsv', 'toml', 'ini', 'xml', 'html', 'svg', 'env', 'dotenv', 'properties', 'diff', 'patch', 'text', 'txt', 'plaintext', 'console', 'output', 'log', 'sql', 'graphql', 'http', 'mermaid']);
const CODE_LINE_START = /^\s*(import|export|from|def|class|function|const|let|var|return|if|elif|else|for|while|switch|case|fn|pub|use|mod|impl|struct|enum|trait|package|func|type|interface|public|private|protected|static|async|await|try|catch|except|finally|raise|throw|#include|#define|#if|#endif|@\w+|package|namespace|using|module|require)\b/;
const CODE_LINE_END = /([;{}()[\],]|=>|->|\):)\s*$/;
const YAML_KEY = /^\s*(- +)?[\w"'][\w.\-"' ]*:(\s|$)/;
const YAML_OTHER = /^\s*(- |#|---\s*$|\.\.\.\s*$)/;
const INI_LINE = /^\s*(\[[^\]]+\]|[\w.\-]+\s*=\s*\S)/;
const COMMENT_START = /^\s*(\/\/+|#+(?=\s)|--(?=\s)|;+(?=\s)|\*(?=\s)|\/\*+|<!--|%(?=\s)|rem\s)/i;

/** Offsets of the line ends in `text` where a frame may go, in order. */
export function findMarkableLineEnds(text: string): LineEnds {
  const offsets: number[] = [];
  const ordinals: number[] = [];
  const lines = splitLines(text);
  const docMode = classifyDocument(text, lines);
  if (docMode === 'skip') return { offsets, ordinals };

  let fence: { marker: string; mode: Mode } | undefined;
  let frontMatter = lines.length > 0 && /^---\s*$/.test(lines[0]!.content);
  let inTriple = false;
  let inTemplate = false;
  let inBlockComment = false;

  for (let li = 0; li < lines.length; li++) {
    const line = lines[li]!;
    const s = line.content;
    if (frontMatter) {
      if (li > 0 && /^(---|\.\.\.)\s*$/.test(s)) frontMatter = false;
      continue;
    }
    const fenceMatch = FENCE.exec(s);
    if (fence !== undefined) {
      if (fenceMatch !== null && fenceMatch[1]!.startsWith(fence.marker) && s.trim().length === fenceMatch[1]!.length) {
        fence = undefined;
        continue;
      }
    } else if (fenceMatch !== null && docMode === 'prose') {
      const lang = fenceMatch[2]!.toLowerCase();
      fence = { marker: fenceMatch[1]!, mode: STRUCTURED_LANGS.has(lang) ? 'skip' : 'code' };
      inTriple = inTemplate = inBlockComment = false;
      continue;
    }
    const mode: Mode = fence !== undefined ? fence.mode : docMode;
    if (mode === 'skip' || line.newline < 0) continue;

    let ok: boolean;
    if (mode === 'code') {
      const startsInString = inTriple || inTemplate;
      const startsInComment = inBlockComment;
      const triples = count(s, '"""') + count(s, "'''");
      if (triples % 2 === 1) inTriple = !inTriple;
      if (!inTriple && countUnescaped(s, '`') % 2 === 1) inTemplate = !inTemplate;
      if (!startsInString && !inTriple && !inTemplate) {
        const opens = s.lastIndexOf('/*');
        const closes = s.lastIndexOf('*/');
        if (opens >= 0 && opens > closes) inBlockComment = true;
        else if (closes >= 0) inBlockComment = false;
      }
      ok = !startsInString && !inTriple && !inTemplate && isMarkableComment(s, startsInComment);
    } else {
      ok = isMarkableProse(s);
    }
    if (ok) {
      offsets.push(line.end);
      ordinals.push(line.newline);
    }
  }
  return { offsets, ordinals };
}

interface Line {
  content: string;
  /** Offset just after the content (before `\r` or `\n`). */
  end: number;
  /** Ordinal of the terminating `\n`, -1 for a last line without one. */
  newline: number;
}

function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  let ordinal = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) {
      lines.push({ content: text.slice(start), end: text.length, newline: -1 });
      return lines;
    }
    const end = nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
    lines.push({ content: text.slice(start, end), end, newline: ordinal++ });
    start = nl + 1;
  }
}

/** Whole-document guess: structured data carries no frame; source code carries them in comments only. */
function classifyDocument(text: string, lines: readonly Line[]): Mode {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      JSON.parse(text);
      return 'skip';
    } catch {
      // Not JSON after all; keep classifying.
    }
  }
  let nonEmpty = 0;
  let yamlKey = 0;
  let yamlOther = 0;
  let ini = 0;
  let code = 0;
  const delimiterCounts = new Map<string, number>();
  for (const { content } of lines) {
    if (content.trim() === '') continue;
    nonEmpty++;
    if (YAML_KEY.test(content)) yamlKey++;
    else if (YAML_OTHER.test(content)) yamlOther++;
    if (INI_LINE.test(content)) ini++;
    if (CODE_LINE_START.test(content) || CODE_LINE_END.test(content)) code++;
    for (const d of [',', '\t', ';', '|']) {
      const n = count(content, d);
      if (n > 0) delimiterCounts.set(`${d}${n}`, (delimiterCounts.get(`${d}${n}`) ?? 0) + 1);
    }
  }
  if (nonEmpty === 0) return 'skip';
  if (yamlKey >= 0.4 * nonEmpty && yamlKey + yamlOther >= 0.8 * nonEmpty) return 'skip';
  if (ini >= 0.6 * nonEmpty) return 'skip';
  if (nonEmpty >= 3) {
    for (const [key, n] of delimiterCounts) {
      // CSV/TSV: most lines carry the same number of the same delimiter.
      if (n >= 0.8 * nonEmpty && (key[0] === '\t' || Number(key.slice(1)) >= 2)) return 'skip';
    }
  }
  return code >= 0.3 * nonEmpty ? 'code' : 'prose';
}

function isMarkableProse(s: string): boolean {
  if (s.length < MIN_PROSE_LINE_CHARS) return false;
  const last = s[s.length - 1]!;
  if (!PROSE_END.test(last)) return false;
  if (/^(\s{4}|\t)/.test(s)) return false; // Markdown indented code block
  const lead = s.trimStart();
  if (lead.startsWith('|') || count(s, '|') >= 2) return false; // tables
  if (lead.startsWith('<') || /^\[[^\]]*\]:/.test(lead)) return false; // markup, link definitions
  const cjkEnd = /[。！？；：，）」』】》]/.test(last);
  if (!cjkEnd && count(s, ' ') < 3) return false;
  if (countUnescaped(s, '`') % 2 === 1 || count(s, '"') % 2 === 1) return false; // open code span or quote
  return !RISKY_LAST_TOKEN.test(lastToken(s));
}

function isMarkableComment(s: string, insideBlockComment: boolean): boolean {
  if (s.length < MIN_COMMENT_LINE_CHARS || /\s$/.test(s)) return false;
  if (s.includes('*/') || s.endsWith('\\') || s.endsWith('-->')) return false;
  const match = insideBlockComment ? /^\s*/.exec(s) : COMMENT_START.exec(s);
  if (match === null) return false;
  const body = s.slice(match[0].length).trim();
  if (!/\S\s+\S/.test(body)) return false; // at least two words
  if (!COMMENT_END.test(s[s.length - 1]!)) return false;
  if (count(body, '"') % 2 === 1 || countUnescaped(body, '`') % 2 === 1) return false;
  return !RISKY_LAST_TOKEN.test(lastToken(s));
}

function lastToken(s: string): string {
  const i = s.lastIndexOf(' ');
  return i < 0 ? s : s.slice(i + 1);
}

function count(s: string, needle: string): number {
  let n = 0;
  for (let i = s.indexOf(needle); i >= 0; i = s.indexOf(needle, i + needle.length)) n++;
  return n;
}

function countUnescaped(s: string, ch: string): number {
  let n = 0;
  for (let i = s.indexOf(ch); i >= 0; i = s.indexOf(ch, i + 1)) if (i === 0 || s[i - 1] !== '\\') n++;
  return n;
}
