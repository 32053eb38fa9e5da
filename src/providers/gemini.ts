// Gemini `:generateContent` and `:streamGenerateContent` (ai.google.dev/api/generate-content): every
// event is a whole GenerateContentResponse (SSE with `alt=sse`, else the elements of a streamed JSON
// array); a non-streamed body is one such document. Text arrives in `candidates[i].content.parts[j].text`
// fragments, thought summaries in parts marked `thought: true`; function calls arrive whole, their `args`
// a JSON object, declared as tool calls for sink-aware restore; `thoughtSignature` is opaque, never read.
// Vertex AI can stream a call's arguments instead (`functionCall.partialArgs`, with `willContinue`): pieces
// of string arguments keyed by JSON path, declared as parts of a call that are never restored into.
//
// Stream keys. Each chunk carries only its new parts, numbered from 0 again in every chunk, so a part's
// index names nothing across chunks; clients join a candidate's consecutive text parts across chunks
// (thought parts apart), which is what a placeholder split by the model's tokens spans. So a candidate's
// text is one stream and its thought text another: `<candidate>/text`, `<candidate>/thought`.

import { ALL_KEYS, BODY, PARTIAL_CALL, type DeltaField, type StreamAdapter, type ToolCallInfo, type ToolCallSite } from './types.ts';

interface Part {
  part: Record<string, unknown>;
  /** Path of the part inside the document. */
  path: ReadonlyArray<string | number>;
  /** The candidate's stream-key prefix (its `index`, or its position: the API leaves index 0 out). */
  candidate: string;
}

/** Every part of every candidate in a document, in order. */
function partsOf(data: Record<string, unknown>): Part[] {
  const candidates = data.candidates;
  if (!Array.isArray(candidates)) return [];
  const out: Part[] = [];
  candidates.forEach((c: Record<string, unknown> | null, ci) => {
    const parts = (c?.content as Record<string, unknown> | undefined)?.parts;
    if (!Array.isArray(parts)) return;
    const candidate = `${String(c?.index ?? ci)}/`;
    parts.forEach((p: unknown, pj) => {
      if (typeof p === 'object' && p !== null && !Array.isArray(p)) out.push({ part: p as Record<string, unknown>, path: ['candidates', ci, 'content', 'parts', pj], candidate });
    });
  });
  return out;
}

function toolOf(fc: Record<string, unknown>): ToolCallInfo {
  const tool: ToolCallInfo = {};
  if (typeof fc.id === 'string') tool.id = fc.id;
  if (typeof fc.name === 'string') tool.name = fc.name;
  return tool;
}

function callOf(part: Record<string, unknown>): Record<string, unknown> | undefined {
  const fc = part.functionCall;
  return typeof fc === 'object' && fc !== null && !Array.isArray(fc) ? (fc as Record<string, unknown>) : undefined;
}

/** The Gemini adapter for a non-streamed `:generateContent` body, and for `alt=sse` events. */
export const gemini: StreamAdapter = {
  id: 'gemini',
  deltas(_event, data) {
    const out: DeltaField[] = [];
    for (const { part, path, candidate } of partsOf(data)) {
      if (typeof part.text === 'string') out.push({ key: `${candidate}${part.thought === true ? 'thought' : 'text'}`, path: [...path, 'text'], json: false });
      const fc = callOf(part);
      if (fc === undefined || !Array.isArray(fc.partialArgs)) continue;
      // Vertex streamed arguments: each string argument arrives in pieces keyed by its JSON path, across
      // events. No piece shows the whole call, so none is restored into under a guarding sink.
      fc.partialArgs.forEach((a: Record<string, unknown> | null, k) => {
        if (typeof a?.stringValue !== 'string') return;
        out.push({ key: `${candidate}call/${String(a.jsonPath)}`, path: [...path, 'functionCall', 'partialArgs', k, 'stringValue'], json: false, tool: toolOf(fc), withhold: PARTIAL_CALL });
      });
    }
    return out;
  },
  calls(event, data) {
    const out: ToolCallSite[] = [];
    for (const { part, path } of partsOf(data)) {
      const fc = callOf(part);
      if (fc === undefined) continue;
      if ('args' in fc) out.push({ path: [...path, 'functionCall', 'args'], kind: 'json', tool: toolOf(fc) });
      if (!Array.isArray(fc.partialArgs)) continue;
      // An argument's path is a part of the call too (a key the client builds the arguments with). In a
      // whole body (no delta streams) its pieces are parts here as well.
      fc.partialArgs.forEach((a: Record<string, unknown> | null, k) => {
        const at = [...path, 'functionCall', 'partialArgs', k];
        if (typeof a?.jsonPath === 'string') out.push({ path: [...at, 'jsonPath'], kind: 'text', tool: toolOf(fc), withhold: PARTIAL_CALL });
        if (event === BODY && typeof a?.stringValue === 'string') out.push({ path: [...at, 'stringValue'], kind: 'text', tool: toolOf(fc), withhold: PARTIAL_CALL });
      });
    }
    return out;
  },
  callHints: ['"functionCall"'],
  fails: (_event, data) => data?.error !== undefined,
  ends(_event, data) {
    if (data === undefined) return undefined;
    // An error object (mid-stream or as the body) and a blocked prompt end everything.
    if (data.error !== undefined || (data.promptFeedback as Record<string, unknown> | undefined)?.blockReason !== undefined) return ALL_KEYS;
    // A candidate ends at its finishReason. An event with a function call ends its candidate's text
    // streams too: held text leaves in this event, never in a copy of it sent later (that would repeat the call).
    // A call whose arguments stream on (`willContinue`) keeps its argument streams open.
    const done = new Set<string>();
    const textDone = new Set<string>();
    const candidates = Array.isArray(data.candidates) ? data.candidates : [];
    candidates.forEach((c: Record<string, unknown> | null, ci) => {
      if (typeof c?.finishReason === 'string') done.add(`${String(c.index ?? ci)}/`);
    });
    for (const { part, candidate } of partsOf(data)) {
      const fc = callOf(part);
      if (fc !== undefined) (fc.willContinue === true ? textDone : done).add(candidate);
    }
    if (done.size === 0 && textDone.size === 0) return undefined;
    return (k) => {
      const c = k.slice(0, k.indexOf('/') + 1);
      return done.has(c) || (textDone.has(c) && !k.startsWith(`${c}call/`));
    };
  },
};

/** `:streamGenerateContent` without `alt=sse`: a JSON response is a streamed array of GenerateContentResponse objects. */
export const geminiStream: StreamAdapter = { ...gemini, jsonArrayStream: true };
