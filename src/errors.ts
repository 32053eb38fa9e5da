// The one error class of ficta and its codes. Messages read "<area>: <what happened>", lowercase,
// and never carry a secret value, a body or a placeholder map.

export type FictaErrorCode =
  | 'FICTA_CONFIG_INVALID'
  | 'FICTA_USAGE'
  | 'FICTA_SECRETS_INVALID'
  | 'FICTA_SECRETS_UNREADABLE'
  | 'FICTA_KEY_UNREADABLE'
  | 'FICTA_BODY_TOO_LARGE'
  | 'FICTA_BODY_UNSUPPORTED_ENCODING'
  | 'FICTA_BODY_MALFORMED'
  | 'FICTA_BODY_TOO_DEEP'
  | 'FICTA_TARGET_DOT_SEGMENT'
  | 'FICTA_LEAK_BLOCKED'
  | 'FICTA_VAULT_UNAVAILABLE'
  | 'FICTA_UNAUTHORIZED'
  | 'FICTA_UPSTREAM_UNREACHABLE'
  | 'FICTA_UPSTREAM_TIMEOUT'
  | 'FICTA_STREAM_OVERFLOW'
  | 'FICTA_CLIENT_ABORTED'
  | (string & { readonly __brand?: 'FictaErrorCode' });

export interface FictaErrorOptions {
  status?: number;
  cause?: unknown;
}

/** An expected failure with a stable code; check `code`, not `instanceof`. */
export class FictaError extends Error {
  readonly code: FictaErrorCode;
  readonly status: number | undefined;

  constructor(code: FictaErrorCode, message: string, options: FictaErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'FictaError';
    this.code = code;
    this.status = options.status;
  }
}

/** True when `err` is a FictaError, optionally with the given code. */
export function isFictaError(err: unknown, code?: FictaErrorCode): err is FictaError {
  if (typeof err !== 'object' || err === null) return false;
  const c = (err as { code?: unknown }).code;
  if (typeof c !== 'string' || !c.startsWith('FICTA_')) return false;
  return code === undefined || c === code;
}
