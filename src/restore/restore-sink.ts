// The seam between the restorers and a policy that decides tool calls itself (sink-aware restore, DESIGN
// §10). The restorers find every tool call the adapter declares (argument delta streams, whole calls in
// an event or a JSON body, whole-value copies) and never restore a placeholder inside one on their own:
// they hand the call's arguments, complete, to the sink and put back only the bytes it returns. A delta
// stream is held from its first placeholder until the call completes (stream-restorer.ts), so the sink
// always decides on the whole call.

import type { ToolCallInfo } from '../providers/types.ts';
import type { Edit } from './framing.ts';

/** One complete tool call (or what a failed stream brought of one), as the restorer found it. */
export interface SinkCall {
  /** The delta stream it is (or is a whole copy of), when it has one. */
  key: string | undefined;
  tool: ToolCallInfo;
  /** `json`: JSON arguments; `text`: a custom tool's free-form input. */
  kind: 'json' | 'text';
  /** The arguments' bytes exactly as they stand in the response. */
  raw: Buffer;
  /** JSON string levels around `raw`: 1 for a string's content (streamed deltas, `arguments`), 0 for a JSON value. */
  depth: number;
  /** A whole-value copy of stream `key` (`*.done`, `output_item.done`, `response.completed`): decided like the stream, never counted twice. */
  copy: boolean;
}

export interface RestoreSink {
  /** False: tool calls are restored like any text (`restore.toolCalls = "all"`, or no policy). */
  readonly guarding: boolean;
  /**
   * True when a decision needs the whole call, so a stream is held from its first placeholder; false when
   * every placeholder in a tool call is withheld whatever else it holds (`"never"`): nothing is held.
   */
  readonly holds: boolean;
  /**
   * The edits (offsets in `call.raw`; only placeholder bytes change) that restore what the rule allows;
   * counts both. Without `holds`, each piece of a stream is decided on its own as it comes.
   */
  decide(call: SinkCall): Edit[];
  /**
   * Fails (part of) a call closed without reading it (HELD_TOO_LARGE, CALL_INCOMPLETE): its placeholders in
   * `call.raw` stay and are counted withheld with `reason`; later copies of the same stream stay as they are too.
   */
  withhold(call: SinkCall, reason: string): void;
}

/** Reason for a held call whose arguments outgrew the limit (`limits.maxEventBytes`). */
export const HELD_TOO_LARGE = 'unsure:held-call-too-large';
/** Reason for a call the response ended (or failed) in the middle of. */
export const CALL_INCOMPLETE = 'unsure:incomplete-call';

/** Restores everything: the behaviour without a policy. */
export const RESTORE_ALL: RestoreSink = {
  guarding: false,
  holds: false,
  decide: () => [],
  withhold: () => undefined,
};
