// What the mock model says: prose and tool arguments carrying placeholders (of registered values,
// unknown ones and mangled ones), with content hostile to a byte lexer when asked — prose opening with
// `[` or `{` full of quotes, long strings, CR/LF/CRLF, surrogate pairs, backslashes, `\u` look-alikes,
// JSON text nested in argument strings, placeholders as keys, big integers.

import { PLACEHOLDER_PREFIX_TEXT, unknownPlaceholder, type PlaceholderMap } from '../oracle/placeholder-map.ts';
import { isJsonText } from '../oracle/json-lexer.ts';
import type { Rng } from '../rng.ts';
import { PLAIN_STYLE, writeJson, type JNode, type StringStyle } from './json-writer.ts';

export interface ContentOptions {
  /** Prose may open with `[`/`{` and be full of quotes and brackets. */
  hostile: boolean;
  /** Astral characters (surrogate pairs) in prose. */
  astral: boolean;
  /** Line breaks: LF only, or CR and CRLF too. */
  breaks: 'lf' | 'any';
  /** Unknown and mangled placeholders as well as known ones. */
  decoys: boolean;
  /**
   * Text in tool-call arguments: a word is never glued onto a placeholder's end. `~ficta_….is` or
   * `~ficta_…:1234` reads as a host that holds the placeholder, which sink-aware restore withholds by
   * design; this oracle models restore, not that policy (test/unit/sinks-*.test.ts and the classifier
   * table check it), so tool text keeps its placeholders where the policy restores them.
   */
  tool?: boolean;
}

const WORDS = ['the', 'value', 'is', 'set', 'to', 'café', 'naïve', '日本語', 'über', 'x=1', 'a/b', 'path\\to', '"quoted"', "it's", ',', '.', ':', '-', '->', '(ok)', 'done', '\\u0041', '\\n', '12345678901234567890', 'tab\there', '%2F', 'a+b'];
const HOSTILE = ['[', ']', '{', '}', '"', '\\', '\\"', '{"k":', '["a",', '":"', '],[', '}}', '[[', '\\\\', '"]'];
const ASTRAL = ['😀', '🔑', '𝄞', '🚀'];

/** A placeholder to put in text: mostly known ones, sometimes decoys that must pass unchanged. */
export function somePlaceholder(rng: Rng, map: PlaceholderMap, decoys: boolean): string {
  if (!decoys || rng.chance(0.75)) return rng.pick(map.placeholders);
  const known = rng.pick(map.placeholders);
  switch (rng.int(0, 3)) {
    case 0:
      return unknownPlaceholder((n) => rng.int(0, n - 1));
    case 1:
      return known.slice(0, rng.int(PLACEHOLDER_PREFIX_TEXT.length, known.length - 1)) + rng.pick([' ', '!', '.', '"']);
    case 2:
      return `${PLACEHOLDER_PREFIX_TEXT.slice(0, rng.int(1, PLACEHOLDER_PREFIX_TEXT.length))} `;
    default:
      return `~${known.slice(1, 6).toUpperCase()}-not`;
  }
}

/** Prose with placeholders; never a valid JSON text (a text field is plain text, whatever it looks like). */
export function responseProse(rng: Rng, map: PlaceholderMap, o: ContentOptions, minLength = 0): string {
  const parts: string[] = [];
  let length = 0;
  const add = (p: string): void => {
    parts.push(p);
    length += p.length;
  };
  if (o.hostile && rng.chance(0.7)) add(rng.pick(['[', '{', '["', '{"', '[ "', '[see']));
  const n = rng.int(2, 14);
  let placed = false;
  for (let i = 0; i < n || !placed || length < minLength; i++) {
    const r = rng.next();
    if (r < 0.22) {
      const p = somePlaceholder(rng, map, o.decoys);
      // Hostile prose quotes its placeholders, as if they were JSON strings.
      add(o.hostile && rng.chance(0.6) ? `"${p}"` : p);
      placed = true;
      if (o.tool === true) {
        add(' ');
        continue;
      }
    } else if (o.hostile && r < 0.4) add(rng.pick(HOSTILE));
    else if (o.astral && r < 0.47) add(rng.pick(ASTRAL));
    else add(rng.pick(WORDS));
    const sep = rng.next();
    if (sep < 0.08) add(o.breaks === 'any' ? rng.pick(['\n', '\r\n', '\r']) : '\n');
    else if (sep < 0.75) add(' ');
  }
  let text = parts.join('');
  // A text field's meaning is plain text; keep it from also being a complete JSON text.
  if (isJsonText(text)) text += ' ]x';
  return text;
}

export interface ArgsOptions {
  /** A string value holds JSON text (a `content` field holding `{"key":"<ph>"}`), nested this deep. */
  nestedJson: number;
  /** Placeholders as object keys. */
  keys: boolean;
  /** Escape style of the arguments' own strings (`\u` escapes, `\/`). */
  style: StringStyle;
}

function argValue(rng: Rng, map: PlaceholderMap, o: ArgsOptions, content: ContentOptions, nest: number): JNode {
  if (nest > 0) return { t: 'json', doc: argsNode(rng, map, o, content, nest - 1) };
  return { t: 'str', s: rng.chance(0.5) ? `${rng.pick(['key ', 'token=', '', 'Bearer '])}${somePlaceholder(rng, map, content.decoys)}` : responseProse(rng, map, { ...content, hostile: false, tool: true }) };
}

function argsNode(rng: Rng, map: PlaceholderMap, o: ArgsOptions, content: ContentOptions, nest: number): JNode {
  const entries: Array<[string, JNode]> = [[rng.pick(['content', 'command', 'path', 'text']), argValue(rng, map, o, content, nest)]];
  if (rng.chance(0.5)) entries.push(['count', { t: 'num', raw: rng.pick(['3', '-1.5e3', '12345678901234567890']) }]);
  if (rng.chance(0.4)) entries.push(['list', { t: 'arr', items: [argValue(rng, map, o, content, 0), { t: 'lit', raw: 'null' }] }]);
  if (o.keys) entries.push([somePlaceholder(rng, map, false), argValue(rng, map, o, content, 0)]);
  return { t: 'obj', entries: rng.shuffle(entries) };
}

/**
 * Escapes for the provider's own JSON that never touch a placeholder's characters (ASCII letters,
 * digits, `~`, `_`): non-ASCII as `\u`, `\/`, quotes and backslashes in their `\u` form.
 */
export const PROVIDER_ESCAPES: StringStyle = { unicodeShare: 0, hex: 'mixed', slashShare: 0.5, asciiOnly: true, longFormShare: 0.3 };

/** Tool arguments: JSON text with placeholders in strings (and keys, and nested JSON text when asked). */
export function toolArguments(rng: Rng, map: PlaceholderMap, o: ArgsOptions, content: ContentOptions): string {
  return writeJson(rng, argsNode(rng, map, o, content, o.nestedJson), { styles: [o.style, PLAIN_STYLE], spacing: rng.pick(['compact', 'python'] as const) });
}
