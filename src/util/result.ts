// A small result type for expected failures (parsing, config, look-ups): bugs throw, these return.

import type { FictaError } from '../errors.ts';

export type Result<T, E = FictaError> = { ok: true; value: T } | { ok: false; error: E };

/** Wraps a value as a successful result. */
export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

/** Wraps an error as a failed result. */
export function err<E>(error: E): { ok: false; error: E } {
  return { ok: false, error };
}
