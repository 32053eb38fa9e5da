// The mock provider's side of a response: a model turn written as the three wire formats' SSE events
// (Anthropic Messages, Chat Completions, Responses with every `*.done` / `output_item.done` /
// `response.completed` copy), generic SSE, and non-streamed JSON bodies; then serialised with a chosen
// line ending, comments, multi-line data and the provider's own escape style.

import type { Rng } from '../rng.ts';
import { PLAIN_STYLE, writeJson, type JNode, type StringStyle } from './json-writer.ts';

export type Block =
  | { kind: 'text'; text: string }
  | { kind: 'thinking'; text: string }
  | { kind: 'tool'; name: string; args: string }
  | { kind: 'custom'; name: string; input: string };

/** A number written exactly as given (big integers survive only if nothing re-serialises them). */
export class RawNumber {
  constructor(readonly raw: string) {}
}

/** Event data already built as a writer node (generic documents with nested JSON text). */
export class NodeData {
  constructor(readonly node: JNode) {}
}

/** One SSE event: a name, and JSON data (a JS value) or text data. */
export interface WireEvent {
  name?: string;
  data: unknown;
  text?: boolean;
}

export interface WireOptions {
  /** Cuts a streamed string into deltas. */
  split: (s: string) => string[];
  /** Extra fields in every event: a big integer and an escaped string that must come through as sent. */
  extras: boolean;
  /** Chat: the chunk with finish_reason also carries the last content piece. */
  finishCarries: boolean;
}

function withExtras(o: WireOptions, data: Record<string, unknown>): Record<string, unknown> {
  return o.extras ? { ...data, x_big: new RawNumber('12345678901234567890'), x_esc: 'é/ "q" \\' } : data;
}

/** Converts a JS value (with RawNumber) to a node for the JSON writer. */
export function toNode(v: unknown): JNode {
  if (v instanceof RawNumber) return { t: 'num', raw: v.raw };
  if (v instanceof NodeData) return v.node;
  if (typeof v === 'string') return { t: 'str', s: v };
  if (typeof v === 'number') return { t: 'num', raw: JSON.stringify(v) };
  if (typeof v === 'boolean') return { t: 'lit', raw: v ? 'true' : 'false' };
  if (v === null || v === undefined) return { t: 'lit', raw: 'null' };
  if (Array.isArray(v)) return { t: 'arr', items: v.map(toNode) };
  return { t: 'obj', entries: Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, toNode(x)]) };
}

/** A turn as Anthropic Messages events (content blocks keyed by index). */
export function anthropicEvents(blocks: readonly Block[], o: WireOptions): WireEvent[] {
  const ev = (name: string, data: Record<string, unknown>): WireEvent => ({ name, data: withExtras(o, { type: name, ...data }) });
  const out: WireEvent[] = [ev('message_start', { message: { id: 'msg_fuzz', type: 'message', role: 'assistant', model: 'claude-x', content: [], stop_reason: null, usage: { input_tokens: 11, output_tokens: 1 } } })];
  blocks.forEach((b, index) => {
    if (b.kind === 'custom') return;
    const start = b.kind === 'text' ? { type: 'text', text: '' } : b.kind === 'thinking' ? { type: 'thinking', thinking: '', signature: '' } : { type: 'tool_use', id: `toolu_${index}`, name: b.name, input: {} };
    out.push(ev('content_block_start', { index, content_block: start }));
    if (index === 0) out.push(ev('ping', {}));
    const [type, field, s] = b.kind === 'text' ? ['text_delta', 'text', b.text] : b.kind === 'thinking' ? ['thinking_delta', 'thinking', b.text] : ['input_json_delta', 'partial_json', b.args];
    for (const piece of o.split(s)) out.push(ev('content_block_delta', { index, delta: { type, [field]: piece } }));
    if (b.kind === 'thinking') out.push(ev('content_block_delta', { index, delta: { type: 'signature_delta', signature: 'c2lnbmF0dXJl' } }));
    out.push(ev('content_block_stop', { index }));
  });
  out.push(ev('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 13 } }), ev('message_stop', {}));
  return out;
}

/** A turn as Chat Completions chunks, ending in usage and `[DONE]`. */
export function chatEvents(blocks: readonly Block[], o: WireOptions): WireEvent[] {
  const base = { id: 'chatcmpl-fuzz', object: 'chat.completion.chunk', created: 1795236671, model: 'gpt-x' };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): WireEvent => ({ data: withExtras(o, { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] }) });
  const out: WireEvent[] = [chunk({ role: 'assistant', content: '' })];
  let lastText: string | undefined;
  let tool = 0;
  for (const b of blocks) {
    if (b.kind === 'text' || b.kind === 'thinking') {
      const field = b.kind === 'text' ? 'content' : 'reasoning_content';
      const pieces = o.split(b.text);
      if (o.finishCarries && b.kind === 'text' && b === blocks[blocks.length - 1]) lastText = pieces.pop();
      for (const p of pieces) out.push(chunk({ [field]: p }));
    } else if (b.kind === 'tool') {
      out.push(chunk({ tool_calls: [{ index: tool, id: `call_${tool}`, type: 'function', function: { name: b.name, arguments: '' } }] }));
      for (const p of o.split(b.args)) out.push(chunk({ tool_calls: [{ index: tool, function: { arguments: p } }] }));
      tool++;
    }
  }
  out.push(chunk(lastText === undefined ? {} : { content: lastText }, tool > 0 ? 'tool_calls' : 'stop'));
  out.push({ data: withExtras(o, { ...base, choices: [], usage: { prompt_tokens: 18, completion_tokens: 7, total_tokens: 25 } }) });
  out.push({ data: '[DONE]', text: true });
  return out;
}

function responsesItem(b: Block, i: number): Record<string, unknown> {
  if (b.kind === 'text') return { id: `msg_${i}`, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: b.text, annotations: [] }] };
  if (b.kind === 'thinking') return { id: `rs_${i}`, type: 'reasoning', summary: [{ type: 'summary_text', text: b.text }], encrypted_content: 'gAAAAB-opaque~x' };
  if (b.kind === 'tool') return { id: `fc_${i}`, type: 'function_call', status: 'completed', arguments: b.args, call_id: `call_${i}`, name: b.name };
  return { id: `ctc_${i}`, type: 'custom_tool_call', status: 'completed', call_id: `call_${i}`, name: b.name, input: b.input };
}

/** A turn as Responses events, every value repeated in its done, output_item.done and completed copies. */
export function responsesEvents(blocks: readonly Block[], o: WireOptions): WireEvent[] {
  let seq = 0;
  const ev = (type: string, data: Record<string, unknown>): WireEvent => ({ name: type, data: withExtras(o, { type, sequence_number: seq++, ...data }) });
  const envelope = (status: string, output: unknown[]): Record<string, unknown> => ({ id: 'resp_fuzz', object: 'response', created_at: 1795236671, status, model: 'gpt-x', output, usage: null });
  const out: WireEvent[] = [ev('response.created', { response: envelope('in_progress', []) })];
  const items = blocks.map(responsesItem);
  blocks.forEach((b, oi) => {
    const item = items[oi] as Record<string, unknown>;
    const id = item.id as string;
    const empty = b.kind === 'text' ? { content: [] } : b.kind === 'thinking' ? { summary: [] } : b.kind === 'tool' ? { arguments: '' } : { input: '' };
    out.push(ev('response.output_item.added', { output_index: oi, item: { ...item, status: 'in_progress', ...empty } }));
    if (b.kind === 'text') {
      out.push(ev('response.content_part.added', { item_id: id, output_index: oi, content_index: 0, part: { type: 'output_text', text: '' } }));
      for (const p of o.split(b.text)) out.push(ev('response.output_text.delta', { item_id: id, output_index: oi, content_index: 0, delta: p }));
      out.push(ev('response.output_text.done', { item_id: id, output_index: oi, content_index: 0, text: b.text }));
      out.push(ev('response.content_part.done', { item_id: id, output_index: oi, content_index: 0, part: { type: 'output_text', text: b.text, annotations: [] } }));
    } else if (b.kind === 'thinking') {
      for (const p of o.split(b.text)) out.push(ev('response.reasoning_summary_text.delta', { item_id: id, output_index: oi, summary_index: 0, delta: p }));
      out.push(ev('response.reasoning_summary_text.done', { item_id: id, output_index: oi, summary_index: 0, text: b.text }));
    } else if (b.kind === 'tool') {
      for (const p of o.split(b.args)) out.push(ev('response.function_call_arguments.delta', { item_id: id, output_index: oi, delta: p }));
      out.push(ev('response.function_call_arguments.done', { item_id: id, output_index: oi, arguments: b.args }));
    } else {
      for (const p of o.split(b.input)) out.push(ev('response.custom_tool_call_input.delta', { item_id: id, output_index: oi, delta: p }));
      out.push(ev('response.custom_tool_call_input.done', { item_id: id, output_index: oi, input: b.input }));
    }
    out.push(ev('response.output_item.done', { output_index: oi, item }));
  });
  out.push(ev('response.completed', { response: envelope('completed', items) }));
  return out;
}

/** Non-streamed JSON bodies of the three formats. */
export function formatJson(format: 'anthropic' | 'chat' | 'responses', blocks: readonly Block[]): Record<string, unknown> {
  if (format === 'responses') return { id: 'resp_fuzz', object: 'response', status: 'completed', output: blocks.map(responsesItem), big: new RawNumber('12345678901234567890') };
  if (format === 'chat') {
    const text = blocks.filter((b) => b.kind === 'text').map((b) => (b as { text: string }).text).join('');
    const calls = blocks.filter((b) => b.kind === 'tool').map((b, i) => ({ id: `call_${i}`, type: 'function', function: { name: (b as { name: string }).name, arguments: (b as { args: string }).args } }));
    return { id: 'chatcmpl-fuzz', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: text, ...(calls.length > 0 ? { tool_calls: calls } : {}) }, finish_reason: 'stop' }] };
  }
  const content = blocks.map((b) =>
    b.kind === 'text' ? { type: 'text', text: b.text } : b.kind === 'thinking' ? { type: 'thinking', thinking: b.text, signature: 'c2ln' } : b.kind === 'tool' ? { type: 'tool_use', id: 'toolu_1', name: b.name, input: JSON.parse(b.args) } : { type: 'text', text: b.input },
  );
  return { id: 'msg_fuzz', type: 'message', role: 'assistant', content, stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 2 } };
}

export interface SseStyle {
  eol: '\n' | '\r\n' | '\r';
  /** Chance of a `: keepalive` comment or an `id:` line around an event. */
  comments: number;
  /** Cut JSON data over several `data:` lines (at blanks between tokens). */
  multiline: boolean;
  style: StringStyle;
  spacing: 'compact' | 'python';
  /** Chance that a data line is written `data:x` rather than `data: x` (both mean the same). */
  noSpace: number;
}

/** LF line ends, `data: ` lines, JSON.stringify's escaping: what the providers' captures look like. */
export const PLAIN_SSE: SseStyle = { eol: '\n', comments: 0, multiline: false, style: PLAIN_STYLE, spacing: 'compact', noSpace: 0 };

/** Serialises events as an SSE stream. */
export function serializeSse(rng: Rng, events: readonly WireEvent[], s: SseStyle): string {
  const out: string[] = [];
  for (const e of events) {
    const lines: string[] = [];
    if (rng.chance(s.comments)) lines.push(rng.pick([': keepalive', ':', 'id: 7', 'retry: 1000']));
    if (e.name !== undefined) lines.push(`event: ${e.name}`);
    const data = e.text === true ? String(e.data) : writeJson(rng, toNode(e.data), { styles: [s.style, PLAIN_STYLE], spacing: s.spacing });
    if (s.multiline && e.text !== true) {
      // Break after commas and colons outside strings: SSE joins data lines with LF, a JSON blank.
      let inString = false;
      let cut = 0;
      for (let i = 0; i < data.length; i++) {
        const c = data[i];
        if (c === '\\' && inString) i++;
        else if (c === '"') inString = !inString;
        else if (!inString && (c === ',' || c === ':') && rng.chance(0.3)) {
          lines.push(`data: ${data.slice(cut, i + 1)}`);
          cut = i + 1;
        }
      }
      lines.push(`data: ${data.slice(cut)}`);
    } else for (const part of data.split('\n')) lines.push(rng.chance(s.noSpace) && !part.startsWith(' ') ? `data:${part}` : `data: ${part}`);
    out.push(lines.join(s.eol) + s.eol + s.eol);
  }
  return out.join('');
}

/** Deltas per streamed string at most (a long text in 1-character deltas is tens of thousands of events). */
const MAX_DELTAS = 1500;

/** Cuts `s` into pieces of 1..max code points, or code units when `units` (lone surrogates at the cuts). */
export function splitter(rng: Rng, max: number, units: boolean): (s: string) => string[] {
  return (s) => {
    const cps = units ? s.split('') : [...s];
    const top = Math.max(max, Math.ceil((2 * cps.length) / MAX_DELTAS));
    const out: string[] = [];
    let i = 0;
    while (i < cps.length) {
      const n = rng.int(1, top);
      out.push(cps.slice(i, i + n).join(''));
      i += n;
    }
    return out.length === 0 ? [''] : out;
  };
}
