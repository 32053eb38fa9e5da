// Anthropic Messages streaming (`POST /v1/messages`, stream: true): content blocks keyed by `index`
// carry text_delta.text, thinking_delta.thinking and input_json_delta.partial_json (JSON text).

import { ALL_KEYS, type DeltaField, type StreamAdapter } from './types.ts';

const FIELDS: Record<string, { field: string; json: boolean }> = {
  text_delta: { field: 'text', json: false },
  thinking_delta: { field: 'thinking', json: false },
  input_json_delta: { field: 'partial_json', json: true },
};

export const anthropicMessages: StreamAdapter = {
  id: 'anthropic-messages',
  deltas(_event, data) {
    if (data.type !== 'content_block_delta') return [];
    const delta = data.delta as Record<string, unknown> | undefined;
    const spec = typeof delta?.type === 'string' ? FIELDS[delta.type] : undefined;
    if (spec === undefined || typeof delta?.[spec.field] !== 'string') return [];
    const field: DeltaField = { key: String(data.index), path: ['delta', spec.field], json: spec.json };
    return [field];
  },
  ends(event, data) {
    if (data === undefined) return event === 'error' ? ALL_KEYS : undefined;
    if (data.type === 'content_block_stop') {
      const key = String(data.index);
      return (k) => k === key;
    }
    if (data.type === 'message_stop' || data.type === 'message_delta' || data.type === 'error') return ALL_KEYS;
    return undefined;
  },
};
