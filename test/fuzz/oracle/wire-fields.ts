// The oracle's knowledge of the streamed wire formats (from the provider docs and the captures in
// shared/fixtures/wire, not from src/providers): which string of an event is a delta that continues a
// stream, what stream it continues, and whether that stream is plain text or JSON text.

import type { JsonPath } from './json-lexer.ts';

export type WireFormat = 'anthropic' | 'chat' | 'responses' | 'gemini' | 'ollama' | 'generic';

export interface DeltaField {
  key: string;
  path: JsonPath;
  reading: 'plain' | 'json';
}

const ANTHROPIC: Record<string, readonly [string, 'plain' | 'json']> = {
  text_delta: ['text', 'plain'],
  thinking_delta: ['thinking', 'plain'],
  input_json_delta: ['partial_json', 'json'],
};
const CHAT_TEXT = ['content', 'refusal', 'reasoning_content', 'reasoning'];

/** The delta fields of one parsed event's data. */
export function deltaFields(format: WireFormat, data: unknown): DeltaField[] {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return [];
  const d = data as Record<string, any>;
  if (format === 'anthropic') {
    if (d.type !== 'content_block_delta' || typeof d.delta !== 'object' || d.delta === null) return [];
    const spec = ANTHROPIC[String(d.delta.type)];
    if (spec === undefined || typeof d.delta[spec[0]] !== 'string') return [];
    return [{ key: `a${String(d.index)}:${String(d.delta.type)}`, path: ['delta', spec[0]], reading: spec[1] }];
  }
  if (format === 'chat') {
    if (!Array.isArray(d.choices)) return [];
    const out: DeltaField[] = [];
    d.choices.forEach((ch: any, ci: number) => {
      const delta = ch?.delta;
      if (typeof delta !== 'object' || delta === null) return;
      for (const f of CHAT_TEXT) if (typeof delta[f] === 'string') out.push({ key: `c${String(ch.index ?? ci)}:${f}`, path: ['choices', ci, 'delta', f], reading: 'plain' });
      if (!Array.isArray(delta.tool_calls)) return;
      delta.tool_calls.forEach((tc: any, ti: number) => {
        if (typeof tc?.function?.arguments === 'string') {
          out.push({ key: `c${String(ch.index ?? ci)}:tool${String(tc.index ?? ti)}`, path: ['choices', ci, 'delta', 'tool_calls', ti, 'function', 'arguments'], reading: 'json' });
        }
      });
    });
    return out;
  }
  if (format === 'gemini') {
    // Every chunk numbers its new parts from 0: a candidate's text is one stream, its thought text another.
    if (!Array.isArray(d.candidates)) return [];
    const out: DeltaField[] = [];
    d.candidates.forEach((c: any, ci: number) => {
      const parts = c?.content?.parts;
      if (!Array.isArray(parts)) return;
      parts.forEach((p: any, pj: number) => {
        if (typeof p?.text === 'string') out.push({ key: `g${String(c.index ?? ci)}:${p.thought === true ? 'thought' : 'text'}`, path: ['candidates', ci, 'content', 'parts', pj, 'text'], reading: 'plain' });
      });
    });
    return out;
  }
  if (format === 'ollama') {
    const out: DeltaField[] = [];
    for (const [holder, path, key] of [
      [d.message, ['message', 'content'], 'content'],
      [d.message, ['message', 'thinking'], 'thinking'],
      [d, ['response'], 'content'],
      [d, ['thinking'], 'thinking'],
    ] as const) {
      if (typeof holder === 'object' && holder !== null && typeof holder[path[path.length - 1] as string] === 'string') out.push({ key: `o:${key}`, path: [...path], reading: 'plain' });
    }
    return out;
  }
  if (format === 'responses') {
    if (typeof d.type !== 'string' || !d.type.endsWith('.delta') || typeof d.delta !== 'string') return [];
    const part = d.content_index ?? d.summary_index ?? '';
    return [{ key: `r${String(d.item_id)}:${d.type}:${String(part)}`, path: ['delta'], reading: d.type.includes('arguments') ? 'json' : 'plain' }];
  }
  return [];
}

/** Same path? */
export function samePath(a: JsonPath, b: JsonPath): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
