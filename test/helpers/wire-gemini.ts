// Writers for the Gemini API wire format (ai.google.dev/api/generate-content): whole
// GenerateContentResponse objects, SSE of whole objects (`?alt=sse`: `data: {…}` events separated by CRLF
// CRLF, no [DONE]) and the streamed JSON array without it (`[{…}` `,\r\n{…}` … `]`), text split into small
// parts as the API streams it; function calls arrive whole with their structured `args`.

import { pieces, type Reply } from './wire.ts';

/** What a Gemini request carries, read the way the model would. */
export function geminiUserText(json: any): string {
  const contents: any[] = Array.isArray(json?.contents) ? json.contents : [];
  for (let i = contents.length - 1; i >= 0; i--) {
    const c = contents[i];
    if (c?.role !== undefined && c.role !== 'user' && c.role !== 'function') continue;
    const parts: any[] = Array.isArray(c?.parts) ? c.parts : [];
    const texts = parts.map((p) => (typeof p?.text === 'string' ? p.text : p?.functionResponse !== undefined ? JSON.stringify(p.functionResponse.response) : ''));
    const joined = texts.join('');
    if (joined !== '') return joined;
  }
  return '';
}

/** The first function a Gemini request declares, if any. */
export function geminiFirstFunction(json: any): string | undefined {
  for (const tool of Array.isArray(json?.tools) ? json.tools : []) {
    const decl = tool?.functionDeclarations?.[0];
    if (typeof decl?.name === 'string') return decl.name;
  }
  return undefined;
}

const USAGE = { promptTokenCount: 11, candidatesTokenCount: 9, totalTokenCount: 20 };

function chunkObject(parts: unknown[], finish: string | undefined, model: string, last: boolean): Record<string, unknown> {
  const candidate: Record<string, unknown> = { content: { parts, role: 'model' }, index: 0 };
  if (finish !== undefined) candidate.finishReason = finish;
  return { candidates: [candidate], ...(last ? { usageMetadata: USAGE } : {}), modelVersion: model, responseId: 'mock-resp-1' };
}

/** The streamed pieces of a reply: thought parts, text parts, then a whole function call. */
function geminiChunks(r: Reply, model: string): Array<Record<string, unknown>> {
  const size = r.pieceSize ?? 3;
  const out: Array<Record<string, unknown>> = [];
  if (r.thinking !== undefined) for (const p of pieces(r.thinking, size)) out.push(chunkObject([{ text: p, thought: true }], undefined, model, false));
  if (r.text !== undefined) for (const p of pieces(r.text, size)) out.push(chunkObject([{ text: p }], undefined, model, false));
  if (r.tool !== undefined) out.push(chunkObject([{ functionCall: { name: r.tool.name, args: r.tool.input }, thoughtSignature: 'c2lnbmF0dXJlLW9wYXF1ZQ==' }], undefined, model, false));
  out.push(chunkObject([{ text: '' }], 'STOP', model, true));
  return out;
}

/** A whole `:generateContent` response. */
export function geminiJson(r: Reply, model = 'gemini-x'): unknown {
  const parts: unknown[] = [];
  if (r.thinking !== undefined) parts.push({ text: r.thinking, thought: true });
  if (r.text !== undefined) parts.push({ text: r.text });
  if (r.tool !== undefined) parts.push({ functionCall: { name: r.tool.name, args: r.tool.input }, thoughtSignature: 'c2lnbmF0dXJlLW9wYXF1ZQ==' });
  return chunkObject(parts, 'STOP', model, true);
}

/** `:streamGenerateContent?alt=sse`: one `data:` event per whole response object. */
export function geminiSse(r: Reply, model = 'gemini-x'): string {
  return geminiChunks(r, model)
    .map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`)
    .join('');
}

/** `:streamGenerateContent` without alt=sse: a JSON array whose elements arrive one by one. */
export function geminiJsonArray(r: Reply, model = 'gemini-x'): string {
  return `[${geminiChunks(r, model)
    .map((c) => JSON.stringify(c, null, 2))
    .join(',\r\n')}]`;
}
