// Streaming restore for server-sent events: the stream restorer (stream-restorer.ts) over the SSE
// framing (sse-frame.ts).

import type { StreamAdapter } from '../providers/types.ts';
import type { SecretSet } from '../redact/secret-set.ts';
import type { ChunkTransform } from './body-restorer.ts';
import type { RestoreStats } from './restore-bytes.ts';
import { createSseFraming } from './sse-frame.ts';
import { createStreamRestorer, type StreamRestorerOptions } from './stream-restorer.ts';

export type { DeltaFilter } from './delta-stream.ts';

export interface SseRestorerOptions extends StreamRestorerOptions {
  /** Largest incomplete event held while waiting for its end. */
  maxEventBytes: number;
}

/** A restorer for an SSE body in the adapter's wire format. */
export function createSseRestorer(set: SecretSet, adapter: StreamAdapter, stats: RestoreStats, options: SseRestorerOptions): ChunkTransform {
  return createStreamRestorer(set, adapter, stats, createSseFraming(options.maxEventBytes), options);
}
