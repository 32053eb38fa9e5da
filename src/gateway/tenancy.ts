// Who a gateway request is (the engine asks before it reads anything): the token from `/t/<token>/…` or
// the `x-ficta-token` header, looked up in the token store; then readiness and the tenant's
// concurrent-request limit. Refusals are provider-shaped by the engine; nothing is forwarded.

import type { IncomingMessage } from 'node:http';
import { TOKEN_SEGMENT } from '../server/access.ts';
import type { AuthResult, Tenancy } from './tenant.ts';
import type { TokenStore } from './tokens.ts';

/** The header a client may carry its token in instead of the base URL (never forwarded). */
export const TOKEN_HEADER = 'x-ficta-token';

/** Seconds a client told 429 is asked to wait: a slot frees when one of its own requests ends. */
const RETRY_AFTER_S = 1;

export interface TenancyOptions {
  tokens: TokenStore;
  key: Uint8Array;
  /** Per tenant, per instance. */
  maxConcurrent: number;
  /** False until every source has loaded once (then requests get 503 `ficta_not_ready`). */
  ready: () => boolean;
  /** Told of each refusal's reason, for metrics (never the token). */
  onRefused?: (reason: 'unauthorized' | 'not_ready' | 'too_many_requests', tenant?: string) => void;
}

export interface GatewayTenancy extends Tenancy {
  /** Requests in flight per tenant name on this instance. */
  inFlight(): ReadonlyMap<string, number>;
  /** A changed config: another token file, another limit (requests in flight keep their slots). */
  setTokens(tokens: TokenStore): void;
  setMaxConcurrent(n: number): void;
}

/** The token-file implementation of the engine's Tenancy seam. */
export function createTenancy(options: TenancyOptions): GatewayTenancy {
  const inFlight = new Map<string, number>();
  let tokens = options.tokens;
  let maxConcurrent = options.maxConcurrent;
  return {
    key: options.key,
    inFlight: () => inFlight,
    setTokens(next) {
      tokens = next;
    },
    setMaxConcurrent(n) {
      maxConcurrent = n;
    },
    authenticate(req: IncomingMessage, rawTarget: string): AuthResult {
      const found = tokenOf(req, rawTarget);
      const tenant = found === undefined ? undefined : tokens.lookup(found.token);
      if (found === undefined || tenant === undefined) {
        options.onRefused?.('unauthorized');
        return {
          ok: false,
          status: 401,
          type: 'ficta_unauthorized',
          message: `ficta: this gateway needs a valid token in the base URL (…/t/<token>/…) or the ${TOKEN_HEADER} header; it was missing, unknown or revoked; nothing was forwarded`,
        };
      }
      if (!options.ready()) {
        options.onRefused?.('not_ready', tenant.name);
        return { ok: false, status: 503, type: 'ficta_not_ready', message: 'ficta: this gateway instance has not loaded every secret source yet; nothing was forwarded; retry', headers: { 'retry-after': '1' } };
      }
      const n = inFlight.get(tenant.name) ?? 0;
      if (n >= maxConcurrent) {
        options.onRefused?.('too_many_requests', tenant.name);
        return {
          ok: false,
          status: 429,
          type: 'ficta_too_many_requests',
          message: `ficta: more than ${maxConcurrent} requests of this tenant in flight on this instance; nothing was forwarded; retry`,
          headers: { 'retry-after': String(RETRY_AFTER_S) },
        };
      }
      inFlight.set(tenant.name, n + 1);
      let released = false;
      return {
        ok: true,
        tenant,
        target: found.target,
        release() {
          if (released) return;
          released = true;
          const left = (inFlight.get(tenant.name) ?? 1) - 1;
          if (left <= 0) inFlight.delete(tenant.name);
          else inFlight.set(tenant.name, left);
        },
      };
    },
  };
}

/** The token and the target without it: the path segment first, else the header. */
function tokenOf(req: IncomingMessage, rawTarget: string): { token: string; target: string } | undefined {
  if (rawTarget.startsWith(TOKEN_SEGMENT)) {
    const rest = rawTarget.slice(TOKEN_SEGMENT.length);
    const end = rest.search(/[/?]/);
    const token = end === -1 ? rest : rest.slice(0, end);
    const remainder = end === -1 ? '/' : rest.slice(end);
    return { token, target: remainder.startsWith('?') ? `/${remainder}` : remainder };
  }
  const header = req.headers[TOKEN_HEADER];
  if (typeof header !== 'string' || header === '') return undefined;
  return { token: header.trim(), target: rawTarget };
}
