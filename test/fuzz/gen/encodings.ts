// Encoders for the request surfaces: percent-encoding variants (upper or lower hex, `+` for space,
// every byte, a random mix), content-encodings (gzip, x-gzip, zlib and raw deflate, br, zstd when this
// Node has it), and multipart bodies with typed parts.

import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import * as zlib from 'node:zlib';
import type { Rng } from '../rng.ts';

export type PercentMode = 'component' | 'lower' | 'all' | 'form' | 'mixed';

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** Percent-encodes `s` (UTF-8) the way `mode` says. */
export function percentEncode(rng: Rng, s: string, mode: PercentMode): string {
  const byte = (b: number, lower: boolean): string => {
    const h = b.toString(16).padStart(2, '0');
    return `%${lower ? h : h.toUpperCase()}`;
  };
  switch (mode) {
    case 'component':
      return encodeURIComponent(s);
    case 'lower':
      return encodeURIComponent(s).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
    case 'form':
      return encodeURIComponent(s).replace(/%20/g, '+');
    case 'all':
      return [...Buffer.from(s, 'utf8')].map((b) => byte(b, false)).join('');
    case 'mixed': {
      let out = '';
      for (const ch of s) {
        if (UNRESERVED.test(ch) && !rng.chance(0.3)) out += ch;
        else if (ch === ' ' && rng.chance(0.5)) out += '+';
        else for (const b of Buffer.from(ch, 'utf8')) out += byte(b, rng.chance(0.5));
      }
      return out;
    }
  }
}

const hasZstd = typeof (zlib as { zstdCompressSync?: unknown }).zstdCompressSync === 'function';

/** Codings a client may apply; `known` are those ficta documents as supported. */
export const KNOWN_CODINGS = ['gzip', 'x-gzip', 'deflate', 'deflate-raw', 'br'] as const;

/** Applies `coding` to `body`; `deflate-raw` is sent as "deflate" without the zlib wrapper. */
export function compress(body: Buffer, coding: string): Buffer {
  switch (coding.toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return gzipSync(body);
    case 'deflate':
      return deflateSync(body);
    case 'deflate-raw':
      return deflateRawSync(body);
    case 'br':
      return brotliCompressSync(body);
    case 'zstd':
      return hasZstd ? (zlib as unknown as { zstdCompressSync(b: Buffer): Buffer }).zstdCompressSync(body) : body;
    default:
      return body;
  }
}

/** The header token for a coding (`deflate-raw` travels as `deflate`), in a random letter case. */
export function codingToken(rng: Rng, coding: string): string {
  const name = coding === 'deflate-raw' ? 'deflate' : coding;
  return rng.chance(0.2) ? name.toUpperCase() : name;
}

export interface Part {
  /** Header lines of the part (without the trailing blank line). */
  headers: string[];
  body: Buffer;
}

/** A multipart/form-data body with `boundary`. */
export function multipart(boundary: string, parts: readonly Part[], crlf = true): Buffer {
  const nl = crlf ? '\r\n' : '\n';
  const out: Buffer[] = [];
  for (const p of parts) {
    out.push(Buffer.from(`--${boundary}${nl}${p.headers.join(nl)}${nl}${nl}`, 'utf8'), p.body, Buffer.from(nl, 'utf8'));
  }
  out.push(Buffer.from(`--${boundary}--${nl}`, 'utf8'));
  return Buffer.concat(out);
}
