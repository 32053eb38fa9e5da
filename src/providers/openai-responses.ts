// OpenAI Responses streaming (`POST /v1/responses`): `response.*.delta` events keyed by item and
// part (output_text, refusal, reasoning, function_call_arguments and mcp arguments as JSON text,
// custom_tool_call_input as plain text — Codex apply_patch). The matching `*.done`,
// `response.content_part.done`, `response.output_item.done` and `response.completed` repeat whole
// values: declared as copies of their stream, and restored in place like every other string.

import { ALL_KEYS, BODY, PARTIAL_CALL, type CopyField, type DeltaField, type StreamAdapter, type StreamOpen, type ToolCallInfo, type ToolCallSite } from './types.ts';

/** `response.foo.delta` / `response.foo.done` → the stream key shared by both. */
function streamKey(type: string, data: Record<string, unknown>): string {
  const base = type.slice(0, type.lastIndexOf('.'));
  const part = data.content_index ?? data.summary_index ?? data.command_index ?? '';
  return `${String(data.item_id ?? data.output_index ?? '')}|${base}|${String(part)}`;
}

/** The field a `*.done` event repeats its stream's whole value in. */
const DONE_FIELDS: Record<string, string> = {
  'response.output_text.done': 'text',
  'response.refusal.done': 'refusal',
  'response.reasoning_text.done': 'text',
  'response.reasoning_summary_text.done': 'text',
  'response.function_call_arguments.done': 'arguments',
  'response.mcp_call_arguments.done': 'arguments',
  'response.custom_tool_call_input.done': 'input',
};

/** Items whose arguments stream as deltas: the stream they feed and whether that is JSON text. */
const TOOL_ITEMS: Record<string, { stream: string; field: string; json: boolean }> = {
  function_call: { stream: 'response.function_call_arguments', field: 'arguments', json: true },
  mcp_call: { stream: 'response.mcp_call_arguments', field: 'arguments', json: true },
  custom_tool_call: { stream: 'response.custom_tool_call_input', field: 'input', json: false },
};

/**
 * Items a client runs that carry no argument stream of their own: decided whole, as a JSON value, by the
 * name given here (their fields are what the client runs: `action.command`, `action.commands`, `operation.diff`).
 * Any other `*_call` item is decided whole too, under its own type's name.
 */
const ITEM_TOOL_NAMES: Record<string, string> = {
  local_shell_call: 'local_shell',
  shell_call: 'shell',
  apply_patch_call: 'apply_patch',
  computer_call: 'computer',
};

export const openaiResponses: StreamAdapter = {
  id: 'openai-responses',
  deltas(_event, data) {
    const type = data.type;
    if (typeof type !== 'string' || !type.endsWith('.delta') || typeof data.delta !== 'string') return [];
    const field: DeltaField = { key: streamKey(type, data), path: ['delta'], json: type.includes('arguments') };
    const base = type.slice(0, -'.delta'.length);
    if (isToolStream(base)) field.tool = {};
    else if (isItemCallEvent(base)) {
      // A field of an item the client runs from its whole copy (`response.shell_call_command.delta`,
      // `response.apply_patch_call_operation_diff.delta`): a part, never decided on its own.
      field.tool = {};
      field.withhold = PARTIAL_CALL;
    }
    return [field];
  },
  calls(event, data) {
    // A whole response (the non-streamed body): its output items; `output_item.added` may already carry arguments.
    if (event === BODY && Array.isArray(data.output)) return data.output.flatMap((item, k) => [...itemCall(item, ['output', k]), ...wholeItemCall(item, ['output', k])]);
    const type = data.type;
    if (type === 'response.output_item.added') return [...itemCall(data.item, ['item'], true), ...wholeItemCall(data.item, ['item'])];
    if (type === 'response.output_item.done') return wholeItemCall(data.item, ['item']);
    if (type === 'response.completed' || type === 'response.incomplete' || type === 'response.failed') {
      const output = (data.response as Record<string, unknown> | undefined)?.output;
      return Array.isArray(output) ? output.flatMap((item, k) => wholeItemCall(item, ['response', 'output', k])) : [];
    }
    return typeof type === 'string' ? itemCallEventParts(type, data) : [];
  },
  callHints: ['_call"'],
  fails: (event, data) => event === 'error' || data?.type === 'error' || data?.type === 'response.failed' || data?.type === 'response.incomplete',
  opens(_event, data) {
    if (data.type !== 'response.output_item.added') return [];
    const item = data.item as Record<string, unknown> | undefined;
    const spec = typeof item?.type === 'string' ? TOOL_ITEMS[item.type] : undefined;
    if (item === undefined || spec === undefined) return [];
    const open: StreamOpen = { key: `${String(item.id ?? data.output_index ?? '')}|${spec.stream}|`, json: spec.json, tool: toolInfo(item) };
    return [open];
  },
  copies(_event, data) {
    const type = data.type;
    if (typeof type !== 'string') return [];
    const field = DONE_FIELDS[type];
    if (field !== undefined) {
      if (typeof data[field] !== 'string') return [];
      const copy: CopyField = { key: streamKey(type, data), path: [field], json: field === 'arguments' };
      if (isToolStream(type.slice(0, -'.done'.length))) copy.tool = typeof data.name === 'string' ? { name: data.name } : {};
      return [copy];
    }
    if (type === 'response.content_part.done' || type === 'response.reasoning_summary_part.done') {
      const part = data.part as Record<string, unknown> | undefined;
      const stream = type === 'response.content_part.done' ? (part?.type === 'refusal' ? 'response.refusal' : 'response.output_text') : 'response.reasoning_summary_text';
      const text = part?.type === 'refusal' ? 'refusal' : 'text';
      if (typeof part?.[text] !== 'string') return [];
      return [{ key: `${String(data.item_id ?? '')}|${stream}|${String(data.content_index ?? data.summary_index ?? '')}`, path: ['part', text], json: false }];
    }
    if (type === 'response.output_item.done') return itemCopies(data.item, ['item']);
    if (type === 'response.completed' || type === 'response.incomplete' || type === 'response.failed') {
      const output = (data.response as Record<string, unknown> | undefined)?.output;
      return Array.isArray(output) ? output.flatMap((item, k) => itemCopies(item, ['response', 'output', k])) : [];
    }
    return [];
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

function isToolStream(base: string): boolean {
  return Object.values(TOOL_ITEMS).some((t) => t.stream === base);
}

/** An event about a `*_call` item other than the argument streams above (`response.shell_call_command.added`, `….delta`, `….done`). */
function isItemCallEvent(type: string): boolean {
  return type.startsWith('response.') && /_call[._]/.test(type) && !isToolStream(type.slice(0, type.lastIndexOf('.')));
}

/** Fields an event of such an item carries: parts of the call, never restored into under a guarding sink. */
function itemCallEventParts(type: string, data: Record<string, unknown>): ToolCallSite[] {
  if (!isItemCallEvent(type)) return [];
  const out: ToolCallSite[] = [];
  for (const [k, v] of Object.entries(data)) {
    // A delta is its stream's (deltas above); ids and indexes never hold a placeholder a client runs.
    if (k === 'type' || (k === 'delta' && type.endsWith('.delta')) || (typeof v !== 'string' && (typeof v !== 'object' || v === null))) continue;
    out.push({ path: [k], kind: typeof v === 'string' ? 'text' : 'json', tool: {}, withhold: PARTIAL_CALL });
  }
  return out;
}

/** A `*_call` item without an argument stream, as one call read whole (see ITEM_TOOL_NAMES); counted once across its copies. */
function wholeItemCall(value: unknown, at: ReadonlyArray<string | number>): ToolCallSite[] {
  if (typeof value !== 'object' || value === null) return [];
  const item = value as Record<string, unknown>;
  const type = item.type;
  if (typeof type !== 'string' || !type.endsWith('_call') || TOOL_ITEMS[type] !== undefined) return [];
  const tool = toolInfo(item);
  tool.name = typeof item.name === 'string' ? item.name : (ITEM_TOOL_NAMES[type] ?? type.slice(0, -'_call'.length));
  return [{ path: at, kind: 'json', tool, key: `${String(item.id ?? item.call_id ?? '')}|item|` }];
}

/** A tool-call item's arguments (or custom input), as a complete call; `stream`: the start of its delta stream. */
function itemCall(value: unknown, at: ReadonlyArray<string | number>, stream = false): ToolCallSite[] {
  if (typeof value !== 'object' || value === null) return [];
  const item = value as Record<string, unknown>;
  const spec = typeof item.type === 'string' ? TOOL_ITEMS[item.type] : undefined;
  if (spec === undefined || typeof item[spec.field] !== 'string') return [];
  const site: ToolCallSite = { path: [...at, spec.field], kind: spec.json ? 'json' : 'text', tool: toolInfo(item) };
  if (stream) site.key = `${String(item.id ?? '')}|${spec.stream}|`;
  return [site];
}

function toolInfo(item: Record<string, unknown>): ToolCallInfo {
  const info: ToolCallInfo = {};
  const id = item.call_id ?? item.id;
  if (typeof id === 'string') info.id = id;
  if (typeof item.name === 'string') info.name = qualifiedName(item.name, item.namespace);
  // The provider calls a hosted MCP server itself; the server is the destination of the arguments.
  if (item.type === 'mcp_call') info.server = typeof item.server_label === 'string' ? item.server_label : '';
  return info;
}

/**
 * A function in a namespace (`{"type":"namespace","name":"mcp__tracker__","tools":[…]}`: Codex groups each
 * MCP server's tools so) comes back as `name` plus `namespace`; the agent runs it as namespace + name
 * (codex-mcp mcp_tool_names.rs: `mcp__<server>__<tool>`).
 */
function qualifiedName(name: string, namespace: unknown): string {
  if (typeof namespace !== 'string' || namespace === '') return name;
  return namespace.endsWith('__') ? `${namespace}${name}` : `${namespace}__${name}`;
}

/** The copies an output item carries: message text and refusals, reasoning text, tool-call arguments. */
function itemCopies(value: unknown, at: ReadonlyArray<string | number>): CopyField[] {
  if (typeof value !== 'object' || value === null) return [];
  const item = value as Record<string, unknown>;
  const id = String(item.id ?? '');
  const out: CopyField[] = [];
  const parts = (list: unknown, field: string, stream: (p: Record<string, unknown>) => string, name: string): void => {
    if (!Array.isArray(list)) return;
    list.forEach((p: Record<string, unknown>, i) => {
      const f = p?.type === 'refusal' ? 'refusal' : field;
      if (typeof p?.[f] === 'string') out.push({ key: `${id}|${stream(p)}|${i}`, path: [...at, name, i, f], json: false });
    });
  };
  if (item.type === 'message') parts(item.content, 'text', (p) => (p.type === 'refusal' ? 'response.refusal' : 'response.output_text'), 'content');
  if (item.type === 'reasoning') {
    parts(item.summary, 'text', () => 'response.reasoning_summary_text', 'summary');
    parts(item.content, 'text', () => 'response.reasoning_text', 'content');
  }
  const spec = typeof item.type === 'string' ? TOOL_ITEMS[item.type] : undefined;
  if (spec !== undefined && typeof item[spec.field] === 'string') out.push({ key: `${id}|${spec.stream}|`, path: [...at, spec.field], json: spec.json, tool: toolInfo(item) });
  return out;
}
