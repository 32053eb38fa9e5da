// Where a placeholder sits, as the oracle sees it: 0 in plain text; in JSON text, 1 + its depth inside
// the decoded content of the string that holds it (which is itself JSON text or plain text). This is
// the escaping its restored value needs — decided from the complete document, never guessed.

import { unescapeStrict } from './decode.ts';
import { lexJson } from './json-lexer.ts';
import type { PlaceholderMap } from './placeholder-map.ts';

/** How to read a text: as JSON, as plain text, or as JSON exactly when it is a valid JSON text. */
export type Reading = 'json' | 'plain' | 'auto';

/** The depth of each known placeholder occurrence in `text`, in the order `map.find` lists them. */
export function occurrenceDepths(text: string, map: PlaceholderMap, reading: Reading): number[] {
  const count = map.find(text).length;
  if (count === 0) return [];
  const lexed = reading === 'plain' ? undefined : lexJson(text);
  if (lexed === undefined || !lexed.ok) {
    if (reading === 'json') throw new Error('fuzz oracle: text read as JSON is not valid JSON');
    return new Array<number>(count).fill(0);
  }
  const out: number[] = [];
  for (const tok of lexed.tokens) {
    if (tok.kind !== 'string') continue;
    const raw = text.slice(tok.start + 1, tok.end - 1);
    const n = map.find(raw).length;
    if (n === 0) continue;
    const inner = occurrenceDepths(unescapeStrict(raw) as string, map, 'auto');
    // A placeholder written with escapes inside the raw string would break the pairing: the generators never write one.
    for (let j = 0; j < n; j++) out.push(1 + (inner[j] ?? 0));
  }
  return out;
}
