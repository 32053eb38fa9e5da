// OpenAI Chat Completions streaming (`POST /v1/chat/completions`): `data:` lines only, ending with
// `[DONE]`; choices[i].delta.content and choices[i].delta.tool_calls[j].function.arguments (JSON
// text; only the first fragment carries the call's id and name). OpenAI-compatible providers (DESIGN §3)
// stream text in more places: `reasoning_content` (DeepSeek, vLLM), `reasoning` and
// `reasoning_details[].text` (OpenRouter), and `content` as an array of parts (Mistral: text parts and
// `thinking` parts). The older functions API streams `delta.function_call.arguments` the same way, and
// custom tools (free-text input) `delta.tool_calls[j].custom.input`.

import { ALL_KEYS, BODY, type DeltaField, type StreamAdapter, type ToolCallInfo, type ToolCallSite } from './types.ts';

const TEXT_FIELDS = ['content', 'refusal', 'reasoning_content', 'reasoning'] as const;

export const openaiChat: StreamAdapter = {
  id: 'openai-chat',
  deltas(_event, data) {
    const choices = data.choices;
    if (!Array.isArray(choices)) return [];
    const out: DeltaField[] = [];
    choices.forEach((choice: Record<string, unknown>, ci) => {
      const delta = choice?.delta as Record<string, unknown> | undefined;
      if (typeof delta !== 'object' || delta === null) return;
      const idx = String(choice.index ?? ci);
      for (const f of TEXT_FIELDS) {
        if (typeof delta[f] === 'string') out.push({ key: `${idx}/${f}`, path: ['choices', ci, 'delta', f], json: false });
      }
      if (Array.isArray(delta.reasoning_details)) {
        delta.reasoning_details.forEach((d: Record<string, unknown>, k) => {
          for (const f of ['text', 'summary'] as const) {
            if (typeof d?.[f] === 'string') out.push({ key: `${idx}/rd/${String(d.index ?? k)}/${f}`, path: ['choices', ci, 'delta', 'reasoning_details', k, f], json: false });
          }
        });
      }
      if (Array.isArray(delta.content)) contentParts(delta.content, idx, ['choices', ci, 'delta', 'content'], out);
      // The older functions API streams one call per choice in `function_call` (name in its first fragment).
      const legacy = delta.function_call as Record<string, unknown> | undefined;
      if (typeof legacy?.arguments === 'string') {
        out.push({ key: `${idx}/function_call`, path: ['choices', ci, 'delta', 'function_call', 'arguments'], json: true, tool: typeof legacy.name === 'string' ? { name: legacy.name } : {} });
      }
      const calls = delta.tool_calls;
      if (!Array.isArray(calls)) return;
      calls.forEach((call: Record<string, unknown>, ti) => {
        const site = callField(call);
        if (site === undefined) return;
        const tool: ToolCallInfo = {};
        if (typeof call.id === 'string') tool.id = call.id;
        if (site.name !== undefined) tool.name = site.name;
        out.push({ key: `${idx}/tool/${String(call.index ?? ti)}`, path: ['choices', ci, 'delta', 'tool_calls', ti, site.field, site.key], json: site.json, tool });
      });
    });
    return out;
  },
  calls(event, data) {
    // A whole completion: choices[i].message.tool_calls[j].function.arguments (and the older function_call).
    const choices = data.choices;
    if (event !== BODY || !Array.isArray(choices)) return [];
    const out: ToolCallSite[] = [];
    choices.forEach((choice: Record<string, unknown>, ci) => {
      const message = choice?.message as Record<string, unknown> | undefined;
      if (typeof message !== 'object' || message === null) return;
      if (Array.isArray(message.tool_calls)) {
        message.tool_calls.forEach((call: Record<string, unknown>, ti) => {
          const site = callField(call);
          if (site === undefined) return;
          const tool: ToolCallInfo = {};
          if (typeof call.id === 'string') tool.id = call.id;
          if (site.name !== undefined) tool.name = site.name;
          out.push({ path: ['choices', ci, 'message', 'tool_calls', ti, site.field, site.key], kind: site.json ? 'json' : 'text', tool });
        });
      }
      const legacy = message.function_call as Record<string, unknown> | undefined;
      if (typeof legacy?.arguments === 'string') {
        out.push({ path: ['choices', ci, 'message', 'function_call', 'arguments'], kind: 'json', tool: typeof legacy.name === 'string' ? { name: legacy.name } : {} });
      }
    });
    return out;
  },
  callHints: ['"tool_calls"', '"function_call"'],
  fails: (_event, data) => data?.error !== undefined && data.error !== null,
  ends(_event, data, rawData) {
    if (data === undefined) return rawData.trim() === '[DONE]' ? ALL_KEYS : undefined;
    if (data.error !== undefined) return ALL_KEYS;
    const choices = data.choices;
    if (!Array.isArray(choices)) return undefined;
    const ended: string[] = [];
    // Parallel tool calls stream one after the other: a call's first fragment (the one with its id)
    // ends the calls before it in that choice, so a call held for its placeholders is released then.
    const started: string[] = [];
    choices.forEach((c: Record<string, unknown>, i) => {
      const idx = String(c?.index ?? i);
      if (c?.finish_reason !== null && c?.finish_reason !== undefined) ended.push(`${idx}/`);
      const calls = (c?.delta as Record<string, unknown> | undefined)?.tool_calls;
      if (Array.isArray(calls)) {
        calls.forEach((call: Record<string, unknown>, ti) => {
          if (typeof call?.id === 'string') started.push(`${idx}/tool/${String(call.index ?? ti)}`);
        });
      }
    });
    if (ended.length === 0 && started.length === 0) return undefined;
    const prefixes = started.map((k) => k.slice(0, k.lastIndexOf('/') + 1));
    return (k) => ended.some((p) => k.startsWith(p)) || (!started.includes(k) && prefixes.some((p) => k.startsWith(p)));
  },
};

/**
 * Where a tool call's arguments are: `function.arguments` (JSON text), or a custom tool's `custom.input`
 * (free text, as Codex's apply_patch in Responses). Undefined when the call carries neither as a string.
 */
function callField(call: Record<string, unknown> | null | undefined): { field: 'function' | 'custom'; key: 'arguments' | 'input'; json: boolean; name: string | undefined } | undefined {
  const fn = call?.function as Record<string, unknown> | undefined;
  if (typeof fn?.arguments === 'string') return { field: 'function', key: 'arguments', json: true, name: typeof fn.name === 'string' ? fn.name : undefined };
  const custom = call?.custom as Record<string, unknown> | undefined;
  if (typeof custom?.input === 'string') return { field: 'custom', key: 'input', json: false, name: typeof custom.name === 'string' ? custom.name : undefined };
  return undefined;
}

/**
 * Text in a `content` array: `{type:"text",text}` parts, and `{type:"thinking",thinking:[{type:"text",text}]}`.
 * Several thinking texts in one event continue one stream, in order.
 */
function contentParts(parts: unknown[], idx: string, path: ReadonlyArray<string | number>, out: DeltaField[]): void {
  parts.forEach((part, k) => {
    const p = part as Record<string, unknown> | null;
    if (typeof p?.text === 'string') out.push({ key: `${idx}/content/${String(p.type ?? 'text')}`, path: [...path, k, 'text'], json: false });
    if (Array.isArray(p?.thinking)) {
      p.thinking.forEach((t: Record<string, unknown> | null, m) => {
        if (typeof t?.text === 'string') out.push({ key: `${idx}/content/thinking`, path: [...path, k, 'thinking', m, 'text'], json: false });
      });
    }
  });
}
