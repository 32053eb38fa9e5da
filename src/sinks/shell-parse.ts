// A forgiving, linear reader of POSIX/bash command text for the restore classifier: splits it into simple
// commands ("segments") of words, with quotes and escapes removed (`c''url` → curl, `$'\x63url'` → curl),
// and marks what is computed at run time (`$X`, `$(…)`, backquotes, `<(…)`). Nesting uses an explicit
// stack, never recursion. It does not execute or expand anything; unbalanced input just ends the words.

import { readAnsiC, readDelimiter } from './shell-lexemes.ts';

/** One word of a simple command. */
export interface ShellWord {
  /** Span in the text, quotes included. */
  start: number;
  end: number;
  /** The word with quotes and escapes removed; expansions kept as written, `$(…)` bodies left out. */
  value: string;
  /** Contains an expansion computed at run time. */
  expansion: boolean;
  /** Begins with one (`$X`, `"$X"`, `$(…)`, `` `…` ``, `<(…)`). */
  leadingExpansion: boolean;
  /** A process substitution `<(…)` / `>(…)`. */
  procSubst: boolean;
  /** The redirection operator this word is the target of (`>`, `<`, `<<<`), if any. */
  redirect: string | undefined;
  /** `value` is exactly `text.slice(start, end)` (no quotes, escapes or expansions). */
  literal: boolean;
}

/** A simple command: words between operators (`;`, `&&`, `|`, newline, parentheses). */
export interface ShellSegment {
  start: number;
  end: number;
  words: ShellWord[];
  /** The operator before it was a pipe: it reads the previous command's output. */
  piped: boolean;
  /** Here-document bodies feeding it: spans in the text, and whether the delimiter was quoted (no expansion). */
  heredocs: Array<{ start: number; end: number; literal: boolean }>;
}

/** The segments of a text, and whether reading stopped at MAX_NESTING. */
export interface ParsedShell {
  segments: ShellSegment[];
  /** Nesting went deeper than MAX_NESTING: the rest was not read. */
  overflow: boolean;
}

/** Deepest nesting of `$(`, backquotes, quotes and `${` read; real commands stay far below it. */
export const MAX_NESTING = 32;

interface WordBuilder {
  start: number;
  parts: string[];
  expansion: boolean;
  leadingExpansion: boolean;
  procSubst: boolean;
  redirect: string | undefined;
  literal: boolean;
}

interface CmdFrame {
  kind: 'cmd';
  /** `)` for `$(`/`<(`, `` ` `` for backquotes, '' at the top. */
  closer: string;
  parens: number;
  segment: ShellSegment;
  word: WordBuilder | undefined;
  pendingRedirect: string | undefined;
  /** Here-documents opened on the current line, with the segment each one feeds. */
  pendingHeredocs: Array<{ delim: string; stripTabs: boolean; literal: boolean; segment: ShellSegment }>;
}

type Frame = CmdFrame | { kind: 'dq'; cmd: CmdFrame } | { kind: 'param'; cmd: CmdFrame; depth: number };

/** Characters that end a run of ordinary word characters in a command and inside double quotes. */
const CMD_SPECIAL = new Uint8Array(65536);
for (const ch of ' \t\n#\'"\\$`()|;&<>') CMD_SPECIAL[ch.charCodeAt(0)] = 1;
const DQ_SPECIAL = new Uint8Array(65536);
for (const ch of '"\\$`') DQ_SPECIAL[ch.charCodeAt(0)] = 1;

const isNameStart = (c: number): boolean => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f;
const isNameChar = (c: number): boolean => isNameStart(c) || (c >= 0x30 && c <= 0x39);

/** Reads shell text into segments. */
export function parseShell(text: string): ParsedShell {
  const n = text.length;
  const segments: ShellSegment[] = [];
  const newSegment = (start: number, piped: boolean): ShellSegment => ({ start, end: start, words: [], piped, heredocs: [] });
  const newCmd = (closer: string, start: number): CmdFrame => ({
    kind: 'cmd', closer, parens: closer === ')' ? 1 : 0, segment: newSegment(start, false), word: undefined, pendingRedirect: undefined, pendingHeredocs: [],
  });
  const stack: Frame[] = [newCmd('', 0)];
  let overflow = false;
  let i = 0;

  const wordOf = (f: CmdFrame, at: number): WordBuilder => {
    if (f.word === undefined) {
      f.word = { start: at, parts: [], expansion: false, leadingExpansion: false, procSubst: false, redirect: f.pendingRedirect, literal: true };
      f.pendingRedirect = undefined;
    }
    return f.word;
  };
  const markExpansion = (w: WordBuilder): void => {
    if (!w.expansion && w.parts.length === 0) w.leadingExpansion = true;
    w.expansion = true;
    w.literal = false;
  };
  const endWord = (f: CmdFrame, at: number): void => {
    const w = f.word;
    if (w === undefined) return;
    f.word = undefined;
    const value = w.parts.join('');
    f.segment.words.push({
      start: w.start, end: at, value, expansion: w.expansion, leadingExpansion: w.leadingExpansion, procSubst: w.procSubst,
      redirect: w.redirect, literal: w.literal && value === text.slice(w.start, at),
    });
  };
  const endSegment = (f: CmdFrame, at: number, piped: boolean): void => {
    endWord(f, at);
    const seg = f.segment;
    seg.end = at;
    if (seg.words.length > 0 || f.pendingHeredocs.some((h) => h.segment === seg)) segments.push(seg);
    f.segment = newSegment(at, piped);
  };
  const push = (frame: Frame): boolean => {
    if (stack.length >= MAX_NESTING) {
      overflow = true;
      return false;
    }
    stack.push(frame);
    return true;
  };

  /** Handles `$` at `i` inside a word of `cmd`; returns the index after what it consumed. */
  const dollar = (cmd: CmdFrame): number => {
    const w = wordOf(cmd, i);
    const c = text.charCodeAt(i + 1);
    if (c === 0x28) {
      markExpansion(w);
      push(newCmd(')', i + 2));
      return i + 2;
    }
    if (c === 0x7b) {
      markExpansion(w);
      w.parts.push('${');
      push({ kind: 'param', cmd, depth: 1 });
      return i + 2;
    }
    if (c === 0x27) {
      // ANSI-C quoting: $'\x63url' is `curl`.
      const r = readAnsiC(text, i + 2);
      w.parts.push(r.value);
      w.literal = false;
      return r.end;
    }
    if (c === 0x22) {
      w.literal = false;
      push({ kind: 'dq', cmd });
      return i + 2;
    }
    if (isNameStart(c)) {
      let e = i + 2;
      while (e < n && isNameChar(text.charCodeAt(e))) e++;
      markExpansion(w);
      w.parts.push(text.slice(i, e));
      return e;
    }
    if ((c >= 0x30 && c <= 0x39) || c === 0x40 || c === 0x2a || c === 0x23 || c === 0x3f || c === 0x24 || c === 0x21 || c === 0x2d) {
      markExpansion(w);
      w.parts.push(text.slice(i, i + 2));
      return i + 2;
    }
    w.parts.push('$');
    return i + 1;
  };

  /** After a newline: consume the bodies of here-documents opened on the line just ended. */
  const heredocBodies = (f: CmdFrame): void => {
    for (const h of f.pendingHeredocs) {
      const bodyStart = i;
      let end = n;
      let next = n;
      while (i < n) {
        let lineEnd = text.indexOf('\n', i);
        if (lineEnd === -1) lineEnd = n;
        let line = text.slice(i, lineEnd);
        if (line.endsWith('\r')) line = line.slice(0, -1);
        if (h.stripTabs) line = line.replace(/^\t+/, '');
        if (line === h.delim) {
          end = i;
          next = Math.min(n, lineEnd + 1);
          break;
        }
        i = lineEnd + 1;
      }
      h.segment.heredocs.push({ start: bodyStart, end: Math.min(end, n), literal: h.literal });
      i = next;
    }
    f.pendingHeredocs = [];
  };

  while (i < n && !overflow) {
    const f = stack[stack.length - 1] as Frame;
    const c = text.charCodeAt(i);
    if (f.kind === 'param') {
      const w = wordOf(f.cmd, i);
      if (c === 0x7b) f.depth++;
      else if (c === 0x7d) f.depth--;
      w.parts.push(text[i] as string);
      i++;
      if (f.depth === 0) stack.pop();
      continue;
    }
    if (f.kind === 'dq') {
      const w = wordOf(f.cmd, i);
      w.literal = false;
      if (c === 0x22) {
        stack.pop();
        i++;
      } else if (c === 0x5c) {
        const d = text.charCodeAt(i + 1);
        if (d === 0x24 || d === 0x60 || d === 0x22 || d === 0x5c) w.parts.push(text[i + 1] as string);
        else if (d !== 0x0a) w.parts.push(text.slice(i, i + 2));
        i += 2;
      } else if (c === 0x24) {
        i = dollar(f.cmd);
      } else if (c === 0x60) {
        markExpansion(w);
        push(newCmd('`', i + 1));
        i++;
      } else {
        let j = i + 1;
        while (j < n && DQ_SPECIAL[text.charCodeAt(j)] !== 1) j++;
        w.parts.push(text.slice(i, j));
        i = j;
      }
      continue;
    }
    // A command frame.
    switch (c) {
      case 0x20:
      case 0x09:
        endWord(f, i);
        i++;
        break;
      case 0x0a:
        endSegment(f, i, false);
        i++;
        if (f.pendingHeredocs.length > 0) heredocBodies(f);
        break;
      case 0x23: // `#` at the start of a word begins a comment
        if (f.word === undefined) {
          const nl = text.indexOf('\n', i);
          i = nl === -1 ? n : nl;
        } else {
          wordOf(f, i).parts.push('#');
          i++;
        }
        break;
      case 0x27: {
        const w = wordOf(f, i);
        w.literal = false;
        const close = text.indexOf("'", i + 1);
        const e = close === -1 ? n : close;
        w.parts.push(text.slice(i + 1, e));
        i = e + 1;
        break;
      }
      case 0x22:
        wordOf(f, i).literal = false;
        push({ kind: 'dq', cmd: f });
        i++;
        break;
      case 0x5c: {
        const w = wordOf(f, i);
        w.literal = false;
        if (text.charCodeAt(i + 1) !== 0x0a && i + 1 < n) w.parts.push(text[i + 1] as string);
        i += 2;
        break;
      }
      case 0x24:
        i = dollar(f);
        break;
      case 0x60:
        if (f.closer === '`') {
          endSegment(f, i, false);
          stack.pop();
        } else {
          markExpansion(wordOf(f, i));
          push(newCmd('`', i + 1));
        }
        i++;
        break;
      case 0x28:
        if (f.closer === ')') f.parens++;
        endSegment(f, i, false);
        i++;
        break;
      case 0x29:
        endSegment(f, i, false);
        i++;
        if (f.closer === ')' && --f.parens === 0) stack.pop();
        break;
      case 0x3b:
      case 0x26:
      case 0x7c: {
        if (c === 0x26 && text.charCodeAt(i + 1) === 0x3e) {
          // `&>file`: a redirection, not an operator.
          endWord(f, i);
          f.pendingRedirect = '>';
          i += text.charCodeAt(i + 2) === 0x3e ? 3 : 2;
          break;
        }
        const d = text.charCodeAt(i + 1);
        const double = d === c || (c === 0x7c && d === 0x26) || (c === 0x3b && d === 0x26);
        const piped = c === 0x7c && d !== 0x7c;
        endSegment(f, i, piped);
        i += double ? 2 : 1;
        break;
      }
      case 0x3c:
      case 0x3e: {
        endWord(f, i);
        if (text.charCodeAt(i + 1) === 0x28) {
          const w = wordOf(f, i);
          w.procSubst = true;
          markExpansion(w);
          push(newCmd(')', i + 2));
          i += 2;
          break;
        }
        let op = text[i] as string;
        let j = i + 1;
        while (j < n && (text[j] === '<' || text[j] === '>' || text[j] === '&' || text[j] === '|' || text[j] === '-') && op.length < 3) op += text[j++];
        i = j;
        if (op === '<<' || op === '<<-') {
          const d = readDelimiter(text, i);
          f.pendingHeredocs.push({ delim: d.delim, stripTabs: op === '<<-', literal: d.quoted, segment: f.segment });
          i = d.end;
        } else f.pendingRedirect = op;
        break;
      }
      default: {
        // A run of ordinary characters goes into the word at once.
        let j = i + 1;
        while (j < n && CMD_SPECIAL[text.charCodeAt(j)] !== 1) j++;
        wordOf(f, i).parts.push(text.slice(i, j));
        i = j;
      }
    }
  }
  // Close whatever is open (unbalanced input): inner command frames end their words and segments.
  for (let k = stack.length - 1; k >= 0; k--) {
    const f = stack[k] as Frame;
    if (f.kind === 'cmd') endSegment(f, Math.min(i, n), false);
  }
  return { segments, overflow };
}
