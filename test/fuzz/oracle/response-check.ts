// The response-side oracle: the client must get exactly what the provider sent with every placeholder
// restored — compared by meaning (each streamed text and tool-argument stream concatenated, each whole
// string decoded, each restored value decoding at the depth the document puts it) and by bytes (every
// event without a placeholder unchanged, and outside the restored values every token, number, escape
// and blank as sent) — and valid JSON wherever the provider's was valid.

import { alignRegions, type AlignToken } from './align.ts';
import { unescapeDepth, unescapeStrict } from './decode.ts';
import { isJsonText, lexJson, type JsonToken } from './json-lexer.ts';
import { occurrenceDepths } from './placeholder-depth.ts';
import type { PlaceholderMap } from './placeholder-map.ts';
import { parseSseBlocks, type SseBlock } from './sse.ts';
import { deltaFields, samePath, type DeltaField, type WireFormat } from './wire-fields.ts';

export type BodyShape = 'sse' | 'json' | 'text';

/** `s` escaped `depth` times the way JSON.stringify does (the restorer's natural output). */
function escapeDepth(s: string, depth: number): string {
  let out = s;
  for (let d = 0; d < depth; d++) out = JSON.stringify(out).slice(1, -1);
  return out;
}

/**
 * `client` must equal `upstream` with each placeholder occurrence replaced by text that decodes, at the
 * occurrence's depth, to its value. `stays(value, depth)`: that placeholder must stay as it is instead
 * (a value its place cannot carry exactly).
 */
export function restoredAlign(map: PlaceholderMap, upstream: string, client: string, depths: readonly number[], stays?: Stays): string | undefined {
  const occ = map.find(upstream);
  const tokens: AlignToken[] = occ.map((o, k) => {
    const depth = depths[k] ?? 0;
    if (stays?.(o.value, depth) === true) return { start: o.start, end: o.end, canonical: o.placeholder, accept: (region: string) => region === o.placeholder };
    const canonical = escapeDepth(o.value, depth);
    return {
      start: o.start,
      end: o.end,
      canonical,
      accept: (region: string) => unescapeDepth(region, depth) === o.value,
    };
  });
  const longest = tokens.reduce((n, t) => Math.max(n, (t.canonical ?? '').length), 0);
  const r = alignRegions(upstream, client, tokens, Math.max(256, longest * 6));
  return r.ok ? undefined : `${r.reason} (upstream offset ${r.tokenOffset}, client offset ${r.regionOffset})`;
}

/** Whether a placeholder of `value` at string depth `depth` must stay unrestored. */
export type Stays = (value: string, depth: number) => boolean;

/** Compares one string token pair: decoded meaning, then raw bytes. */
function compareString(map: PlaceholderMap, uText: string, u: JsonToken, cText: string, c: JsonToken, where: string, problems: string[]): void {
  const uRaw = uText.slice(u.start + 1, u.end - 1);
  const cRaw = cText.slice(c.start + 1, c.end - 1);
  if (uRaw === cRaw && !uRaw.includes('~')) return;
  const uDec = unescapeStrict(uRaw) as string;
  const cDec = unescapeStrict(cRaw);
  if (cDec === undefined) {
    problems.push(`${where}: client string is not valid JSON string content`);
    return;
  }
  // Key content is never JSON text (its depth is the key's own); a value's content is read by the prefix rule.
  const depths = occurrenceDepths(uDec, map, u.isKey ? 'plain' : 'prefix');
  const meaning = restoredAlign(map, uDec, cDec, depths);
  if (meaning !== undefined) problems.push(`${where}: wrong restore: ${meaning}`);
  else if (isJsonText(uDec) && !isJsonText(cDec)) problems.push(`${where}: JSON text in the string became invalid`);
  const bytes = restoredAlign(map, uRaw, cRaw, depths.map((d) => d + 1));
  if (meaning === undefined && bytes !== undefined) problems.push(`${where}: bytes changed outside the restored values: ${bytes}`);
}

/** Token structure with string contents abstracted: equal skeletons differ only inside strings. */
function skeleton(text: string, tokens: readonly JsonToken[]): string {
  const parts: string[] = [];
  let pos = 0;
  for (const t of tokens) {
    parts.push(text.slice(pos, t.start), t.kind === 'string' ? 'S' : text.slice(t.start, t.end));
    pos = t.end;
  }
  parts.push(text.slice(pos));
  return parts.join('');
}

/** Checks a JSON body (or JSON text sent as text/plain). */
export function checkJsonDocument(map: PlaceholderMap, upstream: string, client: string, where: string, problems: string[]): void {
  const u = lexJson(upstream);
  const c = lexJson(client);
  if (!u.ok) throw new Error(`fuzz: generated ${where} is not valid JSON`);
  if (!c.ok) {
    problems.push(`${where}: valid JSON became invalid (client offset ${c.at})`);
    return;
  }
  if (skeleton(upstream, u.tokens) !== skeleton(client, c.tokens)) {
    problems.push(`${where}: bytes outside strings changed (numbers, escapes, blanks or structure)`);
    return;
  }
  u.tokens.forEach((t, i) => {
    if (t.kind === 'string') compareString(map, upstream, t, client, c.tokens[i] as JsonToken, `${where} string at ${JSON.stringify(t.path)}`, problems);
  });
}

interface Analysed {
  block: SseBlock;
  tokens: JsonToken[] | undefined;
  deltas: DeltaField[];
  skeleton: string;
}

function analyse(format: WireFormat, block: SseBlock): Analysed {
  const head = `${block.name}|${block.otherLines.join('\u0000')}|${block.eol}|`;
  if (block.data === undefined) return { block, tokens: undefined, deltas: [], skeleton: `raw|${block.raw}` };
  const lexed = lexJson(block.data);
  if (!lexed.ok) return { block, tokens: undefined, deltas: [], skeleton: `${head}text` };
  return { block, tokens: lexed.tokens, deltas: deltaFields(format, JSON.parse(block.data)), skeleton: `${head}${block.dataSpaces}|${skeleton(block.data, lexed.tokens)}` };
}

interface Stream {
  /** Tool arguments (JSON text by the wire format): they must stay valid JSON when they were. */
  reading: 'plain' | 'json';
  uDec: string[];
  uRaw: string[];
  cDec: string[];
  cRaw: string[];
}

function collectDeltas(a: Analysed, side: 'u' | 'c', streams: Map<string, Stream>): void {
  if (a.tokens === undefined || a.block.data === undefined) return;
  for (const f of a.deltas) {
    const tok = a.tokens.find((t) => t.kind === 'string' && !t.isKey && samePath(t.path, f.path));
    if (tok === undefined) continue;
    const raw = a.block.data.slice(tok.start + 1, tok.end - 1);
    const s = streams.get(f.key) ?? { reading: f.reading, uDec: [], uRaw: [], cDec: [], cRaw: [] };
    (side === 'u' ? s.uRaw : s.cRaw).push(raw);
    (side === 'u' ? s.uDec : s.cDec).push(unescapeStrict(raw) ?? '');
    streams.set(f.key, s);
  }
}

/**
 * A plain-text event's raw bytes: only the placeholders may change, into the value at its depth,
 * spread over `data:` lines where it holds LF (SSE joins them with LF), read as an SSE client reads a
 * line: one space after `data:` dropped. Placeholders that must stay, stay.
 */
function textEventBytes(map: PlaceholderMap, u: string, c: string, depths: readonly number[], stays: Stays): string | undefined {
  const tokens: AlignToken[] = map.find(u).map((o, k) => {
    const depth = depths[k] ?? 0;
    if (stays(o.value, depth)) return { start: o.start, end: o.end, canonical: o.placeholder, accept: (region: string) => region === o.placeholder };
    // Right after `data:` written without its space, a reader drops a space the region starts with.
    const lineStart = /(^|[\r\n])data:$/.test(u.slice(Math.max(0, o.start - 6), o.start));
    return {
      start: o.start,
      end: o.end,
      canonical: escapeDepth(o.value, depth),
      accept: (region: string) => {
        const read = region.replace(/(\r\n|\r|\n)data: ?/g, '\n');
        return unescapeDepth(lineStart && read.startsWith(' ') ? read.slice(1) : read, depth) === o.value;
      },
    };
  });
  const r = alignRegions(u, c, tokens, 4096);
  return r.ok ? undefined : `${r.reason} (upstream offset ${r.tokenOffset}, client offset ${r.regionOffset})`;
}

/**
 * Checks an SSE response in `format`. `stays(value, depth)`: a placeholder of that value must stay in
 * non-JSON data (its place cannot carry the value exactly).
 */
export function checkSse(map: PlaceholderMap, format: WireFormat, upstream: string, client: string, stays: Stays): string[] {
  const problems: string[] = [];
  const U = parseSseBlocks(upstream).map((b) => analyse(format, b));
  const C = parseSseBlocks(client).map((b) => analyse(format, b));
  const streams = new Map<string, Stream>();
  for (const a of U) collectDeltas(a, 'u', streams);
  for (const a of C) collectDeltas(a, 'c', streams);

  // 1. Every stream, concatenated: by meaning, then by bytes, then JSON validity.
  for (const [key, s] of streams) {
    const uDec = s.uDec.join('');
    const cDec = s.cDec.join('');
    // Every stream is string content read by the prefix rule, tool arguments and text alike.
    const depths = occurrenceDepths(uDec, map, 'prefix');
    const meaning = restoredAlign(map, uDec, cDec, depths);
    if (meaning !== undefined) problems.push(`stream ${key}: concatenated deltas are not the original with values restored: ${meaning}`);
    else {
      const bytes = restoredAlign(map, s.uRaw.join(''), s.cRaw.join(''), depths.map((d) => d + 1));
      if (bytes !== undefined) problems.push(`stream ${key}: delta bytes changed outside the restored values: ${bytes}`);
    }
    if (s.reading === 'json' && isJsonText(uDec) && !isJsonText(cDec)) problems.push(`stream ${key}: the arguments are no longer valid JSON`);
  }

  // 2. Events in order: same framing and structure; untouched events byte-identical; strings restored.
  const deltaSkeletons = new Set(U.filter((a) => a.deltas.length > 0).map((a) => a.skeleton));
  let i = 0;
  for (let j = 0; j < U.length; j++) {
    const u = U[j] as Analysed;
    let c = C[i];
    while (c !== undefined && c.skeleton !== u.skeleton && c.deltas.length > 0 && deltaSkeletons.has(c.skeleton)) c = C[++i];
    if (c === undefined) {
      problems.push(`event #${j} (${u.block.name}) is missing from the client stream`);
      break;
    }
    i++;
    if (c.skeleton !== u.skeleton) {
      const why = c.tokens === undefined && u.tokens !== undefined && c.block.data !== undefined ? 'its JSON data is no longer valid JSON' : 'its framing, numbers, escapes or blanks changed';
      problems.push(`event #${j} (${u.block.name}): ${why}`);
      continue;
    }
    if (!u.block.raw.includes('~') && u.deltas.length === 0) {
      if (c.block.raw !== u.block.raw) problems.push(`event #${j} (${u.block.name}) holds no placeholder but was changed`);
      continue;
    }
    if (u.tokens !== undefined && c.tokens !== undefined) {
      const uData = u.block.data as string;
      const cData = c.block.data as string;
      u.tokens.forEach((t, k) => {
        if (t.kind !== 'string' || (!t.isKey && u.deltas.some((f) => samePath(f.path, t.path)))) return;
        compareString(map, uData, t, cData, c.tokens?.[k] as JsonToken, `event #${j} (${u.block.name}) string at ${JSON.stringify(t.path)}`, problems);
      });
    } else if (u.block.data !== undefined && c.block.data !== undefined) {
      // Text data: JSON text only by the prefix rule, like any text.
      const depths = occurrenceDepths(u.block.data, map, 'prefix');
      const r = restoredAlign(map, u.block.data, c.block.data, depths, stays);
      if (r !== undefined) problems.push(`event #${j} (${u.block.name}) text data: ${r}`);
      else {
        // The block's placeholders are its data's, in order (none spans a line; other lines hold none).
        const raw = textEventBytes(map, u.block.raw, c.block.raw, depths, stays);
        if (raw !== undefined) problems.push(`event #${j} (${u.block.name}) bytes changed outside the restored values: ${raw}`);
      }
    }
  }
  for (; i < C.length; i++) {
    const c = C[i] as Analysed;
    if (!(c.deltas.length > 0 && deltaSkeletons.has(c.skeleton))) problems.push(`client event #${i} (${c.block.name}) has no counterpart upstream`);
  }
  return problems;
}

/** Checks a whole response body of the given shape. */
export function checkResponse(map: PlaceholderMap, format: WireFormat, shape: BodyShape, upstream: string, client: string, stays: Stays): string[] {
  if (shape === 'sse') return checkSse(map, format, upstream, client, stays);
  const problems: string[] = [];
  if (shape === 'json' || isJsonText(upstream)) checkJsonDocument(map, upstream, client, shape === 'json' ? 'JSON body' : 'JSON text sent as text', problems);
  else {
    const r = restoredAlign(map, upstream, client, occurrenceDepths(upstream, map, 'prefix'));
    if (r !== undefined) problems.push(`text body: ${r}`);
  }
  return problems;
}
