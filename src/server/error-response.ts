// Provider-shaped error responses (DESIGN §2), so SDKs show ficta's message: one mapper from codes to
// statuses and types, and one writer. Messages name secrets and surfaces, never values.

import type { ServerResponse } from 'node:http';
import { isFictaError } from '../errors.ts';
import type { Provider } from '../providers/types.ts';

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

/** The JSON error body in the provider's shape. */
export function formatErrorBody(provider: Provider, type: string, message: string): string {
  if (provider === 'anthropic') return JSON.stringify({ type: 'error', error: { type, message } });
  return JSON.stringify({ error: { message, type, code: type } });
}

/** Writes a provider-shaped error (nothing else is sent). */
export function sendError(res: ServerResponse, provider: Provider, error: HttpError, extraHeaders: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = formatErrorBody(provider, error.type, error.message);
  res.writeHead(error.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-ficta-error': error.type,
    ...extraHeaders,
  });
  res.end(body);
}
