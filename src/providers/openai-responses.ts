// OpenAI Responses streaming (`POST /v1/responses`): `response.*.delta` events keyed by item and
// part (output_text, refusal, reasoning, function_call_arguments and mcp arguments as JSON text,
// custom_tool_call_input as plain text — Codex apply_patch). The matching `*.done`,
// `response.output_item.done` and `response.completed` repeat whole values and are restored as such.

import { ALL_KEYS, type DeltaField, type StreamAdapter } from './types.ts';

/** `response.foo.delta` / `response.foo.done` → the stream key shared by both. */
function streamKey(type: string, data: Record<string, unknown>): string {
  const base = type.slice(0, type.lastIndexOf('.'));
  const part = data.content_index ?? data.summary_index ?? '';
  return `${String(data.item_id ?? data.output_index ?? '')}|${base}|${String(part)}`;
}

export const openaiResponses: StreamAdapter = {
  id: 'openai-responses',
  deltas(_event, data) {
    const type = data.type;
    if (typeof type !== 'string' || !type.endsWith('.delta') || typeof data.delta !== 'string') return [];
    const field: DeltaField = { key: streamKey(type, data), path: ['delta'], json: type.includes('arguments') };
    return [field];
  },
  ends(event, data) {
    if (data === undefined) return event === 'error' ? ALL_KEYS : undefined;
    const type = data.type;
    if (typeof type !== 'string') return undefined;
    if (type === 'response.output_item.done') {
      const id = (data.item as Record<string, unknown> | undefined)?.id;
      const prefix = `${String(id ?? '')}|`;
      return (k) => k.startsWith(prefix);
    }
    if (type.endsWith('.done')) {
      const key = streamKey(type, data);
      return (k) => k === key;
    }
    if (type === 'response.completed' || type === 'response.failed' || type === 'response.incomplete' || type === 'error') return ALL_KEYS;
    return undefined;
  },
};
