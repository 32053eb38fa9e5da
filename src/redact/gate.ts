// The fail-closed gate: inspects the exact request about to be sent — body bytes, target (raw and
// percent-decoded) and every non-auth header — for every form of every registered value. It is
// independent of the rewriting code: whatever the redactor did or missed, a value still present in
// the assembled request is a finding, and the request is not forwarded.

import { bodyInspectOptions } from './body.ts';
import type { BodyKind } from './body-kind.ts';
import { AUTH_HEADERS, type HeaderList } from './headers.ts';
import { inspect } from './inspect.ts';
import type { SecretSet } from './secret-set.ts';
import { withoutParams } from './url.ts';

export interface OutgoingRequest {
  /** Path and query as they will be sent. */
  target: string;
  headers: HeaderList;
  body: Buffer;
  bodyKind: BodyKind;
  /** Query parameters carrying the client's own credentials (Gemini's `key`): not inspected, like auth headers. */
  authQuery?: ReadonlySet<string>;
  /** More headers carrying the client's own credentials on this route (an MCP server's, from the agent's config): not inspected. */
  authHeaders?: ReadonlySet<string>;
}

export interface Finding {
  secret: number;
  /** Where: "body", "body (JSON number or structure)", "query", "path", "header x-foo". */
  surface: string;
}

export interface GateOptions {
  /** A body buffer the same detector already scanned and found clean (skips a second identical scan). */
  scannedCleanBody?: Buffer;
}

/**
 * Every registered value that would reach the provider in `req`; empty means it may be sent. Throws
 * FICTA_BODY_TOO_DEEP when a part of it nests escapes too deeply to be checked.
 */
export function gateRequest(set: SecretSet, req: OutgoingRequest, options: GateOptions = {}): Finding[] {
  if (set.inert) return [];
  const findings = new Map<string, Finding>();
  const add = (secret: number, surface: string): void => {
    findings.set(`${secret}\0${surface}`, { secret, surface });
  };

  // Every body kind is read in every form (views.ts); the kind only names the surface and tells binary
  // data apart, so a mislabelled body is checked just the same.
  // A rewritten body is scanned whole again, not only in windows around the replacements: what inspect()
  // finds is not local to a window of the longest pattern. A detected credential runs far from its anchor
  // (a key block, a JWT) and is confirmed by context (a key id near its secret key); decoded views are
  // whole strings around a trigger, under a decode budget counted over the whole input; whether a match
  // is aligned on escape boundaries depends on a backslash run of any length before it, and whether it is
  // inside a JSON string on the quotes from the start of the body. A window check would have to re-derive
  // each of these across every view and escape level, and so would no longer be independent of them.
  if (options.scannedCleanBody !== req.body) {
    const surface = req.bodyKind === 'binary' || req.bodyKind === 'multipart' ? `body (${req.bodyKind})` : 'body';
    for (const h of inspect(set, req.body, bodyInspectOptions(req.bodyKind))) add(h.secret, surface);
  }
  // The client's own credentials in the query (Gemini's `key`) are not inspected, like auth headers.
  const target = req.authQuery === undefined ? req.target : withoutParams(req.target, req.authQuery);
  for (const h of inspect(set, Buffer.from(target, 'latin1'))) add(h.secret, surfaceOfTarget(target, h.start));
  for (const [name, value] of req.headers) {
    if (AUTH_HEADERS.has(name) || req.authHeaders?.has(name) === true) continue;
    for (const h of inspect(set, Buffer.from(`${name}: ${value}`, 'latin1'))) add(h.secret, `header ${name}`);
  }
  return [...findings.values()];
}

function surfaceOfTarget(target: string, offset: number): string {
  const q = target.indexOf('?');
  return q !== -1 && offset >= q ? 'query' : 'path';
}

/** Names and surfaces of findings for the 403 message: never values. */
export function describeFindings(set: SecretSet, findings: readonly Finding[]): string {
  const bySurface = new Map<string, Set<string>>();
  for (const f of findings) {
    const names = bySurface.get(f.surface) ?? new Set<string>();
    names.add(set.nameFor(f.secret));
    bySurface.set(f.surface, names);
  }
  return [...bySurface.entries()].map(([surface, names]) => `${[...names].sort().join(', ')} in ${surface}`).join('; ');
}
