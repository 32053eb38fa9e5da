// Writers for Ollama's native API (docs.ollama.com/api): `/api/chat` and `/api/generate` stream NDJSON
// (`application/x-ndjson`, one JSON object per line, `done: true` last) unless `stream: false`, which gives
// one JSON object. Text arrives in `message.content` / `message.thinking` / `response` fragments; tool
// calls arrive whole with `function.arguments` as an object.

import { pieces, type Reply } from './wire.ts';

const CREATED = '2026-11-23T10:00:00.000000000Z';
const STATS = { total_duration: 4883583458, load_duration: 1334875, prompt_eval_count: 26, prompt_eval_duration: 342546000, eval_count: 282, eval_duration: 4535599000 };

type Endpoint = 'chat' | 'generate';

function line(endpoint: Endpoint, model: string, fields: { content?: string; thinking?: string; tool?: Reply['tool'] }, done: boolean): Record<string, unknown> {
  const base: Record<string, unknown> = { model, created_at: CREATED };
  if (endpoint === 'chat') {
    const message: Record<string, unknown> = { role: 'assistant', content: fields.content ?? '' };
    if (fields.thinking !== undefined) message.thinking = fields.thinking;
    if (fields.tool !== undefined) message.tool_calls = [{ function: { name: fields.tool.name, arguments: fields.tool.input } }];
    base.message = message;
  } else {
    base.response = fields.content ?? '';
    if (fields.thinking !== undefined) base.thinking = fields.thinking;
  }
  base.done = done;
  return done ? { ...base, done_reason: 'stop', ...STATS } : base;
}

/** The NDJSON lines of a streamed reply. */
export function ollamaNdjson(endpoint: Endpoint, r: Reply, model = 'llama-x'): string {
  const size = r.pieceSize ?? 3;
  const out: Array<Record<string, unknown>> = [];
  if (r.thinking !== undefined) for (const p of pieces(r.thinking, size)) out.push(line(endpoint, model, { thinking: p }, false));
  if (r.text !== undefined) for (const p of pieces(r.text, size)) out.push(line(endpoint, model, { content: p }, false));
  if (r.tool !== undefined && endpoint === 'chat') out.push(line(endpoint, model, { tool: r.tool }, false));
  out.push(line(endpoint, model, {}, true));
  return out.map((o) => `${JSON.stringify(o)}\n`).join('');
}

/** The single object of a `stream: false` reply. */
export function ollamaJson(endpoint: Endpoint, r: Reply, model = 'llama-x'): unknown {
  const fields: { content?: string; thinking?: string; tool?: Reply['tool'] } = {};
  if (r.text !== undefined) fields.content = r.text;
  if (r.thinking !== undefined) fields.thinking = r.thinking;
  if (r.tool !== undefined && endpoint === 'chat') fields.tool = r.tool;
  return line(endpoint, model, fields, true);
}
