// Writers for the three wire formats the mock upstream speaks, modelled on the captures in
// ../shared/fixtures/wire: whole JSON responses and SSE transcripts, with text split into small pieces.

export interface ToolCall {
  name: string;
  /** The tool input; serialised with JSON.stringify as the provider would. */
  input: Record<string, unknown>;
  /** Responses only: the namespace of a namespaced function (Codex groups each MCP server's tools as `mcp__<server>`). */
  namespace?: string;
}

export interface Reply {
  text?: string;
  thinking?: string;
  tool?: ToolCall;
  /** A Responses custom tool (Codex apply_patch): free-text input. */
  customTool?: { name: string; input: string };
  /** Characters per streamed delta (default 3: placeholders always split across events). */
  pieceSize?: number;
  /**
   * Chat Completions as an OpenAI-compatible provider streams reasoning (`thinking`): in
   * `reasoning_content` (DeepSeek, vLLM), `reasoning` or `reasoning_details` (OpenRouter), or with
   * `content` as an array of parts (Mistral).
   */
  chatDialect?: 'reasoning_content' | 'reasoning' | 'reasoning_details' | 'content_array';
}

/** Cuts `s` into pieces of at most `size` code points. */
export function pieces(s: string, size: number): string[] {
  const cps = [...s];
  const out: string[] = [];
  for (let i = 0; i < cps.length; i += size) out.push(cps.slice(i, i + size).join(''));
  return out.length === 0 ? [''] : out;
}

function sse(event: string | undefined, data: unknown): string {
  return `${event === undefined ? '' : `event: ${event}\n`}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

let counter = 0;
function id(prefix: string): string {
  counter++;
  return `${prefix}_${counter.toString(36).padStart(8, '0')}`;
}

// ---- Anthropic Messages ----

export function anthropicJson(r: Reply, model = 'claude-x'): unknown {
  const content: unknown[] = [];
  if (r.thinking !== undefined) content.push({ type: 'thinking', thinking: r.thinking, signature: 'c2lnbmF0dXJl' });
  if (r.text !== undefined) content.push({ type: 'text', text: r.text });
  if (r.tool !== undefined) content.push({ type: 'tool_use', id: id('toolu'), name: r.tool.name, input: r.tool.input });
  return {
    id: id('msg'),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: r.tool === undefined ? 'end_turn' : 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 11, output_tokens: 13 },
  };
}

export function anthropicSse(r: Reply, model = 'claude-x'): string {
  const size = r.pieceSize ?? 3;
  let out = sse('message_start', {
    type: 'message_start',
    message: { id: id('msg'), type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 11, output_tokens: 1 } },
  });
  let index = 0;
  if (r.thinking !== undefined) {
    out += sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
    for (const p of pieces(r.thinking, size)) out += sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: p } });
    out += sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: 'c2lnbmF0dXJl' } });
    out += sse('content_block_stop', { type: 'content_block_stop', index });
    index++;
  }
  if (r.text !== undefined) {
    out += sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    out += sse('ping', { type: 'ping' });
    for (const p of pieces(r.text, size)) out += sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: p } });
    out += sse('content_block_stop', { type: 'content_block_stop', index });
    index++;
  }
  if (r.tool !== undefined) {
    out += sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: id('toolu'), name: r.tool.name, input: {} } });
    out += sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: '' } });
    for (const p of pieces(JSON.stringify(r.tool.input), size)) {
      out += sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: p } });
    }
    out += sse('content_block_stop', { type: 'content_block_stop', index });
  }
  out += sse('message_delta', { type: 'message_delta', delta: { stop_reason: r.tool === undefined ? 'end_turn' : 'tool_use', stop_sequence: null }, usage: { output_tokens: 13 } });
  out += sse('message_stop', { type: 'message_stop' });
  return out;
}

// ---- OpenAI Chat Completions ----

export function chatJson(r: Reply, model = 'gpt-x'): unknown {
  const message: Record<string, unknown> = { role: 'assistant', content: r.text ?? null, refusal: null };
  if (r.tool !== undefined) {
    message.tool_calls = [{ id: id('call'), type: 'function', function: { name: r.tool.name, arguments: JSON.stringify(r.tool.input) } }];
  }
  return {
    id: id('chatcmpl'),
    object: 'chat.completion',
    created: 1795236671,
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: r.tool === undefined ? 'stop' : 'tool_calls' }],
    usage: { prompt_tokens: 18, completion_tokens: 7, total_tokens: 25 },
  };
}

export function chatSse(r: Reply, model = 'gpt-x'): string {
  const size = r.pieceSize ?? 3;
  const base = { id: id('chatcmpl'), object: 'chat.completion.chunk', created: 1795236671, model, system_fingerprint: 'fp_mock' };
  const chunk = (delta: unknown, finish: string | null = null): string =>
    sse(undefined, { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  let out = chunk({ role: 'assistant', content: r.text === undefined ? null : '', refusal: null });
  if (r.thinking !== undefined && r.chatDialect !== undefined) {
    for (const p of pieces(r.thinking, size)) {
      if (r.chatDialect === 'reasoning_details') out += chunk({ reasoning_details: [{ type: 'reasoning.text', text: p, format: 'unknown', index: 0 }] });
      else if (r.chatDialect === 'content_array') out += chunk({ content: [{ type: 'thinking', thinking: [{ type: 'text', text: p }] }] });
      else out += chunk({ [r.chatDialect]: p });
    }
  }
  if (r.text !== undefined) for (const p of pieces(r.text, size)) out += chunk({ content: r.chatDialect === 'content_array' ? [{ type: 'text', text: p }] : p });
  if (r.tool !== undefined) {
    out += chunk({ tool_calls: [{ index: 0, id: id('call'), type: 'function', function: { name: r.tool.name, arguments: '' } }] });
    for (const p of pieces(JSON.stringify(r.tool.input), size)) out += chunk({ tool_calls: [{ index: 0, function: { arguments: p } }] });
  }
  out += chunk({}, r.tool === undefined ? 'stop' : 'tool_calls');
  out += sse(undefined, { ...base, choices: [], usage: { prompt_tokens: 18, completion_tokens: 7, total_tokens: 25 } });
  out += sse(undefined, '[DONE]');
  return out;
}

// ---- OpenAI Responses ----

function responsesOutput(r: Reply, ids: { msg: string; fc: string; call: string; ct: string; ctCall: string; rs: string }): unknown[] {
  const output: unknown[] = [];
  if (r.thinking !== undefined) {
    output.push({ id: ids.rs, type: 'reasoning', summary: [{ type: 'summary_text', text: r.thinking }], encrypted_content: 'gAAAAB-opaque' });
  }
  if (r.text !== undefined) {
    output.push({ id: ids.msg, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: r.text, annotations: [], logprobs: [] }] });
  }
  if (r.tool !== undefined) {
    output.push({ id: ids.fc, type: 'function_call', status: 'completed', arguments: JSON.stringify(r.tool.input), call_id: ids.call, name: r.tool.name, ...(r.tool.namespace === undefined ? {} : { namespace: r.tool.namespace }) });
  }
  if (r.customTool !== undefined) {
    output.push({ id: ids.ct, type: 'custom_tool_call', status: 'completed', call_id: ids.ctCall, name: r.customTool.name, input: r.customTool.input });
  }
  return output;
}

function responseEnvelope(respId: string, status: string, output: unknown[], model: string): Record<string, unknown> {
  return {
    id: respId,
    object: 'response',
    created_at: 1795236671,
    status,
    error: null,
    incomplete_details: null,
    model,
    output,
    parallel_tool_calls: true,
    store: false,
    usage: status === 'completed' ? { input_tokens: 11, output_tokens: 9, total_tokens: 20 } : null,
  };
}

function newIds(): { resp: string; msg: string; fc: string; call: string; ct: string; ctCall: string; rs: string } {
  return { resp: id('resp'), msg: id('msg'), fc: id('fc'), call: id('call'), ct: id('ctc'), ctCall: id('call'), rs: id('rs') };
}

export function responsesJson(r: Reply, model = 'gpt-x'): unknown {
  const ids = newIds();
  return responseEnvelope(ids.resp, 'completed', responsesOutput(r, ids), model);
}

export function responsesSse(r: Reply, model = 'gpt-x'): string {
  const size = r.pieceSize ?? 3;
  const ids = newIds();
  let seq = 0;
  const ev = (type: string, body: Record<string, unknown>): string => sse(type, { type, sequence_number: seq++, ...body });
  let out = ev('response.created', { response: responseEnvelope(ids.resp, 'in_progress', [], model) });
  out += ev('response.in_progress', { response: responseEnvelope(ids.resp, 'in_progress', [], model) });
  let oi = 0;
  const full = responsesOutput(r, ids) as Array<Record<string, unknown>>;
  let fi = 0;
  if (r.thinking !== undefined) {
    out += ev('response.output_item.added', { output_index: oi, item: { id: ids.rs, type: 'reasoning', summary: [] } });
    out += ev('response.reasoning_summary_part.added', { item_id: ids.rs, output_index: oi, summary_index: 0, part: { type: 'summary_text', text: '' } });
    for (const p of pieces(r.thinking, size)) out += ev('response.reasoning_summary_text.delta', { item_id: ids.rs, output_index: oi, summary_index: 0, delta: p });
    out += ev('response.reasoning_summary_text.done', { item_id: ids.rs, output_index: oi, summary_index: 0, text: r.thinking });
    out += ev('response.output_item.done', { output_index: oi, item: full[fi++] });
    oi++;
  }
  if (r.text !== undefined) {
    out += ev('response.output_item.added', { output_index: oi, item: { id: ids.msg, type: 'message', status: 'in_progress', role: 'assistant', content: [] } });
    out += ev('response.content_part.added', { item_id: ids.msg, output_index: oi, content_index: 0, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } });
    for (const p of pieces(r.text, size)) out += ev('response.output_text.delta', { item_id: ids.msg, output_index: oi, content_index: 0, delta: p, logprobs: [] });
    out += ev('response.output_text.done', { item_id: ids.msg, output_index: oi, content_index: 0, text: r.text, logprobs: [] });
    out += ev('response.content_part.done', { item_id: ids.msg, output_index: oi, content_index: 0, part: { type: 'output_text', text: r.text, annotations: [], logprobs: [] } });
    out += ev('response.output_item.done', { output_index: oi, item: full[fi++] });
    oi++;
  }
  if (r.tool !== undefined) {
    const args = JSON.stringify(r.tool.input);
    out += ev('response.output_item.added', { output_index: oi, item: { id: ids.fc, type: 'function_call', status: 'in_progress', arguments: '', call_id: ids.call, name: r.tool.name, ...(r.tool.namespace === undefined ? {} : { namespace: r.tool.namespace }) } });
    for (const p of pieces(args, size)) out += ev('response.function_call_arguments.delta', { item_id: ids.fc, output_index: oi, delta: p });
    out += ev('response.function_call_arguments.done', { item_id: ids.fc, output_index: oi, name: r.tool.name, arguments: args });
    out += ev('response.output_item.done', { output_index: oi, item: full[fi++] });
    oi++;
  }
  if (r.customTool !== undefined) {
    out += ev('response.output_item.added', { output_index: oi, item: { id: ids.ct, type: 'custom_tool_call', status: 'in_progress', call_id: ids.ctCall, name: r.customTool.name, input: '' } });
    for (const p of pieces(r.customTool.input, size)) out += ev('response.custom_tool_call_input.delta', { item_id: ids.ct, output_index: oi, delta: p });
    out += ev('response.custom_tool_call_input.done', { item_id: ids.ct, output_index: oi, input: r.customTool.input });
    out += ev('response.output_item.done', { output_index: oi, item: full[fi++] });
    oi++;
  }
  out += ev('response.completed', { response: responseEnvelope(ids.resp, 'completed', full, model) });
  return out;
}
