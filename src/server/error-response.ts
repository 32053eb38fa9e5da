// Provider-shaped error responses (DESIGN §2), so SDKs show ficta's message: one mapper from codes to
// statuses and types, and one writer. Messages name secrets and surfaces, never values.

import type { ServerResponse } from 'node:http';
import { isFictaError } from '../errors.ts';
import type { ErrorShape } from '../providers/error-shapes.ts';

export interface HttpError {
  status: number;
  type: string;
  message: string;
}

const BY_CODE: Record<string, { status: number; type: string }> = {
  FICTA_LEAK_BLOCKED: { status: 403, type: 'ficta_leak_blocked' },
  FICTA_BODY_TOO_LARGE: { status: 413, type: 'ficta_body_too_large' },
  FICTA_BODY_UNSUPPORTED_ENCODING: { status: 415, type: 'ficta_unsupported_encoding' },
  FICTA_BODY_MALFORMED: { status: 400, type: 'ficta_bad_request' },
  FICTA_BODY_TOO_DEEP: { status: 400, type: 'ficta_too_deeply_encoded' },
  FICTA_TARGET_DOT_SEGMENT: { status: 400, type: 'ficta_bad_request' },
  FICTA_VAULT_UNAVAILABLE: { status: 503, type: 'ficta_vault_unavailable' },
  FICTA_UNAUTHORIZED: { status: 401, type: 'ficta_unauthorized' },
  FICTA_UPSTREAM_UNREACHABLE: { status: 502, type: 'ficta_upstream_error' },
  FICTA_UPSTREAM_TIMEOUT: { status: 504, type: 'ficta_upstream_error' },
};

/** Maps any error to the status, type and message the client sees. */
export function toHttpError(error: unknown): HttpError {
  if (isFictaError(error)) {
    const known = BY_CODE[error.code];
    if (known !== undefined) return { status: error.status ?? known.status, type: known.type, message: `ficta: ${error.message}` };
    return { status: error.status ?? 500, type: 'ficta_internal_error', message: `ficta: ${error.message}` };
  }
  return { status: 500, type: 'ficta_internal_error', message: 'ficta: internal error (see the proxy log)' };
}

/** Writes a provider-shaped error (nothing else is sent); returns the body's length in bytes (0 when none was sent). */
export function sendError(res: ServerResponse, shape: ErrorShape, error: HttpError, extraHeaders: Record<string, string> = {}): number {
  if (res.headersSent) {
    res.destroy();
    return 0;
  }
  const body = shape.format(error.status, error.type, error.message);
  res.writeHead(error.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-ficta-error': error.type,
    ...extraHeaders,
  });
  res.end(body);
  return Buffer.byteLength(body);
}
