// OpenAI Chat Completions streaming (`POST /v1/chat/completions`): `data:` lines only, ending with
// `[DONE]`; choices[i].delta.content and choices[i].delta.tool_calls[j].function.arguments (JSON
// text; only the first fragment carries the call's id and name).

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
