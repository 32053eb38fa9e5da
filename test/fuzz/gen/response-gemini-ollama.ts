// The mock provider's side of a Gemini or Ollama response: a model turn as whole GenerateContentResponse
// chunks (thought parts, text parts, then function calls with structured `args` and an opaque
// `thoughtSignature`, the last chunk carrying finishReason) or as Ollama `/api/chat` / `/api/generate`
// lines (`message.content`/`message.thinking` or `response`/`thinking` fragments, whole `tool_calls`, a
// `done: true` line); then written as alt=sse events, a streamed JSON array, or NDJSON lines.

import type { Rng } from '../rng.ts';
import { PLAIN_STYLE, writeJson } from './json-writer.ts';
import { RawNumber, serializeSse, toNode, type Block, type SseStyle, type WireEvent } from './response-wire.ts';

/** Function calls come last in a turn, as both providers send them (the model stops to wait for results). */
function ordered(blocks: readonly Block[]): Block[] {
  const rank = (b: Block): number => (b.kind === 'thinking' ? 0 : b.kind === 'tool' ? 2 : 1);
  return [...blocks].sort((a, b) => rank(a) - rank(b));
}

/** A turn as Gemini chunks. Pieces of text may share a chunk (several parts); `split` cuts each text. */
export function geminiChunks(rng: Rng, blocks: readonly Block[], split: (s: string) => string[]): Array<Record<string, unknown>> {
  const parts: Array<Record<string, unknown>> = [];
  for (const b of ordered(blocks)) {
    if (b.kind === 'text') for (const p of split(b.text)) parts.push({ text: p });
    else if (b.kind === 'thinking') for (const p of split(b.text)) parts.push({ text: p, thought: true });
    else if (b.kind === 'tool') parts.push({ functionCall: { name: b.name, args: JSON.parse(b.args) }, thoughtSignature: 'c2lnbmF0dXJlLW9wYXF1ZQ==' });
  }
  const chunk = (ps: unknown[], last: boolean): Record<string, unknown> => {
    const candidate: Record<string, unknown> = { content: { parts: ps, role: 'model' }, index: 0 };
    if (last) candidate.finishReason = 'STOP';
    const out: Record<string, unknown> = { candidates: [candidate] };
    if (last) out.usageMetadata = { promptTokenCount: 11, candidatesTokenCount: new RawNumber('12345678901234567890'), totalTokenCount: 20 };
    return { ...out, modelVersion: 'gemini-x', responseId: 'fuzz-1' };
  };
  const groups: unknown[][] = [];
  for (let i = 0; i < parts.length; ) {
    const n = rng.chance(0.2) ? rng.int(2, 4) : 1;
    groups.push(parts.slice(i, i + n));
    i += n;
  }
  // The end: on the last chunk, or a chunk of its own (empty text, or no parts at all).
  if (groups.length === 0 || rng.chance(0.6)) groups.push(rng.chance(0.5) ? [{ text: '' }] : []);
  return groups.map((g, i) => chunk(g, i === groups.length - 1));
}

/** A turn as Ollama lines for `/api/chat` (tool calls included) or `/api/generate` (none). */
export function ollamaLines(blocks: readonly Block[], split: (s: string) => string[], endpoint: 'chat' | 'generate'): Array<Record<string, unknown>> {
  const base = { model: 'llama-x', created_at: '2026-11-23T10:00:00.000000000Z' };
  const line = (fields: { content?: string; thinking?: string; calls?: unknown[] }, done: boolean): Record<string, unknown> => {
    const o: Record<string, unknown> = { ...base };
    if (endpoint === 'chat') {
      const message: Record<string, unknown> = { role: 'assistant', content: fields.content ?? '' };
      if (fields.thinking !== undefined) message.thinking = fields.thinking;
      if (fields.calls !== undefined) message.tool_calls = fields.calls;
      o.message = message;
    } else {
      o.response = fields.content ?? '';
      if (fields.thinking !== undefined) o.thinking = fields.thinking;
    }
    o.done = done;
    return done ? { ...o, done_reason: 'stop', total_duration: new RawNumber('12345678901234567890'), eval_count: 282 } : o;
  };
  const out: Array<Record<string, unknown>> = [];
  for (const b of ordered(blocks)) {
    if (b.kind === 'text') for (const p of split(b.text)) out.push(line({ content: p }, false));
    else if (b.kind === 'thinking') for (const p of split(b.text)) out.push(line({ thinking: p }, false));
    else if (b.kind === 'tool' && endpoint === 'chat') out.push(line({ calls: [{ function: { name: b.name, arguments: JSON.parse(b.args) } }] }, false));
  }
  out.push(line({}, true));
  return out;
}

/** Chunks as alt=sse events (`data:` only, no [DONE]). */
export function geminiSseBody(rng: Rng, chunks: ReadonlyArray<Record<string, unknown>>, style: SseStyle): string {
  const events: WireEvent[] = chunks.map((data) => ({ data }));
  return serializeSse(rng, events, style);
}

/** Chunks as the streamed JSON array: `[` then elements separated by `,` and blanks, then `]`. */
export function geminiArrayBody(rng: Rng, chunks: ReadonlyArray<Record<string, unknown>>): string {
  const sep = rng.pick([',\r\n', ',\n', ',', ', ']);
  const spacing = rng.pick(['compact', 'python', 'random'] as const);
  return `[${chunks.map((c) => writeJson(rng, toNode(c), { styles: [PLAIN_STYLE], spacing })).join(sep)}]`;
}

/** Lines as NDJSON (compact JSON, one per line). */
export function ndjsonBody(rng: Rng, lines: ReadonlyArray<Record<string, unknown>>): string {
  return lines.map((l) => `${writeJson(rng, toNode(l), { styles: [PLAIN_STYLE], spacing: 'compact' })}\n`).join('');
}
