// The response half of a proxied request: chooses how a response body is handled (passthrough, JSON or
// text restore, or stream restore over SSE, NDJSON or a streamed JSON array, watermark frames stripped
// first), decodes its content-encoding when it must be read, and writes it to the client as it
// arrives, with backpressure towards the upstream. Without a content-type, the kind is sniffed on
// enough bytes (body-sniff.ts), and the JSON lexer decides whether a body is JSON.

import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, createZstdDecompress } from 'node:zlib';
import type { StreamAdapter } from '../providers/types.ts';
import type { SecretSet } from '../redact/secret-set.ts';
import { createBodyRestorer, type ChunkTransform } from '../restore/body-restorer.ts';
import type { Framing } from '../restore/framing.ts';
import { createJsonSeqFraming } from '../restore/json-seq-frame.ts';
import { createNdjsonFraming } from '../restore/ndjson-frame.ts';
import type { RestoreStats } from '../restore/restore-bytes.ts';
import { createSseFraming } from '../restore/sse-frame.ts';
import { createGuardedBodyRestorer } from '../restore/guarded-body.ts';
import type { RestoreSink } from '../restore/restore-sink.ts';
import { createStreamRestorer } from '../restore/stream-restorer.ts';
import { createFrameStripper, createStripTransform, mayHoldFrame } from '../watermark/strip.ts';
import { sniffBody } from './body-sniff.ts';
import type { Watermarker } from '../watermark/watermarker.ts';
import { parseContentEncoding, SUPPORTED_CODINGS } from './request-body.ts';
import { clientHeaders } from './response-headers.ts';
import type { UpstreamCall } from './upstream.ts';

/** What the writer needs of the proxy's dependencies. */
export interface WriterDeps {
  limits: { maxEventBytes: number };
  watermarker?: Watermarker;
}

/** What the writer records about the response. */
export interface ResponseLog {
  id: string;
  bytesOut: number;
  restore: RestoreStats;
}

/**
 * How much may wait in the client's socket buffer before the upstream is paused. Node's http writes
 * are corked until the end of the tick, so a 50 KiB chunk always reports "full" against the 16 KiB
 * default; pausing there cost an event-loop turn before undici reported the end of the body, and the
 * end then left in a write of its own (50 KiB JSON, c16: 0.644 → 0.609 ms CPU per request).
 */
const CLIENT_BUFFER_BYTES = 1024 * 1024;

/** Writes one upstream response to the client: restores (and strips frames) when needed, with backpressure. */
export interface ResponseWriter {
  /** An upstream body chunk; false asks the upstream to pause until the client drains. */
  write(chunk: Buffer): boolean;
  /** The upstream body ended: flush what the transform holds and end the response. */
  end(): void;
  /** The upstream failed mid-body: drop whatever is pending. */
  abandon(): void;
}

/**
 * Creates the writer for one response: writes the head now, then the (restored) body as it comes.
 * `sink` decides the placeholders in tool calls (sink-aware restore); without it they are restored as text.
 */
export function createResponseWriter(
  deps: WriterDeps,
  adapter: StreamAdapter,
  status: number,
  headers: IncomingHttpHeaders,
  res: ServerResponse,
  set: SecretSet,
  log: ResponseLog,
  call: UpstreamCall,
  done: (failure?: unknown) => void,
  sink?: RestoreSink,
): ResponseWriter {
  const contentType = String(headers['content-type'] ?? '');
  const codings = parseContentEncoding(headers['content-encoding'] as string | undefined);
  const decodable = codings.every((c) => SUPPORTED_CODINGS.has(c));
  // Frames are stripped from every response while watermarking is on, so nothing to restore is not enough to pass through.
  const nothingToDo = set.inert && deps.watermarker === undefined;
  const mode = nothingToDo || !decodable ? 'passthrough' : restoreMode(contentType, adapter);

  const rewritten = mode !== 'passthrough';
  res.writeHead(status, clientHeaders(headers, rewritten, log.id));
  // The client's time to first byte is the upstream's, not ours: when no body byte came with the
  // headers (checked once the parser's current pass is over), send them on their own.
  let wroteBody = false;
  queueMicrotask(() => {
    if (!wroteBody && !res.writableEnded && !res.destroyed) res.flushHeaders();
  });

  let transform: ChunkTransform | undefined;
  let sniffed: Buffer[] | undefined = mode === 'sniff' ? [] : undefined;
  const strip = deps.watermarker !== undefined;
  const makeTransform = (m: Exclude<RestoreMode, 'sniff' | 'passthrough'>): ChunkTransform => {
    let restore: ChunkTransform;
    const max = deps.limits.maxEventBytes;
    const guarded = sink !== undefined && sink.guarding;
    if ((m === 'json' || m === 'text') && guarded && adapter.calls !== undefined) restore = createGuardedBodyRestorer(set, m, adapter, log.restore, sink, max);
    else if (m === 'json' || m === 'text') restore = createBodyRestorer(set, m, log.restore);
    else {
      const framing: Framing = m === 'sse' ? createSseFraming(max) : m === 'ndjson' ? createNdjsonFraming(max) : createJsonSeqFraming(max);
      const sinkOptions = guarded ? { sink, maxHeldBytes: max } : {};
      restore = createStreamRestorer(set, adapter, log.restore, framing, strip ? { deltaFilter: createFrameStripper, deltaFilterNeeded: mayHoldFrame, ...sinkOptions } : sinkOptions);
    }
    // Watermark frames come off before placeholders are restored (DESIGN §1).
    return strip ? chain(createStripTransform(), restore) : restore;
  };
  if (mode !== 'sniff' && mode !== 'passthrough') transform = makeTransform(mode);

  let failed = false;
  let waiting = false;
  const fail = (error: unknown): void => {
    if (failed) return;
    failed = true;
    call.abort();
    done(error);
  };
  /** Writes pieces; false when the client has more than CLIENT_BUFFER_BYTES waiting. */
  const send = (pieces: Buffer[]): boolean => {
    for (const p of pieces) {
      if (p.length === 0) continue;
      wroteBody = true;
      log.bytesOut += p.length;
      res.write(p);
    }
    return res.writableLength < CLIENT_BUFFER_BYTES || res.destroyed;
  };
  /** Holds the first bytes of a body without content-type until its kind is certain; then the transform takes them. */
  const sniff = (chunk: Buffer | undefined): Buffer | undefined => {
    const held = sniffed as Buffer[];
    if (chunk !== undefined) held.push(chunk);
    const head = held.length === 1 ? (held[0] as Buffer) : Buffer.concat(held);
    const kind = sniffBody(head, chunk === undefined);
    if (kind === undefined) {
      sniffed = [head];
      return undefined;
    }
    sniffed = undefined;
    transform = makeTransform(kind === 'sse' ? 'sse' : 'text');
    return head;
  };
  /** Transforms and writes one decoded chunk; false when the client's buffer is full. */
  const push = (input: Buffer): boolean => {
    let chunk = input;
    if (sniffed !== undefined) {
      const head = sniff(chunk);
      if (head === undefined) return true;
      chunk = head;
    }
    let pieces: Buffer[];
    try {
      pieces = transform === undefined ? [chunk] : transform.push(chunk);
    } catch (e) {
      fail(e);
      return true;
    }
    return send(pieces);
  };
  const finish = (): void => {
    if (failed) return;
    let pieces: Buffer[] = [];
    try {
      if (sniffed !== undefined) {
        const head = sniff(undefined) as Buffer;
        if (head.length > 0) pieces = (transform as ChunkTransform).push(head);
      }
      if (transform !== undefined) pieces = [...pieces, ...transform.end()];
    } catch (e) {
      fail(e);
      return;
    }
    // Written in the tick of the last chunk, so body tail and end share one write.
    send(pieces);
    res.end(() => done());
  };
  const whenDrained = (resume: () => void): void => {
    if (waiting) return;
    waiting = true;
    res.once('drain', () => {
      waiting = false;
      resume();
    });
  };

  if (rewritten && codings.length > 0) {
    const decoder = decompress(codings);
    decoder.output.on('data', (c: Buffer) => {
      if (!failed && !push(c)) {
        decoder.output.pause();
        whenDrained(() => decoder.output.resume());
      }
    });
    decoder.output.once('end', finish);
    decoder.output.once('error', (e) => fail(e));
    return {
      write(chunk) {
        if (failed || decoder.input.write(chunk)) return true;
        decoder.input.once('drain', () => call.resume());
        return false;
      },
      end: () => decoder.input.end(),
      abandon: () => decoder.destroy(),
    };
  }
  return {
    write(chunk) {
      if (failed || push(chunk)) return true;
      whenDrained(() => call.resume());
      return false;
    },
    end: finish,
    abandon() {
      failed = true;
    },
  };
}

/** Two chunk transforms in sequence. */
function chain(first: ChunkTransform, second: ChunkTransform): ChunkTransform {
  const through = (pieces: Buffer[]): Buffer[] => {
    if (pieces.length === 1) return second.push(pieces[0] as Buffer);
    const out: Buffer[] = [];
    for (const p of pieces) for (const q of second.push(p)) out.push(q);
    return out;
  };
  return {
    push: (chunk) => through(first.push(chunk)),
    end: () => [...through(first.end()), ...second.end()],
  };
}

type RestoreMode = 'sse' | 'ndjson' | 'json-array' | 'json' | 'text' | 'sniff' | 'passthrough';

/** Media types of newline-delimited JSON streams. */
const NDJSON_TYPES = new Set(['application/x-ndjson', 'application/ndjson', 'application/jsonl', 'application/x-jsonlines']);

function restoreMode(contentType: string, adapter: StreamAdapter): RestoreMode {
  const t = contentType.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  if (t === 'text/event-stream') return 'sse';
  if (NDJSON_TYPES.has(t)) return 'ndjson';
  if (t.includes('json')) return adapter.jsonArrayStream === true ? 'json-array' : 'json';
  if (t === '') return 'sniff';
  if (t.startsWith('text/') || t.endsWith('+xml') || t === 'application/xml') return 'text';
  return 'passthrough';
}

/** Decoders for the codings in the order they were applied (undone in reverse): write to `input`, read `output`. */
function decompress(codings: readonly string[]): { input: Transform; output: Transform; destroy(): void } {
  const stages = [...codings].reverse().map((c): Transform => (c === 'br' ? createBrotliDecompress() : c === 'deflate' ? createInflate() : c === 'zstd' ? createZstdDecompress() : createGunzip()));
  for (let i = 0; i + 1 < stages.length; i++) {
    const next = stages[i + 1] as Transform;
    (stages[i] as Transform).pipe(next);
    (stages[i] as Transform).on('error', (e) => next.destroy(e));
  }
  return { input: stages[0] as Transform, output: stages[stages.length - 1] as Transform, destroy: () => stages.forEach((d) => d.destroy()) };
}

