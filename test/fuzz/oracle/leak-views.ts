// The leak oracle: every decoded view of a surface the gate claims to cover (raw bytes; JSON escapes
// peeled level by level, which also decodes `\u` and `\/` at every depth, escape-building included;
// percent-decoding with and without `+`; one level of mojibake undone) searched for every registered
// value. Written separately from src/redact: it decodes everything, everywhere, without asking which
// characters the values use.

import { percentDecode, unescapeLenient, utf8Text } from './decode.ts';
import { escapeEdgeTest } from './escape-edges.ts';

/** One place a request (or a log) carries bytes: the target, a header, the body, a log line. */
export interface Surface {
  where: string;
  bytes: Buffer;
  /**
   * The bytes are a JSON (or JSONL) document: in its raw views, an occurrence inside a string that starts or
   * ends strictly inside an escape is not the value (escape-edges.ts). Decoded views are searched as always.
   */
  json?: 'json' | 'jsonl';
}

export interface LeakFinding {
  /** Index of the value in the case's list (never the value itself: failure output must not print it). */
  valueIndex: number;
  where: string;
  /** The chain of decoders that exposed it, e.g. "raw", "utf8>json>json>pct+". */
  view: string;
  /** The view around the value (with `excerpts` only: it shows the value). */
  excerpt?: string;
}

/** Decoding steps the oracle composes; each one either changes the text or is dropped. */
const STEPS: ReadonlyArray<readonly [string, (s: string) => string]> = [
  ['json', unescapeLenient],
  ['pct+', (s) => percentDecode(s, true)],
  ['pct', (s) => percentDecode(s, false)],
  ['latin1>utf8', undoMojibake],
];

/** Views per surface are capped so a hostile body cannot make the oracle itself slow. */
const MAX_VIEWS = 96;
const MAX_CHAIN = 12;

/** Every distinct decoded view of `bytes`, with the chain that produced it. */
export function decodedViews(bytes: Buffer): Array<{ view: string; text: string }> {
  const first = utf8Text(bytes);
  const out: Array<{ view: string; text: string }> = [{ view: 'utf8', text: first }];
  const seen = new Set<string>([first]);
  // Breadth first: short chains before long ones, each distinct text once.
  for (let i = 0; i < out.length && out.length < MAX_VIEWS; i++) {
    const cur = out[i] as { view: string; text: string };
    if (cur.view.split('>').length > MAX_CHAIN) continue;
    for (const [name, step] of STEPS) {
      const next = step(cur.text);
      if (next === cur.text || seen.has(next)) continue;
      seen.add(next);
      out.push({ view: `${cur.view}>${name}`, text: next });
      if (out.length >= MAX_VIEWS) break;
    }
  }
  return out;
}

/** Every registered value found in any view of any surface. */
export function findLeaks(values: readonly string[], surfaces: readonly Surface[], excerpts = false): LeakFinding[] {
  const found: LeakFinding[] = [];
  const needles = values.map((v) => Buffer.from(v, 'utf8'));
  for (const s of surfaces) {
    if (s.bytes.length === 0) continue;
    const hit = new Set<number>();
    const edge = s.json === undefined ? undefined : escapeEdgeTest(utf8Text(s.bytes), s.json);
    const rawText = edge === undefined ? undefined : utf8Text(s.bytes);
    needles.forEach((n, i) => {
      if (rawText === undefined || edge === undefined ? s.bytes.includes(n) : occursBesideEdges(rawText, values[i] as string, edge)) {
        hit.add(i);
        found.push({ valueIndex: i, where: s.where, view: 'raw' });
      }
    });
    for (const { view, text } of decodedViews(s.bytes)) {
      values.forEach((v, i) => {
        if (hit.has(i) || !text.includes(v)) return;
        if (view === 'utf8' && edge !== undefined && !occursBesideEdges(text, v, edge)) return;
        hit.add(i);
        const at = text.indexOf(v);
        found.push({ valueIndex: i, where: s.where, view, ...(excerpts ? { excerpt: JSON.stringify(text.slice(Math.max(0, at - 120), at + v.length + 60)) } : {}) });
      });
    }
  }
  return found;
}

/** Whether `text` holds `v` somewhere other than across the edge of an escape in a JSON string. */
function occursBesideEdges(text: string, v: string, acrossEdge: (start: number, end: number) => boolean): boolean {
  for (let at = text.indexOf(v); at !== -1; at = text.indexOf(v, at + 1)) if (!acrossEdge(at, at + v.length)) return true;
  return false;
}

/** UTF-8 bytes that were read as latin1 and encoded again: read them back (only when that is possible). */
function undoMojibake(s: string): string {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0xff) return s;
  let high = false;
  for (let i = 0; i < s.length && !high; i++) high = s.charCodeAt(i) >= 0x80;
  return high ? utf8Text(Buffer.from(s, 'latin1')) : s;
}
