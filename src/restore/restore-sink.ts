// The seam where restored delta streams leave the restorer, for policies that decide per stream what
// the client gets (sink-aware restore, DESIGN §10: hold a tool call's argument deltas from its first
// placeholder until the call completes, then release them restored or withheld). The default sink
// passes every restored byte on at once. Bytes here are a field's raw string content as it stands in
// the event (escaped for a JSON string, with JSON text inside escaped once more).

import type { ToolCallInfo } from '../providers/types.ts';

/** What the restorer knows of a delta stream. */
export interface StreamInfo {
  readonly key: string;
  /** The adapter declared the content JSON text (tool arguments). */
  readonly json: boolean;
  /** The tool call whose arguments this stream carries (id and name as far as seen), or undefined. */
  readonly tool: ToolCallInfo | undefined;
}

export interface RestoreSink {
  /**
   * One event's piece of a delta stream, as it came (`original`, placeholders in place) and restored.
   * Returns the bytes to put in the event's field now and whether the stream is held from now on:
   * while any stream is held every event is read (none passes through unseen), and `end` is called
   * once the stream ends.
   */
  delta(info: StreamInfo, original: Buffer, restored: Buffer): { emit: Buffer; hold: boolean };
  /** The stream ended: bytes to release, sent in an event shaped like its last delta (empty: none). */
  end(info: StreamInfo): Buffer;
  /** A whole-value copy of a stream (`*.done`, `response.output_item.done`, `response.completed`): the bytes to put in its place. */
  copy(info: StreamInfo, original: Buffer, restored: Buffer): Buffer;
}

const EMPTY = Buffer.alloc(0);

/** Restores everything at once: the behaviour without a policy. */
export const RESTORE_ALL: RestoreSink = {
  delta: (_info, _original, restored) => ({ emit: restored, hold: false }),
  end: () => EMPTY,
  copy: (_info, _original, restored) => restored,
};
