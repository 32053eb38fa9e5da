// The load client: keep-alive undici pools (the only bench module that imports undici) and a
// dispatch-level request loop that timestamps response headers (TTFB), the first text delta of a
// stream (TTFT) and the last byte, at a fixed concurrency, bounded in count and in time.

import { Pool } from 'undici';

export interface RequestSpec {
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  /** Look for the first text delta (time to first token). */
  sse: boolean;
  /** Byte strings whose first arrival is timed (`marks` in the timing), e.g. markers in tool-call deltas. */
  marks?: Record<string, Buffer>;
}

export interface Timing {
  status: number;
  /** Request start → response headers, ms. */
  ttfb: number;
  /** Request start → first chunk holding a text delta, ms (NaN when not a stream or none seen). */
  ttft: number;
  /** Request start → last byte, ms. */
  total: number;
  bytes: number;
  /** Request start → the first chunk holding each of the spec's marks, ms (NaN when not seen). */
  marks?: Record<string, number>;
}

export interface Response extends Timing {
  headers: Record<string, string | string[] | undefined>;
  /** The body, only when asked for. */
  body: Buffer | undefined;
}

const EMPTY = Buffer.alloc(0);

/** The bytes that mark the first text delta of an Anthropic stream. */
const DELTA_MARK = Buffer.from('content_block_delta');

/** A keep-alive pool to one origin with up to `connections` sockets. */
export function createPool(origin: string, connections: number): Pool {
  return new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 600_000 });
}

export interface SendOptions {
  /** Keep the response body (verification requests only). */
  keepBody?: boolean;
  headers?: Record<string, string>;
  /** Sees every body chunk (checks over streams too long to keep). */
  onChunk?: (chunk: Buffer) => void;
}

/** Sends one request and times it. */
export function send(pool: Pool, spec: RequestSpec, options: SendOptions = {}): Promise<Response> {
  const extraHeaders = options.headers;
  const onChunk = options.onChunk;
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    let status = 0;
    let ttfb = Number.NaN;
    let ttft = Number.NaN;
    let bytes = 0;
    let headers: Record<string, string | string[] | undefined> = {};
    const marks = spec.marks === undefined ? undefined : Object.entries(spec.marks);
    const seen: Record<string, number> | undefined = marks === undefined ? undefined : Object.fromEntries(marks.map(([k]) => [k, Number.NaN]));
    // A mark may straddle two chunks: each chunk is searched with the previous one's tail in front.
    let tail = EMPTY;
    const chunks: Buffer[] | undefined = options.keepBody === true ? [] : undefined;
    pool.dispatch(
      { method: 'POST', path: spec.path, headers: extraHeaders === undefined ? spec.headers : { ...spec.headers, ...extraHeaders }, body: spec.body },
      {
        onRequestStart() {},
        onResponseStart(_c, statusCode, h) {
          status = statusCode;
          ttfb = performance.now() - t0;
          headers = h;
        },
        onResponseData(_c, chunk) {
          bytes += chunk.length;
          if (spec.sse && ttft !== ttft && chunk.indexOf(DELTA_MARK) !== -1) ttft = performance.now() - t0;
          if (marks !== undefined && seen !== undefined) {
            const now = performance.now() - t0;
            const hay = tail.length === 0 ? chunk : Buffer.concat([tail, chunk]);
            for (const [k, m] of marks) if (seen[k] !== seen[k] && hay.indexOf(m) !== -1) seen[k] = now;
            tail = Buffer.from(hay.subarray(Math.max(0, hay.length - 64)));
          }
          chunks?.push(chunk);
          onChunk?.(chunk);
        },
        onResponseEnd() {
          resolve({ status, ttfb, ttft, total: performance.now() - t0, bytes, headers, body: chunks === undefined ? undefined : Buffer.concat(chunks), ...(seen === undefined ? {} : { marks: seen }) });
        },
        onResponseError(_c, error) {
          reject(error);
        },
      },
    );
  });
}

export interface BatchResult {
  timings: Timing[];
  errors: number;
  /** Wall time of the batch, ms. */
  wallMs: number;
  firstError?: string;
}

/** Runs `count` requests with `concurrency` in flight, stopping early at `maxMs`. */
export async function runBatch(pool: Pool, spec: RequestSpec, count: number, concurrency: number, maxMs: number): Promise<BatchResult> {
  const timings: Timing[] = [];
  let issued = 0;
  let errors = 0;
  let firstError: string | undefined;
  const t0 = performance.now();
  const deadline = t0 + maxMs;
  const worker = async (): Promise<void> => {
    while (issued < count && performance.now() < deadline) {
      issued++;
      try {
        const r = await send(pool, spec);
        if (r.status !== 200) {
          errors++;
          firstError ??= `status ${r.status}`;
        } else timings.push({ status: r.status, ttfb: r.ttfb, ttft: r.ttft, total: r.total, bytes: r.bytes, ...(r.marks === undefined ? {} : { marks: r.marks }) });
      } catch (e) {
        errors++;
        firstError ??= (e as NodeJS.ErrnoException).code ?? (e as Error).message;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return { timings, errors, wallMs: performance.now() - t0, ...(firstError === undefined ? {} : { firstError }) };
}
