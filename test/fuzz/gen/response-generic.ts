// Responses on routes with no known wire format: generic SSE (JSON data with placeholders in strings,
// keys and nested JSON text; or plain-text data) and generic JSON documents (nested JSON text, keys,
// big integers, and strings long enough to defeat a bounded look-back).

import type { PlaceholderMap } from '../oracle/placeholder-map.ts';
import type { Rng } from '../rng.ts';
import type { JNode } from './json-writer.ts';
import { responseProse, somePlaceholder, type ContentOptions } from './response-content.ts';
import { NodeData, type WireEvent } from './response-wire.ts';

export interface GenericOptions {
  /** Placeholders as object keys. */
  keys: boolean;
  /** Strings holding JSON text, this many levels deep (0: none). */
  nest: number;
  /** Plain-text `data:` instead of JSON (values restored raw into the event). */
  textData: boolean;
  /** Integers above 2^53 next to the strings (they survive only if nothing re-serialises the JSON). */
  bigInts: boolean;
}

function value(rng: Rng, map: PlaceholderMap, c: ContentOptions, o: GenericOptions, nest: number): JNode {
  if (nest > 0 && rng.chance(0.6)) return { t: 'json', doc: doc(rng, map, c, o, nest - 1) };
  return { t: 'str', s: responseProse(rng, map, c) };
}

/** A generic JSON document with placeholders at every depth the options allow. */
export function doc(rng: Rng, map: PlaceholderMap, c: ContentOptions, o: GenericOptions, nest = o.nest): JNode {
  const entries: Array<[string, JNode]> = [
    ['id', { t: 'num', raw: String(rng.int(1, 99)) }],
    ['text', value(rng, map, c, o, nest)],
  ];
  if (rng.chance(0.5)) entries.push(['items', { t: 'arr', items: [value(rng, map, c, o, nest), { t: 'num', raw: o.bigInts ? '12345678901234567890' : '42' }, { t: 'lit', raw: 'true' }] }]);
  if (o.keys) entries.push([somePlaceholder(rng, map, false), value(rng, map, c, o, 0)]);
  if (rng.chance(0.3)) entries.push(['meta', { t: 'obj', entries: [['k', value(rng, map, c, o, nest)]] }]);
  return { t: 'obj', entries: rng.shuffle(entries) };
}

/** Generic SSE events (JSON or text data). */
export function genericEvents(rng: Rng, map: PlaceholderMap, c: ContentOptions, o: GenericOptions): WireEvent[] {
  const out: WireEvent[] = [];
  const n = rng.int(1, 8);
  for (let i = 0; i < n; i++) {
    const name = rng.pick([undefined, 'update', 'delta', 'message']);
    if (o.textData) out.push({ ...(name === undefined ? {} : { name }), data: responseProse(rng, map, { ...c, breaks: 'lf' }), text: true });
    else out.push({ ...(name === undefined ? {} : { name }), data: new NodeData(doc(rng, map, c, o)) });
  }
  return out;
}

/** A JSON body whose one string runs past `minBytes` before its placeholder. */
export function longStringDoc(rng: Rng, map: PlaceholderMap, minBytes: number): JNode {
  const filler = 'x'.repeat(minBytes);
  const inner: JNode = rng.chance(0.5)
    ? { t: 'str', s: `${filler} ${rng.pick(map.placeholders)} end` }
    : { t: 'json', doc: { t: 'obj', entries: [['k', { t: 'str', s: `${rng.pick(map.placeholders)}` }], ['pad', { t: 'str', s: filler }], ['v', { t: 'str', s: `${rng.pick(map.placeholders)}` }]] } };
  return { t: 'obj', entries: [['result', inner], ['n', { t: 'num', raw: '12345678901234567890' }]] };
}
