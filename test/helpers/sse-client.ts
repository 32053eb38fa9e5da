// A minimal SSE consumer for the three wire formats, as an SDK would read them: it parses events per the
// SSE rules (CRLF/LF/CR, comments, multi-line data) and reassembles streamed text, tool arguments and the
// whole-value copies (`*.done`, `output_item.done`, `response.completed`).

export interface Collected {
  /** Concatenated streamed text per stream key. */
  streams: Map<string, string>;
  /** Whole copies of values carried by done/completed events, in order. */
  copies: string[];
  /** Event names in order. */
  events: string[];
  errors: string[];
}

/** Parses SSE text into (event, data) pairs the way EventSource does. */
export function parseSse(text: string): Array<{ event: string; data: string }> {
  const out: Array<{ event: string; data: string }> = [];
  let event = '';
  let data: string[] = [];
  for (const line of text.split(/\r\n|\n|\r/)) {
    if (line === '') {
      if (data.length > 0) out.push({ event: event === '' ? 'message' : event, data: data.join('\n') });
      event = '';
      data = [];
      continue;
    }
    if (line.startsWith(':')) continue;
    const i = line.indexOf(':');
    const field = i === -1 ? line : line.slice(0, i);
    let value = i === -1 ? '' : line.slice(i + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  return out;
}

/** Reassembles a stream of any of the three formats. */
export function collect(text: string): Collected {
  const c: Collected = { streams: new Map(), copies: [], events: [], errors: [] };
  const add = (key: string, s: string): void => {
    c.streams.set(key, (c.streams.get(key) ?? '') + s);
  };
  for (const { event, data } of parseSse(text)) {
    c.events.push(event);
    if (data === '[DONE]') continue;
    const d = JSON.parse(data);
    if (event === 'error' || d.type === 'error') c.errors.push(JSON.stringify(d));
    // Anthropic
    if (d.type === 'content_block_delta') {
      const delta = d.delta;
      if (delta.type === 'text_delta') add(`a${d.index}:text`, delta.text);
      if (delta.type === 'thinking_delta') add(`a${d.index}:thinking`, delta.thinking);
      if (delta.type === 'input_json_delta') add(`a${d.index}:json`, delta.partial_json);
    }
    // Chat
    if (Array.isArray(d.choices)) {
      for (const ch of d.choices) {
        if (typeof ch.delta?.content === 'string') add(`c${ch.index}:text`, ch.delta.content);
        for (const tc of ch.delta?.tool_calls ?? []) if (typeof tc.function?.arguments === 'string') add(`c${ch.index}:tool${tc.index}`, tc.function.arguments);
      }
    }
    // Responses
    if (typeof d.type === 'string' && d.type.startsWith('response.')) {
      if (d.type.endsWith('.delta') && typeof d.delta === 'string') add(`r${d.item_id}:${d.type}`, d.delta);
      if (d.type === 'response.output_text.done') c.copies.push(d.text);
      if (d.type === 'response.function_call_arguments.done') c.copies.push(d.arguments);
      if (d.type === 'response.custom_tool_call_input.done') c.copies.push(d.input);
      if (d.type === 'response.reasoning_summary_text.done') c.copies.push(d.text);
      if (d.type === 'response.content_part.done') c.copies.push(d.part.text);
      if (d.type === 'response.output_item.done') c.copies.push(...itemValues(d.item));
      if (d.type === 'response.completed') for (const item of d.response.output) c.copies.push(...itemValues(item));
    }
  }
  return c;
}

function itemValues(item: any): string[] {
  if (item.type === 'message') return item.content.map((p: any) => p.text);
  if (item.type === 'function_call') return [item.arguments];
  if (item.type === 'custom_tool_call') return [item.input];
  if (item.type === 'reasoning') return item.summary.map((s: any) => s.text);
  return [];
}
