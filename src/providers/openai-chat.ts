// OpenAI Chat Completions streaming (`POST /v1/chat/completions`): `data:` lines only, ending with
// `[DONE]`; choices[i].delta.content and choices[i].delta.tool_calls[j].function.arguments (JSON
// text; only the first fragment carries the call's id and name). OpenAI-compatible providers (DESIGN §3)
// stream text in more places: `reasoning_content` (DeepSeek, vLLM), `reasoning` and
// `reasoning_details[].text` (OpenRouter), and `content` as an array of parts (Mistral: text parts and
// `thinking` parts).

import { ALL_KEYS, type DeltaField, type StreamAdapter, type ToolCallInfo } from './types.ts';

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
      const calls = delta.tool_calls;
      if (!Array.isArray(calls)) return;
      calls.forEach((call: Record<string, unknown>, ti) => {
        const fn = call?.function as Record<string, unknown> | undefined;
        if (typeof fn?.arguments !== 'string') return;
        const tool: ToolCallInfo = {};
        if (typeof call.id === 'string') tool.id = call.id;
        if (typeof fn.name === 'string') tool.name = fn.name;
        out.push({ key: `${idx}/tool/${String(call.index ?? ti)}`, path: ['choices', ci, 'delta', 'tool_calls', ti, 'function', 'arguments'], json: true, tool });
      });
    });
    return out;
  },
  ends(_event, data, rawData) {
    if (data === undefined) return rawData.trim() === '[DONE]' ? ALL_KEYS : undefined;
    if (data.error !== undefined) return ALL_KEYS;
    const choices = data.choices;
    if (!Array.isArray(choices)) return undefined;
    const done = choices
      .filter((c: Record<string, unknown>) => c?.finish_reason !== null && c?.finish_reason !== undefined)
      .map((c: Record<string, unknown>, i) => `${String(c.index ?? i)}/`);
    if (done.length === 0) return undefined;
    return (k) => done.some((p) => k.startsWith(p));
  },
};

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
