// What a wire-format adapter declares so shared code never asks which provider it is handling: the
// streamed text fields that may carry a placeholder split across events, and where each one ends.

export type AdapterId = 'anthropic-messages' | 'openai-chat' | 'openai-responses' | 'generic';

/** One streamed text fragment inside an event's data. */
export interface DeltaField {
  /** The stream it continues (content block, choice + tool call, item + part). */
  key: string;
  /** Path to the string inside the event's data object. */
  path: ReadonlyArray<string | number>;
  /** Fragments of JSON text (tool arguments): a value restored inside it is escaped once more. */
  json: boolean;
}

export interface StreamAdapter {
  readonly id: AdapterId;
  /** Streamed text fields of this event. */
  deltas(event: string, data: Record<string, unknown>): DeltaField[];
  /**
   * Which open streams end at this event (so text held back for them is sent first): a predicate on
   * keys, or undefined when none end. `data` is undefined for non-JSON data such as `[DONE]`.
   */
  ends(event: string, data: Record<string, unknown> | undefined, rawData: string): ((key: string) => boolean) | undefined;
}

export const ALL_KEYS = (): boolean => true;

/** Reads a string at `path` in `data`, or undefined. */
export function getPath(data: unknown, path: ReadonlyArray<string | number>): unknown {
  let node: unknown = data;
  for (const k of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string | number, unknown>)[k];
  }
  return node;
}

/** Sets the value at `path` in `data` (the parents must exist). */
export function setPath(data: unknown, path: ReadonlyArray<string | number>, value: unknown): void {
  let node = data as Record<string | number, unknown>;
  for (let i = 0; i < path.length - 1; i++) node = node[path[i] as string | number] as Record<string | number, unknown>;
  node[path[path.length - 1] as string | number] = value;
}
