// What a wire-format adapter declares so shared code never asks which provider it is handling: the
// streamed string fields of each event that continue a stream across events (deltas), the events that
// open a stream and name its tool call, the whole-value copies an event carries, the complete tool calls
// a document holds (a non-streamed body, or one event), and where streams end.
// The stream restorer (src/restore/stream-restorer.ts) works on these declarations whatever the framing
// (SSE events, NDJSON lines, elements of a streamed JSON array).

export type AdapterId = 'anthropic-messages' | 'openai-chat' | 'openai-responses' | 'gemini' | 'ollama' | 'generic';

/** The tool call a stream belongs to, as far as an event names it. */
export interface ToolCallInfo {
  id?: string;
  name?: string;
  /** A provider-hosted MCP tool's server (Responses `mcp_call.server_label`, Anthropic `mcp_tool_use.server_name`). */
  server?: string;
}

/** One streamed string fragment inside an event's data. */
export interface DeltaField {
  /** The stream it continues (content block, choice + tool call, item + part). */
  key: string;
  /** Path to the string inside the event's data object. */
  path: ReadonlyArray<string | number>;
  /** The stream's content is JSON text (tool arguments). Every stream is lexed from its start either way. */
  json: boolean;
  /** Set when the stream is a tool call's arguments; id and name when this event carries them. */
  tool?: ToolCallInfo;
  /**
   * Set (with `tool`) when the stream is only a part of a call that is never decided from it: a fragment
   * of structured arguments (Vertex `partialArgs`), a streamed field of an item a client runs from its
   * whole copy. Under a guarding sink every placeholder in it stays, counted withheld with this reason.
   */
  withhold?: string;
}

/** A whole-value copy of a stream's content in an event (`*.done`, `response.output_item.done`, `response.completed`). */
export interface CopyField {
  /** The stream it copies. */
  key: string;
  path: ReadonlyArray<string | number>;
  json: boolean;
  tool?: ToolCallInfo;
}

/**
 * A complete tool call in a JSON document: a non-streamed body, or one event whose call arrives whole
 * (Gemini `functionCall`, Ollama `tool_calls`, Anthropic `content_block_start`). Sink-aware restore
 * (DESIGN §10) decides its placeholders; nothing else restores them.
 */
export interface ToolCallSite {
  /** Path to the arguments: a string (JSON text, or a custom tool's free-form input) or an array/object (structured arguments). */
  path: ReadonlyArray<string | number>;
  /** `json`: JSON arguments, in a string or as the value itself; `text`: free-form input (Codex apply_patch). */
  kind: 'json' | 'text';
  tool: ToolCallInfo;
  /** The delta stream these arguments are a whole copy of, when they are one (decided the same way, counted once). */
  key?: string;
  /** Set when this is a part of a call that cannot be decided from it: every placeholder in it stays, counted withheld with this reason. */
  withhold?: string;
}

/** Reason for a placeholder in a part of a call that is never read whole (see DeltaField.withhold). */
export const PARTIAL_CALL = 'unsure:partial-call';

/** A stream an event opens (Anthropic `content_block_start`, Responses `output_item.added`), with its tool call. */
export interface StreamOpen {
  key: string;
  json: boolean;
  tool?: ToolCallInfo;
}

/**
 * What an adapter declares per event. No declaration may depend on the contents of the event's delta
 * strings: restore reads a look-alike delta event by its bytes around them (src/restore/event-shape.ts).
 */
export interface StreamAdapter {
  readonly id: AdapterId;
  /** Streamed string fields of this event. Must not depend on the fields' own contents. */
  deltas(event: string, data: Record<string, unknown>): DeltaField[];
  /**
   * Which open streams end at this event (held text for them is sent first): a predicate on keys, or
   * undefined when none end. `data` is undefined for non-JSON data such as `[DONE]`.
   */
  ends(event: string, data: Record<string, unknown> | undefined, rawData: string): ((key: string) => boolean) | undefined;
  /** Streams this event opens (optional; tool-call names for sink policies). */
  opens?(event: string, data: Record<string, unknown>): StreamOpen[];
  /** Whole-value copies this event carries (optional; every string is restored either way). */
  copies?(event: string, data: Record<string, unknown>): CopyField[];
  /**
   * Complete tool calls in a document: an event's data (`event` its name), or a whole non-streamed JSON
   * body (`event` is BODY). Tool-call copies of streams are declared by `copies` (with `tool`) instead.
   * An adapter that declares its tool calls here and in DeltaField/StreamOpen/CopyField `tool` gets
   * sink-aware restore with no further code.
   */
  calls?(event: string, data: Record<string, unknown>): ToolCallSite[];
  /**
   * Byte strings one of which every whole body holding a tool call contains, as providers write it (a type
   * or key: `tool_use"`). A body holding none of them, and no `\u` escape that could spell one, is not
   * parsed to look for calls (optional; without it every body with a placeholder is parsed).
   */
  readonly callHints?: readonly string[];
  /**
   * True when this event reports a failure (an `error` event, a failed or cut-off response): streams it
   * ends did not complete, so a tool call in them is failed closed. Optional (default: never).
   */
  fails?(event: string, data: Record<string, unknown> | undefined, rawData: string): boolean;
  /** False when the adapter never declares deltas: no per-stream state is kept. */
  readonly streams?: boolean;
  /** A JSON-typed response is a streamed array of events (`[{…},{…}]`) rather than one document. */
  readonly jsonArrayStream?: boolean;
}

export const ALL_KEYS = (): boolean => true;

/** The event name `calls` gets for a whole non-streamed JSON body. */
export const BODY = '';

/** Reads the value at `path` in `data`, or undefined. */
export function getPath(data: unknown, path: ReadonlyArray<string | number>): unknown {
  let node: unknown = data;
  for (const k of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string | number, unknown>)[k];
  }
  return node;
}
