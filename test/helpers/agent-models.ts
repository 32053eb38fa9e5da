// Scripted "models" for real agent CLIs against the mock upstream: the user asks to write a file, the model
// calls the agent's own file-writing tool with the (redacted) content it was given, then says it is done.
// The prompt carries the request as `WRITE <path> <<<content>>>` so the script needs no state.

import type { RecordedRequest, Script } from './mock-upstream.ts';
import { render } from './mock-upstream.ts';

const WRITE = /WRITE (\S+) <<<([\s\S]*?)>>>/;

/** Every text string in a request body, in order (contents, messages, input items). */
function texts(node: unknown, out: string[] = []): string[] {
  if (typeof node === 'string') out.push(node);
  else if (Array.isArray(node)) for (const n of node) texts(n, out);
  else if (typeof node === 'object' && node !== null) for (const v of Object.values(node)) texts(v, out);
  return out;
}

/** The `WRITE path <<<content>>>` request in the last user turn, if any. */
function writeRequest(json: unknown): { path: string; content: string } | undefined {
  const all = texts(json);
  for (let i = all.length - 1; i >= 0; i--) {
    const m = WRITE.exec(all[i] as string);
    if (m !== null) return { path: m[1] as string, content: m[2] as string };
  }
  return undefined;
}

/** The prompt that asks an agent to write `content` (JSON-safe text) to `path`. */
export function writePrompt(path: string, content: string): string {
  return `Please create the file exactly as given. WRITE ${path} <<<${content}>>>`;
}

/**
 * Gemini CLI: `write_file` (args `file_path`, `content`) when asked, plain text once a function response
 * came back. Replies whole per event: placeholders split across streamed parts wait for the restore seam.
 */
export function geminiCliModel(): Script {
  return (req: RecordedRequest) => {
    const contents: any[] = Array.isArray(req.json?.contents) ? req.json.contents : [];
    const last = contents.at(-1);
    const answered = (last?.parts ?? []).some((p: any) => p?.functionResponse !== undefined);
    const hasWriteTool = JSON.stringify(req.json?.tools ?? []).includes('"write_file"');
    const ask = writeRequest(last);
    if (!answered && hasWriteTool && ask !== undefined) {
      // The text before the call says what it writes, streamed in small parts: placeholders split across events.
      return render(req, { text: `Writing ${ask.content}`, tool: { name: 'write_file', input: { file_path: ask.path, content: ask.content } }, pieceSize: 3 });
    }
    return render(req, { text: answered ? 'Done: the file is written.' : 'OK.', pieceSize: 100_000 });
  };
}

/** Codex: `apply_patch` (a custom tool) adding the file when asked, plain text once the tool output came back. */
export function codexModel(): Script {
  return (req: RecordedRequest) => {
    const input: any[] = Array.isArray(req.json?.input) ? req.json.input : [];
    const answered = input.some((i) => i?.type === 'custom_tool_call_output' || i?.type === 'function_call_output');
    const ask = writeRequest(input.filter((i) => i?.role === 'user'));
    const hasPatch = (req.json?.tools ?? []).some((t: any) => t?.name === 'apply_patch');
    if (!answered && hasPatch && ask !== undefined) {
      const patch = `*** Begin Patch\n*** Add File: ${ask.path}\n${ask.content
        .split('\n')
        .map((l) => `+${l}`)
        .join('\n')}\n*** End Patch\n`;
      return render(req, { customTool: { name: 'apply_patch', input: patch }, pieceSize: 5 });
    }
    return render(req, { text: answered ? 'Done: the file is written.' : 'OK.', pieceSize: 5 });
  };
}

/**
 * A model that follows `STEP <tool> <<<json>>>` lines in the user's prompt (a prompt injection, as far as
 * the agent knows): the n-th step once n tool results came back, when the agent offers that tool (a custom
 * tool such as Codex `apply_patch` takes the JSON string as its free-form input), then a closing text.
 * Anthropic Messages (tool_result blocks) and Responses (`*_call_output` items).
 */
export function stepModel(): Script {
  return (req: RecordedRequest) => {
    const turns: unknown = req.json?.messages ?? req.json?.input ?? [];
    const all = JSON.stringify(turns);
    const steps = [...all.matchAll(/STEP (\w+) <<<(.*?)>>>/g)].map((m) => ({ tool: m[1] as string, input: JSON.parse(JSON.parse(`"${m[2] as string}"`)) as unknown }));
    const items: any[] = Array.isArray(turns) ? turns : [];
    const blocks = items.flatMap((m) => (Array.isArray(m?.content) ? m.content : []));
    const results = blocks.filter((b: any) => b?.type === 'tool_result').length + items.filter((i) => typeof i?.type === 'string' && i.type.endsWith('_call_output')).length;
    const tools: any[] = Array.isArray(req.json?.tools) ? req.json.tools : [];
    const step = steps[results];
    const offered = step === undefined ? undefined : tools.find((t) => (t?.name ?? t?.function?.name) === step.tool);
    if (step === undefined || offered === undefined) return render(req, { text: 'Done.', pieceSize: 7 });
    if (offered.type === 'custom') return render(req, { customTool: { name: step.tool, input: String(step.input) }, pieceSize: 7 });
    return render(req, { tool: { name: step.tool, input: step.input as Record<string, unknown> }, pieceSize: 7 });
  };
}

/** The prompt line that makes stepModel call `tool` with `input`. */
export function stepPrompt(tool: string, input: unknown): string {
  return `STEP ${tool} <<<${JSON.stringify(input)}>>>`;
}

/**
 * opencode (Anthropic Messages): like stepModel, reading each `STEP tool <<<json>>>` from the user turns'
 * text (opencode's `run` sends the message in quotes with its own quotes escaped, so the JSON may be too). Its
 * title request (no tools) gets a plain title.
 */
export function opencodeModel(): Script {
  return (req: RecordedRequest) => {
    const messages: any[] = Array.isArray(req.json?.messages) ? req.json.messages : [];
    const steps: Array<{ tool: string; input: Record<string, unknown> }> = [];
    for (const t of texts(messages.filter((m) => m?.role === 'user'))) {
      for (const m of t.matchAll(/STEP (\w+) <<<(.*?)>>>/g)) {
        const raw = m[2] as string;
        let input: unknown;
        try {
          input = JSON.parse(raw);
        } catch {
          // opencode's `run` quotes the message, escaping its quotes (not its backslashes).
          input = JSON.parse(raw.replaceAll('\\"', '"'));
        }
        steps.push({ tool: m[1] as string, input: input as Record<string, unknown> });
      }
    }
    const results = messages.flatMap((m) => (Array.isArray(m?.content) ? m.content : [])).filter((b: any) => b?.type === 'tool_result').length;
    const tools: any[] = Array.isArray(req.json?.tools) ? req.json.tools : [];
    const step = steps[results];
    if (step === undefined || !tools.some((t) => t?.name === step.tool)) return render(req, { text: tools.length === 0 ? 'A title' : 'Done.', pieceSize: 7 });
    return render(req, { tool: { name: step.tool, input: step.input }, pieceSize: 7 });
  };
}
