// A forward, incremental, validating JSON lexer that knows the exact string depth at every byte: 0
// outside strings, 1 inside a string, 2 inside a string of JSON text nested in that string, and so on.
// State is carried across chunks and events, so a decision at a placeholder depends only on the bytes
// before it (and never on a look-back window or a guess).
//
// Levels. Level 0 reads raw bytes. Whenever a level is inside a string, the string's decoded content
// is fed to a child level, which starts undecided: blanks keep it undecided, `{` or `[` make it JSON
// text (validated from there on), anything else makes it prose. At the first grammar violation a
// level becomes prose for the rest of its string, and its children are dropped. A prose level costs
// nothing: level 0 skips a prose string with one `indexOf` per quote.
//
// Strictness. Text that may or may not be JSON (every nested level, and a level 0 that starts
// `structured`) is held to RFC 8259 in full: a raw control character (below 0x20) inside a string
// and an invalid escape anywhere (keys and prose strings included) are violations. A level 0 that
// starts `value` reads what the provider declared JSON (or JSON.parse already accepted), so there
// only the backslash parity of strings whose content is not lexed matters, and raw control
// characters (invalid JSON) are taken as content, down the levels too: its strings are skipped with
// one search per quote, and the runs it hands down are not searched again.
//
// Limits (the same on every path, so chunking never changes an answer):
// - MAX_STRING_DEPTH levels are followed; a string at the last level whose content starts like JSON
//   makes every position inside it DEPTH_UNKNOWN (callers fail closed: no restore).
// - A decoded non-ASCII character reaches a child as one byte 0x80 (only ASCII shapes JSON).
// - Object keys are strings at their level but never JSON text: their content is not lexed.

import { ByteSearch, OPEN_ESCAPED, plainEnd } from './byte-search.ts';
import { ESCAPED, hexValue, isBlank, literalAt, LITERALS, N_INT, N_MINUS, N_ZERO, NUMBER_BROKEN, numberStep } from './json-grammar.ts';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** String levels followed; deeper JSON text makes the depth unknown (see DEPTH_UNKNOWN). */
export const MAX_STRING_DEPTH = 10;
/** Depth reported inside JSON text nested deeper than MAX_STRING_DEPTH. */
export const DEPTH_UNKNOWN = -1;
/**
 * Open arrays and objects followed per level (a plain array of up to this many entries, 8 MB). Past it
 * the lexer knows nothing more and reports DEPTH_UNKNOWN from there on: a hostile `[[[[…` cannot make
 * it hold memory out of proportion, and no value is restored at a guessed depth.
 */
export const MAX_CONTAINER_DEPTH = 1 << 20;

/** How a lexer starts: any JSON value (a body declared JSON), or JSON only if `{`/`[` comes first. */
export type LexStart = 'value' | 'structured';

// Modes of a level.
const UNDECIDED = 0;
const JSON_TEXT = 1;
const PROSE = 2;
/** Nested past MAX_CONTAINER_DEPTH: nothing more is known (every depth from here on is unknown). */
const LOST = 3;
// What the grammar expects next (outside tokens).
const E_VALUE = 0;
const E_VALUE_OR_CLOSE = 1;
const E_KEY_OR_CLOSE = 2;
const E_KEY = 3;
const E_COLON = 4;
const E_AFTER = 5;
const E_END = 6;
// Tokens in progress.
const T_NONE = 0;
const T_STRING = 1;
const T_NUMBER = 2;
const T_LITERAL = 3;
// Containers on the stack.
const OBJ = 1;
const ARR = 2;

/** Structural events of level 0, for callers that need paths (SSE event data). Offsets are buffer offsets. */
export interface LexerHooks {
  /** A container opens with its bracket at `at`. */
  open(isArray: boolean, at: number): void;
  /** The innermost container closes with its bracket at `at`. */
  close(at: number): void;
  /** A `,` between members or elements. */
  next(): void;
  /** A key string's content is buf[start, end). */
  key(buf: Buffer, start: number, end: number): void;
  /** A string value opens at `at` (its quote); return true to leave its content unlexed (opaque). */
  stringStart(at: number): boolean;
  /** The current string value closes at `at` (its quote). */
  stringEnd(at: number): void;
}

/** One level of the lexer; level 0 is what callers create. */
export class JsonLexer {
  private mode: number;
  private expect = E_VALUE;
  private tok = T_NONE;
  private num = 0;
  private lit = 0;
  private litPos = 0;
  private isKey = false;
  private opaque = false;
  /** 0: no escape; 1: after a backslash; 2–5: hex digits of `\u` read so far + 2. */
  private esc = 0;
  private hex = 0;
  /** Open containers (OBJ/ARR) up to `sp`: a plain array, so a lexer costs no ArrayBuffer. */
  private readonly stack: number[] = [];
  private sp = 0;
  private child: JsonLexer | null = null;
  /** The buffer and position of the byte being fed (level 0, for hooks). */
  private buf: Buffer | null = null;
  private at = 0;
  private keyStart = 0;
  hooks: LexerHooks | null = null;
  /** Level 0's fast paths through string content. */
  private readonly search = new ByteSearch();
  /** Held to the full grammar in strings (see the header): every level but a level 0 that starts `value`. */
  private readonly strict: boolean;

  constructor(
    private readonly start: LexStart,
    readonly level = 0,
  ) {
    this.mode = start === 'value' ? JSON_TEXT : UNDECIDED;
    this.strict = start === 'structured';
  }

  /** True once this level can never be JSON text again (nothing left to lex). */
  get isProse(): boolean {
    return this.mode === PROSE;
  }

  /** True while only blanks have come to a level that starts `structured` (JSON or prose not yet known). */
  get isUndecided(): boolean {
    return this.mode === UNDECIDED;
  }

  /** True when this level is inside a string whose content is prose, so the string depth there is final. */
  get inProseString(): boolean {
    return this.mode === JSON_TEXT && this.tok === T_STRING && (this.opaque || (this.child as JsonLexer).mode === PROSE);
  }

  /** Back to the start state (a lexer and its children are reused, not reallocated). */
  reset(): void {
    this.mode = this.start === 'value' ? JSON_TEXT : UNDECIDED;
    this.expect = E_VALUE;
    this.tok = T_NONE;
    this.esc = 0;
    this.sp = 0;
    this.opaque = false;
    this.search.reset();
    this.buf = null;
    this.hooks = null;
  }

  /**
   * Puts this level inside a string value (as after its opening quote): the stream of string content
   * that continues across events (a delta field). Content fed next is escaped as in a JSON string.
   */
  enterString(): void {
    this.mode = JSON_TEXT;
    this.beginString(false);
  }

  /** The string depth after the bytes consumed so far (DEPTH_UNKNOWN past MAX_STRING_DEPTH). */
  depth(): number {
    if (this.mode === LOST) return DEPTH_UNKNOWN;
    if (this.mode !== JSON_TEXT) return 0;
    let d = 0;
    let l: JsonLexer = this;
    while (l.tok === T_STRING) {
      d++;
      if (l.opaque) return d;
      const c = l.child as JsonLexer;
      if (c.mode === LOST) return DEPTH_UNKNOWN;
      if (c.mode !== JSON_TEXT) return d;
      if (c.level >= MAX_STRING_DEPTH) return DEPTH_UNKNOWN;
      l = c;
    }
    return d;
  }

  /** Consumes buf[from, to). */
  advance(buf: Buffer, from: number, to: number): void {
    this.buf = buf;
    let i = from;
    while (i < to) {
      if (this.mode >= PROSE) return;
      if (this.tok === T_STRING && this.mode === JSON_TEXT) {
        const decoding = !this.opaque && (this.child as JsonLexer).mode !== PROSE;
        if (this.esc === 0 && this.strict) {
          // Every byte is looked at: a quote, a backslash or a control character is the next to feed.
          const s = plainEnd(buf, i, to);
          if (decoding && s > i) (this.child as JsonLexer).feedRun(buf, i, s);
          i = s;
          if (i >= to) return;
        } else if (this.esc === 0) {
          if (!decoding) {
            const q = this.search.closingQuote(buf, i, to);
            if (q < 0) {
              this.esc = q === OPEN_ESCAPED ? 1 : 0;
              return;
            }
            i = q;
          } else {
            const s = this.search.nextSpecial(buf, i, to);
            if (s > i) {
              (this.child as JsonLexer).feedRun(buf, i, s);
              i = s;
              if (i >= to) return;
            }
          }
        } else if (!decoding && !this.strict) {
          // Inside prose only the parity of backslashes matters: the escaped byte is plain content.
          this.esc = 0;
          i++;
          continue;
        }
      }
      this.at = i;
      this.feedByte(buf[i] as number);
      i++;
    }
  }

  /** Feeds a decoded string (UTF-16 code units) as content of the string this level is in (see enterString). */
  feedContent(s: string): void {
    const c = this.child as JsonLexer;
    for (let i = 0; i < s.length && c.mode !== PROSE; i++) {
      const u = s.charCodeAt(i);
      c.feedByte(u < 0x80 ? u : 0x80);
    }
  }

  /**
   * Bytes that hold no quote, no backslash and no control character: plain content wherever this level
   * is inside a string. (Level 0 cuts runs at control characters when strict; a level 0 that starts
   * `value` reads valid JSON, whose strings hold none, and otherwise takes them as sent.)
   */
  private feedRun(buf: Buffer, from: number, to: number): void {
    for (let i = from; i < to; i++) {
      if (this.mode >= PROSE) return;
      if (this.mode === JSON_TEXT) {
        if (this.level >= MAX_STRING_DEPTH) return;
        if (this.tok === T_STRING && this.esc === 0) {
          const c = this.child as JsonLexer;
          // Recursion bounded by MAX_STRING_DEPTH: one call per level.
          if (!this.opaque && c.mode !== PROSE) c.feedRun(buf, i, to);
          return;
        }
      }
      this.feedByte(buf[i] as number);
    }
  }

  private feedByte(b: number): void {
    if (this.mode !== JSON_TEXT) {
      if (this.mode >= PROSE || isBlank(b)) return;
      if (b !== 0x7b && b !== 0x5b) {
        this.mode = PROSE;
        return;
      }
      this.mode = JSON_TEXT;
    }
    // The last level only records that its content starts like JSON (depth() then reports unknown).
    if (this.level >= MAX_STRING_DEPTH) return;
    if (this.tok === T_STRING) return this.stringByte(b);
    if (this.tok === T_LITERAL) return this.literalByte(b);
    if (this.tok === T_NUMBER && this.numberByte(b)) return;
    this.structural(b);
  }

  private stringByte(b: number): void {
    const c = this.child as JsonLexer;
    const decoding = !this.opaque && c.mode !== PROSE;
    if (this.esc === 0) {
      if (b === QUOTE) return this.endString();
      if (b === BACKSLASH) this.esc = 1;
      else if (b < 0x20 && this.strict) return this.violation();
      else if (decoding) c.feedByte(b);
      return;
    }
    if (!decoding && !this.strict) {
      this.esc = 0;
      return;
    }
    if (this.esc === 1) {
      if (b === 0x75) {
        this.esc = 2;
        this.hex = 0;
        return;
      }
      const out = b < 0x80 ? (ESCAPED[b] as number) : -1;
      if (out < 0) return this.violation();
      this.esc = 0;
      if (decoding) c.feedByte(out);
      return;
    }
    const h = hexValue(b);
    if (h < 0) return this.violation();
    this.hex = (this.hex << 4) | h;
    if (++this.esc === 6) {
      this.esc = 0;
      if (decoding) c.feedByte(this.hex < 0x80 ? this.hex : 0x80);
    }
  }

  private beginString(isKey: boolean): void {
    this.tok = T_STRING;
    this.esc = 0;
    this.isKey = isKey;
    if (isKey) {
      this.keyStart = this.at + 1;
      this.opaque = true;
      return;
    }
    this.opaque = this.hooks !== null && this.hooks.stringStart(this.at);
    if (this.opaque) return;
    if (this.child === null) this.child = new JsonLexer('structured', this.level + 1);
    else this.child.reset();
  }

  private endString(): void {
    this.tok = T_NONE;
    if (this.isKey) {
      this.expect = E_COLON;
      if (this.hooks !== null && this.buf !== null) this.hooks.key(this.buf, this.keyStart, this.at);
      return;
    }
    if (this.hooks !== null) this.hooks.stringEnd(this.at);
    this.opaque = false;
    this.valueDone();
  }

  private structural(b: number): void {
    if (isBlank(b)) return;
    switch (this.expect) {
      case E_VALUE_OR_CLOSE:
        if (b === 0x5d) return this.pop();
        return this.startValue(b);
      case E_VALUE:
        return this.startValue(b);
      case E_KEY_OR_CLOSE:
        if (b === 0x7d) return this.pop();
        if (b === QUOTE) return this.beginString(true);
        break;
      case E_KEY:
        if (b === QUOTE) return this.beginString(true);
        break;
      case E_COLON:
        if (b === 0x3a) {
          this.expect = E_VALUE;
          return;
        }
        break;
      case E_AFTER: {
        const top = this.stack[this.sp - 1];
        if (b === 0x2c) {
          this.expect = top === OBJ ? E_KEY : E_VALUE;
          if (this.hooks !== null) this.hooks.next();
          return;
        }
        if ((b === 0x7d && top === OBJ) || (b === 0x5d && top === ARR)) return this.pop();
        break;
      }
    }
    this.violation();
  }

  private startValue(b: number): void {
    if (b === 0x7b || b === 0x5b) {
      if (this.sp >= MAX_CONTAINER_DEPTH) {
        this.mode = LOST;
        return;
      }
      const isArray = b === 0x5b;
      this.stack[this.sp++] = isArray ? ARR : OBJ;
      this.expect = isArray ? E_VALUE_OR_CLOSE : E_KEY_OR_CLOSE;
      if (this.hooks !== null) this.hooks.open(isArray, this.at);
      return;
    }
    if (b === QUOTE) return this.beginString(false);
    if (b === 0x2d || (b >= 0x30 && b <= 0x39)) {
      this.tok = T_NUMBER;
      this.num = b === 0x2d ? N_MINUS : b === 0x30 ? N_ZERO : N_INT;
      return;
    }
    const lit = literalAt(b);
    if (lit < 0) return this.violation();
    this.tok = T_LITERAL;
    this.lit = lit;
    this.litPos = 1;
  }

  /** True when `b` belongs to the number (or broke the grammar); false when the number ended before it. */
  private numberByte(b: number): boolean {
    const next = numberStep(this.num, b);
    if (next >= 0) {
      this.num = next;
      return true;
    }
    if (next === NUMBER_BROKEN) {
      this.violation();
      return true;
    }
    this.tok = T_NONE;
    this.valueDone();
    return false;
  }

  private literalByte(b: number): void {
    const word = LITERALS[this.lit as 0 | 1 | 2];
    if (word[this.litPos] !== b) return this.violation();
    if (++this.litPos === word.length) {
      this.tok = T_NONE;
      this.valueDone();
    }
  }

  private pop(): void {
    this.sp--;
    if (this.hooks !== null) this.hooks.close(this.at);
    this.valueDone();
  }

  private valueDone(): void {
    this.expect = this.sp === 0 ? E_END : E_AFTER;
  }

  private violation(): void {
    this.mode = PROSE;
    this.tok = T_NONE;
  }
}

/** A fresh level-0 lexer. */
export function createJsonLexer(start: LexStart): JsonLexer {
  return new JsonLexer(start, 0);
}
