// Anthropic Messages (`POST /v1/messages`): streamed (stream: true), content blocks keyed by `index`
// carry text_delta.text, thinking_delta.thinking and input_json_delta.partial_json (JSON text, the
// arguments of the tool call that content_block_start names); a whole message (the non-streamed body,
// and `message_start`) holds tool_use blocks with `input` as a JSON value.

import { ALL_KEYS, BODY, type DeltaField, type StreamAdapter, type StreamOpen, type ToolCallInfo, type ToolCallSite } from './types.ts';

const FIELDS: Record<string, { field: string; json: boolean }> = {
  text_delta: { field: 'text', json: false },
  thinking_delta: { field: 'thinking', json: false },
  input_json_delta: { field: 'partial_json', json: true },
};

/** Content blocks whose `input` streams as input_json_delta. */
const TOOL_BLOCKS = new Set(['tool_use', 'server_tool_use', 'mcp_tool_use']);

export const anthropicMessages: StreamAdapter = {
  id: 'anthropic-messages',
  deltas(_event, data) {
    if (data.type !== 'content_block_delta') return [];
    const delta = data.delta as Record<string, unknown> | undefined;
    const spec = typeof delta?.type === 'string' ? FIELDS[delta.type] : undefined;
    if (spec === undefined || typeof delta?.[spec.field] !== 'string') return [];
    const field: DeltaField = { key: String(data.index), path: ['delta', spec.field], json: spec.json };
    if (spec.json) field.tool = {};
    return [field];
  },
  opens(_event, data) {
    if (data.type !== 'content_block_start') return [];
    const block = data.content_block as Record<string, unknown> | undefined;
    if (typeof block !== 'object' || block === null) return [];
    const open: StreamOpen = { key: String(data.index), json: TOOL_BLOCKS.has(String(block.type)) };
    if (open.json) open.tool = toolInfo(block);
    return [open];
  },
  calls(event, data) {
    const out: ToolCallSite[] = [];
    if (data.type === 'content_block_start') blockCall(data.content_block, ['content_block'], out);
    const message = event === BODY ? data : data.type === 'message_start' ? (data.message as Record<string, unknown> | undefined) : undefined;
    const content = message?.content;
    if (Array.isArray(content)) content.forEach((b, i) => blockCall(b, event === BODY ? ['content', i] : ['message', 'content', i], out));
    return out;
  },
  callHints: ['tool_use"'],
  fails: (event, data) => event === 'error' || data?.type === 'error',
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

/** A tool block's `input` (a JSON value: tool_use input is an object). */
function blockCall(block: unknown, at: ReadonlyArray<string | number>, out: ToolCallSite[]): void {
  if (typeof block !== 'object' || block === null) return;
  const b = block as Record<string, unknown>;
  if (!TOOL_BLOCKS.has(String(b.type)) || b.input === undefined) return;
  out.push({ path: [...at, 'input'], kind: 'json', tool: toolInfo(b) });
}

function toolInfo(block: Record<string, unknown>): ToolCallInfo {
  const info: ToolCallInfo = {};
  if (typeof block.id === 'string') info.id = block.id;
  if (typeof block.name === 'string') info.name = block.name;
  // The MCP connector: Anthropic calls the server named in the request's `mcp_servers` itself.
  if (block.type === 'mcp_tool_use') info.server = typeof block.server_name === 'string' ? block.server_name : '';
  return info;
}
