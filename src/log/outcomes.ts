// The outcome of a proxied request, one lowercase name per way it can end, used by the request log, the
// run report and `ficta status` (README "Outcomes"); and which of them are problems worth a warning.

import { isFictaError } from '../errors.ts';

/** Every outcome a request line can carry. */
export const OUTCOMES = [
  'ok',
  'blocked',
  'client_aborted',
  'bad_request',
  'unauthorized',
  'over_limit',
  'not_ready',
  'not_found',
  'egress_refused',
  'websocket_refused',
  'too_deeply_encoded',
  'body_too_large',
  'unsupported_encoding',
  'vault_unavailable',
  'upstream_unreachable',
  'upstream_timeout',
  'upstream_stream_error',
  'stream_overflow',
  'internal_error',
] as const;

export type Outcome = (typeof OUTCOMES)[number];

/** Outcomes only `ficta gateway` produces (its tenancy's refusals: over the tenant's limit, not ready yet). */
export const GATEWAY_OUTCOMES: ReadonlySet<string> = new Set<Outcome>(['over_limit', 'not_ready']);

const BY_CODE: Readonly<Record<string, Outcome>> = {
  FICTA_LEAK_BLOCKED: 'blocked',
  FICTA_CLIENT_ABORTED: 'client_aborted',
  FICTA_BODY_MALFORMED: 'bad_request',
  FICTA_BODY_TOO_DEEP: 'too_deeply_encoded',
  FICTA_TARGET_DOT_SEGMENT: 'bad_request',
  FICTA_UNAUTHORIZED: 'unauthorized',
  FICTA_BODY_TOO_LARGE: 'body_too_large',
  FICTA_BODY_UNSUPPORTED_ENCODING: 'unsupported_encoding',
  FICTA_VAULT_UNAVAILABLE: 'vault_unavailable',
  FICTA_UPSTREAM_UNREACHABLE: 'upstream_unreachable',
  FICTA_UPSTREAM_TIMEOUT: 'upstream_timeout',
  FICTA_STREAM_OVERFLOW: 'stream_overflow',
};

const BY_STATUS: Readonly<Record<number, Outcome>> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'blocked',
  404: 'not_found',
  413: 'body_too_large',
  415: 'unsupported_encoding',
  502: 'upstream_unreachable',
  503: 'vault_unavailable',
  504: 'upstream_timeout',
};

/** The outcome for an error that ended a request (by code, else by the HTTP status it maps to). */
export function outcomeOf(error: unknown, status?: number): Outcome {
  if (isFictaError(error)) {
    const known = BY_CODE[error.code];
    if (known !== undefined) return known;
    const byStatus = BY_STATUS[error.status ?? status ?? 500];
    if (byStatus !== undefined) return byStatus;
  }
  return 'internal_error';
}

/** Outcomes logged as warnings: they reach a warnings-only log (`ficta run`'s run.log) and the run summary. */
export const PROBLEM_OUTCOMES: ReadonlySet<string> = new Set<Outcome>([
  'blocked',
  'egress_refused',
  'vault_unavailable',
  'upstream_unreachable',
  'upstream_timeout',
  'upstream_stream_error',
  'stream_overflow',
  'internal_error',
]);

/** Outcomes counted as upstream errors in summaries. */
export const UPSTREAM_OUTCOMES: ReadonlySet<string> = new Set<Outcome>(['upstream_unreachable', 'upstream_timeout', 'upstream_stream_error']);
