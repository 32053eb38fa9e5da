// Ollama's native API (docs.ollama.com/api): `/api/chat` and `/api/generate` stream NDJSON
// (`application/x-ndjson`), one object per line, `done: true` on the last; `stream: false` gives that one
// object alone (a JSON body). Text arrives in fragments — `message.content` and `message.thinking` (chat),
// `response` and `thinking` (generate) — one stream each for the whole response. Tool calls arrive whole
// in `message.tool_calls[].function.arguments`, an object (a string of JSON text is read as one), declared
// as tool calls for sink-aware restore.

import { ALL_KEYS, type DeltaField, type StreamAdapter, type ToolCallInfo, type ToolCallSite } from './types.ts';

/** The streamed text fields: where each sits, and the stream it continues. */
const TEXT: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
  [['message', 'content'], 'content'],
  [['message', 'thinking'], 'thinking'],
  [['response'], 'content'],
  [['thinking'], 'thinking'],
];

function objectOf(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function toolCallsOf(data: Record<string, unknown>): unknown[] | undefined {
  const calls = objectOf(data.message)?.tool_calls;
  return Array.isArray(calls) && calls.length > 0 ? calls : undefined;
}

/** The Ollama adapter for `/api/chat` and `/api/generate`: NDJSON streams and `stream: false` bodies. */
export const ollama: StreamAdapter = {
  id: 'ollama',
  deltas(_event, data) {
    const out: DeltaField[] = [];
    const message = objectOf(data.message);
    for (const [path, key] of TEXT) {
      const holder = path.length === 2 ? message : data;
      if (typeof holder?.[path[path.length - 1] as string] === 'string') out.push({ key, path, json: false });
    }
    return out;
  },
  calls(_event, data) {
    const out: ToolCallSite[] = [];
    toolCallsOf(data)?.forEach((call, k) => {
      const fn = objectOf(objectOf(call)?.function);
      if (fn === undefined || !('arguments' in fn)) return;
      const tool: ToolCallInfo = {};
      const id = objectOf(call)?.id;
      if (typeof id === 'string') tool.id = id;
      if (typeof fn.name === 'string') tool.name = fn.name;
      out.push({ path: ['message', 'tool_calls', k, 'function', 'arguments'], kind: 'json', tool });
    });
    return out;
  },
  callHints: ['"tool_calls"'],
  fails: (_event, data) => data?.error !== undefined,
  ends(_event, data) {
    if (data === undefined) return undefined;
    // The last line, an error line, and a line with tool calls (held text leaves in that line, never in a
    // copy of it sent later: that would repeat the calls) end every stream.
    return data.done === true || data.error !== undefined || toolCallsOf(data) !== undefined ? ALL_KEYS : undefined;
  },
};
