// Who a gateway request is: the tenant (a token's name and groups) and the authentication seam the
// gateway command implements (tokens, limits, readiness) and the engine calls before reading a request.

import type { IncomingMessage } from 'node:http';

export interface Tenant {
  /** The token's name (stable id; derives the tenant's placeholder key). Never the token. */
  readonly name: string;
  readonly groups: readonly string[];
}

/** Decides who a request is, before anything is read or forwarded. */
export type AuthResult =
  | {
      ok: true;
      tenant: Tenant;
      /** the target with `/t/<token>` removed */
      target: string;
      /** called once when the request ends */
      release?: () => void;
    }
  | { ok: false; status: 401 | 429 | 503; type: string; message: string; headers?: Record<string, string> };

export interface Tenancy {
  authenticate(req: IncomingMessage, rawTarget: string): AuthResult;
  /** 32-byte gateway key shared by every instance (the key file). */
  readonly key: Uint8Array;
}
