// Compressed views of a forwarded body for the leak oracle: the codings every content-encoding line
// declares (all lines, all list items, undone in reverse), and whatever still looks compressed after
// that (gzip and zlib by their magic bytes, brotli and raw deflate by trying), to a few levels.

import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';

const LIMIT = { maxOutputLength: 64 * 1024 * 1024 };
const MAX_LEVELS = 4;

/** The codings named by every content-encoding header line, in the order they were applied. */
export function declaredCodings(lines: readonly string[]): string[] {
  return lines
    .join(',')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '' && s !== 'identity');
}

function undo(coding: string, body: Buffer): Buffer | undefined {
  try {
    if (coding === 'gzip' || coding === 'x-gzip') return gunzipSync(body, LIMIT);
    if (coding === 'br') return brotliDecompressSync(body, LIMIT);
    if (coding === 'deflate') {
      try {
        return inflateSync(body, LIMIT);
      } catch {
        return inflateRawSync(body, LIMIT);
      }
    }
  } catch {
    return undefined;
  }
  return undefined;
}

function sniffed(body: Buffer): Array<[string, Buffer]> {
  const out: Array<[string, Buffer]> = [];
  if (body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b) {
    const g = undo('gzip', body);
    if (g !== undefined) out.push(['gzip?', g]);
  }
  if (body.length >= 2 && body[0] === 0x78 && ((body[0] << 8) | (body[1] as number)) % 31 === 0) {
    const d = undo('deflate', body);
    if (d !== undefined) out.push(['deflate?', d]);
  }
  // Brotli and raw deflate have no magic bytes: try them (on bytes that are not text, they fail fast).
  if (body.length > 0 && body.length < 4 * 1024 * 1024) {
    const b = undo('br', body);
    if (b !== undefined && b.length > 0) out.push(['br?', b]);
    try {
      const r = inflateRawSync(body, LIMIT);
      if (r.length > 0) out.push(['raw-deflate?', r]);
    } catch {
      // not raw deflate
    }
  }
  return out;
}

/** Every decompressed version of `body` worth scanning (not including `body` itself). */
export function decompressedViews(body: Buffer, encodingLines: readonly string[]): Array<{ how: string; bytes: Buffer }> {
  const out: Array<{ how: string; bytes: Buffer }> = [];
  const codings = declaredCodings(encodingLines);
  let cur: Buffer | undefined = body;
  const applied: string[] = [];
  for (let i = codings.length - 1; i >= 0 && cur !== undefined; i--) {
    cur = undo(codings[i] as string, cur);
    applied.push(codings[i] as string);
    if (cur !== undefined) out.push({ how: `declared ${applied.join('>')}`, bytes: cur });
  }
  // Whatever still looks compressed, from the raw body and from each declared level.
  const queue: Array<{ how: string; bytes: Buffer; level: number }> = [{ how: 'raw', bytes: body, level: 0 }, ...out.map((o) => ({ ...o, level: 0 }))];
  for (let i = 0; i < queue.length; i++) {
    const q = queue[i] as { how: string; bytes: Buffer; level: number };
    if (q.level >= MAX_LEVELS) continue;
    for (const [name, bytes] of sniffed(q.bytes)) {
      const item = { how: `${q.how}>${name}`, bytes, level: q.level + 1 };
      out.push(item);
      queue.push(item);
    }
  }
  return out;
}
