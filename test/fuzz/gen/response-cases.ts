// Response generator classes: the three wire formats, generic SSE, JSON and text bodies, each over
// random delta splits and chunkings (whole, by event, random sizes, byte by byte), plus one class per
// lexer-hostile feature so a failure names what broke.

import { gzipSync } from 'node:zlib';
import type { ResponseCase } from '../harness/response-case.ts';
import type { PlaceholderMap } from '../oracle/placeholder-map.ts';
import type { Rng } from '../rng.ts';
import { PLAIN_STYLE, writeJson } from './json-writer.ts';
import { PROVIDER_ESCAPES, responseProse, toolArguments, type ArgsOptions, type ContentOptions } from './response-content.ts';
import { doc, genericEvents, longStringDoc, type GenericOptions } from './response-generic.ts';
import { geminiArrayBody, geminiChunks, geminiSseBody, ndjsonBody, ollamaLines } from './response-gemini-ollama.ts';
import { anthropicEvents, chatEvents, formatJson, PLAIN_SSE, responsesEvents, serializeSse, splitter, toNode, type Block, type SseStyle, type WireOptions } from './response-wire.ts';
import { drawValues } from './values.ts';

/** A response case generator: the map gives the placeholders the proxy will restore (its key is fixed). */
export type ResponseGen = (rng: Rng, map: (values: string[]) => PlaceholderMap) => ResponseCase;

type Format = 'anthropic' | 'chat' | 'responses';
const ROUTES: Record<Format, string> = { anthropic: '/anthropic/v1/messages', chat: '/openai/v1/chat/completions', responses: '/openai/v1/responses' };

export interface Knobs {
  content: ContentOptions;
  args: ArgsOptions;
  wire: Omit<WireOptions, 'split'>;
  sse: SseStyle;
  /** Delta pieces: at most this many code points (code units when `units`). */
  pieceMax: number;
  units: boolean;
}

/** The base classes' settings: nothing a listed bug needs, so failures point at one feature class. */
export function defaultKnobs(rng: Rng): Knobs {
  return {
    content: { hostile: false, astral: true, breaks: 'any', decoys: true },
    args: { nestedJson: 0, keys: false, style: PLAIN_STYLE },
    wire: { extras: false, finishCarries: false },
    sse: PLAIN_SSE,
    pieceMax: rng.pick([1, 3, 8, 30]),
    units: false,
  };
}

function blocksFor(rng: Rng, map: PlaceholderMap, format: Format, k: Knobs): Block[] {
  const kinds: Array<Block['kind']> = format === 'responses' ? ['text', 'thinking', 'tool', 'custom'] : ['text', 'thinking', 'tool'];
  const n = rng.int(1, 3);
  const out: Block[] = [];
  for (let i = 0; i < n; i++) {
    const kind = rng.pick(kinds);
    if (kind === 'tool') out.push({ kind, name: 'run', args: toolArguments(rng, map, k.args, k.content) });
    else if (kind === 'custom') out.push({ kind, name: 'apply_patch', input: `*** Begin Patch\n${responseProse(rng, map, { ...k.content, tool: true })}\n*** End Patch` });
    // Now and then a long text (tens of kilobytes) to stress carries and look-backs.
    else out.push({ kind, text: responseProse(rng, map, k.content, rng.chance(0.04) ? rng.int(20_000, 80_000) : 0) });
  }
  return out;
}

/** At most about this many chunks per response: tiny chunks over a megabyte cost the mock seconds. */
const MAX_CHUNKS = 2000;

/** Cut sizes for `length` bytes. */
function cuts(rng: Rng, length: number, kind: 'any' | 'tiny-first'): number[] {
  const how = rng.weighted<'whole' | 'small' | 'medium' | 'large' | 'bytes'>([[1, 'whole'], [2, 'small'], [2, 'medium'], [1, 'large'], [1, 'bytes']]);
  const out: number[] = [];
  let pos = 0;
  if (kind === 'tiny-first') {
    const first = rng.int(1, 16);
    out.push(first);
    pos = first;
  }
  if (how === 'whole' && kind === 'any') return out;
  const wanted = how === 'small' ? 7 : how === 'medium' ? 64 : how === 'large' ? 1024 : length <= 6000 ? 1 : 3;
  const max = Math.max(wanted, Math.ceil((2 * length) / MAX_CHUNKS));
  while (pos < length) {
    const n = Math.min(rng.int(1, max), length - pos);
    out.push(n);
    pos += n;
  }
  return out;
}

interface Built {
  format: ResponseCase['format'];
  shape: ResponseCase['shape'];
  route: string;
  contentType: string | undefined;
  body: string;
  crStays?: boolean;
}

function finish(rng: Rng, values: string[], b: Built, opts: { gzip?: boolean; cut?: 'any' | 'tiny-first' } = {}): ResponseCase {
  const raw = Buffer.from(b.body, 'utf8');
  const wire = opts.gzip === true ? gzipSync(raw) : raw;
  return { values, ...b, wire, gzip: opts.gzip === true, cuts: cuts(rng, wire.length, opts.cut ?? 'any'), crStays: b.crStays ?? false };
}

function sseType(rng: Rng): string {
  return rng.pick(['text/event-stream', 'text/event-stream; charset=utf-8', 'text/event-stream;charset=UTF-8']);
}

/** A streamed turn in `format` with the given knobs. */
function streamed(rng: Rng, mapOf: (v: string[]) => PlaceholderMap, format: Format, tune: (k: Knobs) => void = () => {}): { values: string[]; built: Built } {
  const values = drawValues(rng, rng.int(1, 3));
  const map = mapOf(values);
  const k = defaultKnobs(rng);
  tune(k);
  const blocks = blocksFor(rng, map, format, k);
  const o: WireOptions = { ...k.wire, split: splitter(rng, k.pieceMax, k.units) };
  const events = format === 'anthropic' ? anthropicEvents(blocks, o) : format === 'chat' ? chatEvents(blocks, o) : responsesEvents(blocks, o);
  return { values, built: { format, shape: 'sse', route: ROUTES[format], contentType: sseType(rng), body: serializeSse(rng, events, k.sse) } };
}

function sseClass(format: Format | 'any', tune?: (k: Knobs, rng: Rng) => void, opts: { gzip?: boolean } = {}): ResponseGen {
  return (rng, mapOf) => {
    const f = format === 'any' ? rng.pick(['anthropic', 'chat', 'responses'] as const) : format;
    const { values, built } = streamed(rng, mapOf, f, tune === undefined ? undefined : (k) => tune(k, rng));
    return finish(rng, values, built, opts);
  };
}

/** Anthropic Messages SSE. */
export const anthropicSse = sseClass('anthropic');
/** Chat Completions SSE. */
export const chatSse = sseClass('chat');
/** Responses SSE with every done and completed copy. */
export const responsesSse = sseClass('responses');
/** Events with big integers and escaped strings next to the placeholders, `, `/`: ` spacing. */
export const sseRawBytes = sseClass('any', (k) => {
  k.wire.extras = true;
  k.sse = { ...k.sse, style: PROVIDER_ESCAPES, spacing: 'python', noSpace: 0.3 };
});
/** JSON data spread over several `data:` lines. */
export const sseMultiline = sseClass('any', (k) => {
  k.sse = { ...k.sse, multiline: true };
});
/** CRLF and bare-CR line ends, comments, `id:` and `retry:` lines. */
export const sseLineEndings = sseClass('any', (k, rng) => {
  k.sse = { ...k.sse, eol: rng.pick(['\r\n', '\r'] as const), comments: 0.3 };
});
/** Deltas cut between the halves of surrogate pairs. */
export const surrogateSplit = sseClass('any', (k) => {
  k.units = true;
  k.content.astral = true;
});
/** Chat: the chunk that carries finish_reason also carries the last piece of text. */
export const chatFinishSplit = sseClass('chat', (k) => {
  k.wire.finishCarries = true;
});
/** Prose that opens with `[` or `{` and quotes its placeholders: Responses deltas and done copies, and JSON bodies. */
export const proseBrackets: ResponseGen = (rng, mapOf) => {
  if (rng.chance(0.5)) return sseClass(rng.pick(['responses', 'anthropic', 'chat'] as const), (k) => {
    k.content.hostile = true;
  })(rng, mapOf);
  const values = drawValues(rng, rng.int(1, 3), { plainShare: 0 });
  const content = { ...defaultKnobs(rng).content, hostile: true };
  const body = writeJson(rng, doc(rng, mapOf(values), content, { keys: false, nest: 0, textData: false, bigInts: false }), { styles: [PLAIN_STYLE], spacing: 'compact' });
  return finish(rng, values, { format: 'generic', shape: 'json', route: '/openai/v1/files/file-1/content', contentType: 'application/json', body });
};
/** Tool arguments whose strings hold JSON text (1-3 levels), e.g. a `content` field with `{"key":"<ph>"}`. */
export const toolArgsNestedJson = sseClass('any', (k, rng) => {
  k.args.nestedJson = rng.int(1, 3);
});
/** Placeholders used as JSON keys in tool arguments. */
export const toolArgsKeys = sseClass('any', (k) => {
  k.args.keys = true;
});
/** gzip-compressed SSE or JSON, cut into random chunks. */
export const responseGzip: ResponseGen = (rng, mapOf) => {
  if (rng.chance(0.6)) return sseClass('any', undefined, { gzip: true })(rng, mapOf);
  const c = jsonBody(rng, mapOf);
  const wire = gzipSync(Buffer.from(c.body, 'utf8'));
  return { ...c, wire, gzip: true, cuts: cuts(rng, wire.length, 'any') };
};

function genericSse(textData: boolean, keys: boolean): ResponseGen {
  return (rng, mapOf) => {
    const values = drawValues(rng, rng.int(1, 3));
    const map = mapOf(values);
    const k = defaultKnobs(rng);
    const o: GenericOptions = { keys, nest: keys ? 0 : rng.int(0, 1), textData, bigInts: false };
    const body = serializeSse(rng, genericEvents(rng, map, k.content, o), { ...PLAIN_SSE, comments: 0.2 });
    return finish(rng, values, { format: 'generic', shape: 'sse', route: rng.pick(['/openai/v1/threads/runs', '/anthropic/v1/events']), contentType: sseType(rng), body, crStays: textData });
  };
}

/** Generic SSE with JSON data (placeholders in strings, one level of nested JSON text). */
export const genericSseJson = genericSse(false, false);
/** Generic SSE with plain-text data. */
export const genericSseText = genericSse(true, false);
/** Generic SSE whose JSON data uses placeholders as keys. */
export const genericSseKeys = genericSse(false, true);

/** Non-streamed JSON: the three formats' bodies and generic documents with nested JSON text and keys. */
export const jsonBody: ResponseGen = (rng, mapOf) => {
  const values = drawValues(rng, rng.int(1, 3));
  const map = mapOf(values);
  const k = defaultKnobs(rng);
  k.args.nestedJson = rng.int(0, 2);
  let body: string;
  let route: string;
  if (rng.chance(0.5)) {
    const f = rng.pick(['anthropic', 'chat', 'responses'] as const);
    body = writeJson(rng, toNode(formatJson(f, blocksFor(rng, map, f, k))), { styles: [PLAIN_STYLE], spacing: 'compact' });
    route = ROUTES[f];
  } else {
    body = writeJson(rng, doc(rng, map, k.content, { keys: rng.chance(0.5), nest: rng.int(0, 3), textData: false, bigInts: true }), { styles: [PLAIN_STYLE], spacing: rng.pick(['compact', 'python', 'random'] as const) });
    route = '/openai/v1/files/file-1/content';
  }
  return finish(rng, values, { format: 'generic', shape: 'json', route, contentType: rng.pick(['application/json', 'application/json; charset=utf-8']), body });
};

/** JSON with a string longer than 1 MiB before a placeholder in it. */
export const jsonLongString: ResponseGen = (rng, mapOf) => {
  const values = drawValues(rng, 1);
  const body = writeJson(rng, longStringDoc(rng, mapOf(values), rng.int(1024 * 1024 + 1, 1024 * 1024 + 64 * 1024)), { styles: [PLAIN_STYLE], spacing: 'compact' });
  return finish(rng, values, { format: 'generic', shape: 'json', route: '/openai/v1/files/file-1/content', contentType: 'application/json', body });
};

/** Plain-text bodies (never JSON): values restored raw. */
export const textBody: ResponseGen = (rng, mapOf) => {
  const values = drawValues(rng, rng.int(1, 3));
  const body = responseProse(rng, mapOf(values), defaultKnobs(rng).content);
  return finish(rng, values, { format: 'generic', shape: 'text', route: '/openai/v1/files/file-1/content', contentType: rng.pick(['text/plain', 'text/plain; charset=utf-8', 'text/markdown']), body });
};

/** JSON sent as text/plain: restored values must keep it valid JSON. */
export const jsonAsText: ResponseGen = (rng, mapOf) => {
  const c = jsonBody(rng, mapOf);
  return { ...c, shape: 'text', contentType: 'text/plain' };
};

/** No content-type at all, and a first chunk of 1-16 bytes: the body kind must not be guessed from it. */
export const noContentType: ResponseGen = (rng, mapOf) => {
  const pick = rng.int(0, 2);
  const c = pick === 0 ? sseClass('any')(rng, mapOf) : pick === 1 ? jsonBody(rng, mapOf) : textBody(rng, mapOf);
  return { ...c, contentType: undefined, cuts: cuts(rng, c.wire.length, 'tiny-first') };
};

/** A turn for Gemini or Ollama: text, thinking and tool blocks as the other formats draw them. */
function turn(rng: Rng, mapOf: (v: string[]) => PlaceholderMap, tune: (k: Knobs) => void): { values: string[]; blocks: Block[]; split: (s: string) => string[]; k: Knobs } {
  const values = drawValues(rng, rng.int(1, 3));
  const map = mapOf(values);
  const k = defaultKnobs(rng);
  tune(k);
  return { values, blocks: blocksFor(rng, map, 'anthropic', k), split: splitter(rng, k.pieceMax, k.units), k };
}

/** Gemini `:streamGenerateContent?alt=sse`: whole GenerateContentResponse objects as `data:` events. */
export const geminiSse: ResponseGen = (rng, mapOf) => {
  const { values, blocks, split, k } = turn(rng, mapOf, (k) => {
    k.args.nestedJson = rng.int(0, 2);
    k.content.hostile = rng.chance(0.3);
  });
  const body = geminiSseBody(rng, geminiChunks(rng, blocks, split), { ...k.sse, eol: rng.pick(['\n', '\r\n'] as const) });
  return finish(rng, values, { format: 'gemini', shape: 'sse', route: '/gemini/v1beta/models/gemini-x:streamGenerateContent?alt=sse', contentType: sseType(rng), body });
};

/** Gemini `:streamGenerateContent` without alt=sse: a streamed JSON array of the same objects. */
export const geminiArray: ResponseGen = (rng, mapOf) => {
  const { values, blocks, split } = turn(rng, mapOf, (k) => {
    k.args.nestedJson = rng.int(0, 2);
    k.content.hostile = rng.chance(0.3);
  });
  const body = geminiArrayBody(rng, geminiChunks(rng, blocks, split));
  return finish(rng, values, { format: 'gemini', shape: 'json-array', route: '/gemini/v1beta/models/gemini-x:streamGenerateContent', contentType: rng.pick(['application/json; charset=UTF-8', 'application/json']), body });
};

/** Ollama `/api/chat` and `/api/generate` NDJSON streams. */
export const ollamaNdjson: ResponseGen = (rng, mapOf) => {
  const { values, blocks, split } = turn(rng, mapOf, (k) => {
    k.args.nestedJson = rng.int(0, 2);
    k.content.hostile = rng.chance(0.3);
  });
  const endpoint = rng.pick(['chat', 'generate'] as const);
  const body = ndjsonBody(rng, ollamaLines(blocks, split, endpoint));
  return finish(rng, values, { format: 'ollama', shape: 'ndjson', route: `/ollama/api/${endpoint}`, contentType: 'application/x-ndjson', body });
};
