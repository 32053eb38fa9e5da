// Finds the document-like strings of an Anthropic or OpenAI request body that the configuration says to
// mark: document blocks and file inputs by default, tool results and user prompt text when opted in.

import type { WatermarkConfig } from './config.ts';
import { decodeString, getKey, tagOf, type JsonNode, type JsonString } from './json-spans.ts';

export type SurfaceKind = 'document' | 'tool_result' | 'prompt';

export interface Surface {
  kind: SurfaceKind;
  node: JsonString;
  /** `text`: the JSON string is the document; `data-url`: a base64 `data:` URL of a text file. */
  encoding: 'text' | 'data-url';
}

type Surfaces = WatermarkConfig['surfaces'];

// Textual media types whose base64 file inputs are decoded and marked.
const TEXT_MEDIA = /^data:(text\/[\w.+-]+|application\/(json|xml|x-yaml|yaml|markdown|x-sh|javascript|typescript|x-python))(;[^,;]*)*;base64,/i;
const DOCUMENT_WRAPPER = /^\s*<document[\s>]/;
const NESTED = '#nested';

/**
 * A check whose false proves a body has nothing to mark under `surfaces` (the fast path: most bodies hold
 * no document, and scanning one as JSON costs ~0.5 ms per 584 KiB). Documents need `docum` after a quote
 * (a `"document"` tag), after `<` (a `<document>` wrapper) or after `\u003c` (the same wrapper from a
 * client that escapes `<`, as Go's encoder does), or the `file_data"` key of a file input; tool results
 * `"tool` or `_output`. Each search starts with a byte that is rare in JSON text, so Buffer.indexOf skips
 * at memchr speed: 50 KiB of Messages JSON costs ~13 µs where `"docum` (a quote is on every string)
 * cost 23 µs alone.
 */
export function surfaceCheck(surfaces: Surfaces): (body: Buffer) => boolean {
  if (surfaces.promptText) return () => true;
  const tool = surfaces.toolResults ? [Buffer.from('"tool'), Buffer.from('_output')] : [];
  const documents = surfaces.documents;
  return (body) => (documents && (hasDocumentTag(body) || hasFileData(body))) || tool.some((t) => body.includes(t));
}

const DOCUM = Buffer.from('docum');
const DATA_KEY = Buffer.from('_data"');
const FILE = Buffer.from('file');
const ESCAPED_LT = [Buffer.from('\\u003c'), Buffer.from('\\u003C')];

/** `docum` right after `"`, `<` or `\u003c` (each occurrence looked at once). */
function hasDocumentTag(body: Buffer): boolean {
  for (let i = body.indexOf(DOCUM); i !== -1; i = body.indexOf(DOCUM, i + 1)) {
    const before = i > 0 ? body[i - 1] : undefined;
    if (before === QUOTE || before === LT) return true;
    if (i >= 6 && ESCAPED_LT.some((e) => body.compare(e, 0, 6, i - 6, i) === 0)) return true;
  }
  return false;
}

/** The `file_data"` key of an OpenAI file input. */
function hasFileData(body: Buffer): boolean {
  for (let i = body.indexOf(DATA_KEY); i !== -1; i = body.indexOf(DATA_KEY, i + 1)) {
    if (i >= 4 && body.compare(FILE, 0, 4, i - 4, i) === 0) return true;
  }
  return false;
}

const QUOTE = 0x22;
const LT = 0x3c;

/** Every surface in the scanned body, in body order, each string at most once. */
export function findSurfaces(buf: Buffer, root: JsonNode, surfaces: Surfaces): Surface[] {
  const found = new Map<number, Surface>();
  const add = (kind: SurfaceKind, node: JsonNode | undefined, encoding: Surface['encoding'] = 'text'): void => {
    if (node?.kind === 'string' && !found.has(node.start)) found.set(node.start, { kind, node, encoding });
  };
  const addTextParts = (kind: SurfaceKind, content: JsonNode | undefined): void => {
    if (content?.kind === 'string') add(kind, content);
    else if (content?.kind === 'array') {
      for (const part of content.items) {
        const type = tagOf(buf, getKey(part, 'type'));
        if (type === 'text' || type === 'input_text' || type === 'output_text') add(kind, getKey(part, 'text'));
      }
    }
  };

  const visit = (node: JsonNode, role: string | undefined): void => {
    if (node.kind === 'array') {
      for (const item of node.items) visit(item, role);
      return;
    }
    if (node.kind !== 'object') return;
    const type = tagOf(buf, getKey(node, 'type'));
    const ownRole = tagOf(buf, getKey(node, 'role')) ?? role;

    if (surfaces.documents) {
      if (type === 'document') {
        const source = getKey(node, 'source');
        const sourceType = tagOf(buf, getKey(source, 'type'));
        if (sourceType === 'text') add('document', getKey(source, 'data'));
        else if (sourceType === 'content') addTextParts('document', getKey(source, 'content'));
      } else if (type === 'input_file' || type === 'file') {
        const data = getKey(node, 'file_data') ?? getKey(getKey(node, 'file'), 'file_data');
        if (data?.kind === 'string' && TEXT_MEDIA.test(buf.toString('latin1', data.start + 1, Math.min(data.end, data.start + 120)))) {
          add('document', data, 'data-url');
        }
      } else if (type === 'text' || type === 'input_text') {
        const text = getKey(node, 'text');
        if (text?.kind === 'string' && DOCUMENT_WRAPPER.test(decodeHead(buf, text))) add('document', text);
      }
    }
    if (surfaces.toolResults) {
      if (type === 'tool_result') addTextParts('tool_result', getKey(node, 'content'));
      else if (type === 'function_call_output' || type === 'custom_tool_call_output') addTextParts('tool_result', getKey(node, 'output'));
      else if (ownRole === 'tool' && type === undefined) addTextParts('tool_result', getKey(node, 'content'));
    }
    if (surfaces.promptText && ownRole === 'user') {
      if (getKey(node, 'role') !== undefined) addTextParts('prompt', getKey(node, 'content'));
      else if (type === 'text' || type === 'input_text') add('prompt', getKey(node, 'text'));
    }
    // Text inside a tool result or a document is not the user's prompt, whatever the message's role.
    const nested = type === 'tool_result' || type === 'document' || type === 'search_result' || type === 'function_call_output' || type === 'custom_tool_call_output';
    for (const value of node.values) visit(value, nested ? NESTED : ownRole);
  };

  if (surfaces.promptText && root.kind === 'object') add('prompt', getKey(root, 'input'));
  visit(root, undefined);
  return [...found.values()].sort((a, b) => a.node.start - b.node.start);
}

/** The first characters of a string node, decoded (enough to see a `<document` wrapper). */
function decodeHead(buf: Buffer, node: JsonString): string {
  if (!node.escaped) return buf.toString('utf8', node.start + 1, Math.min(node.end - 1, node.start + 64));
  return decodeString(buf, node).slice(0, 64);
}
