// The fail-closed gate: inspects the exact request about to be sent — body bytes, target (raw and
// percent-decoded) and every non-auth header — for every form of every registered value. It is
// independent of the rewriting code: whatever the redactor did or missed, a value still present in
// the assembled request is a finding, and the request is not forwarded.

import type { BodyKind } from './body-kind.ts';
import { AUTH_HEADERS, type HeaderList } from './headers.ts';
import { inspect, type TextKind } from './inspect.ts';
import type { SecretSet } from './secret-set.ts';
import { percentDecode, targetComponents } from './url.ts';

export interface OutgoingRequest {
  /** Path and query as they will be sent. */
  target: string;
  headers: HeaderList;
  body: Buffer;
  bodyKind: BodyKind;
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

/** Every registered value that would reach the provider in `req`; empty means it may be sent. */
export function gateRequest(set: SecretSet, req: OutgoingRequest, options: GateOptions = {}): Finding[] {
  if (set.inert) return [];
  const findings = new Map<string, Finding>();
  const add = (secret: number, surface: string): void => {
    findings.set(`${secret}\0${surface}`, { secret, surface });
  };

  if (options.scannedCleanBody !== req.body) {
    const kind: TextKind = req.bodyKind === 'form' ? 'text' : req.bodyKind;
    for (const h of inspect(set, req.body, kind)) add(h.secret, req.bodyKind === 'binary' ? 'body (binary)' : 'body');
  }
  if (req.bodyKind === 'form') {
    for (const c of targetComponents(`?${req.body.toString('latin1')}`)) {
      for (const h of inspect(set, Buffer.from(c.text, 'utf8'), 'text')) add(h.secret, 'body (form field)');
    }
  }

  for (const h of inspect(set, Buffer.from(req.target, 'latin1'), 'text')) add(h.secret, surfaceOfTarget(req.target, h.start));
  for (const c of targetComponents(req.target)) {
    for (const h of inspect(set, Buffer.from(c.text, 'utf8'), 'text')) add(h.secret, c.surface);
  }

  for (const [name, value] of req.headers) {
    if (AUTH_HEADERS.has(name)) continue;
    const surface = `header ${name}`;
    for (const h of inspect(set, Buffer.from(`${name}: ${value}`, 'latin1'), 'text')) add(h.secret, surface);
    if (value.includes('%')) {
      for (const h of inspect(set, Buffer.from(percentDecode(value, false), 'utf8'), 'text')) add(h.secret, surface);
    }
  }
  return [...findings.values()];
}

function surfaceOfTarget(target: string, offset: number): string {
  const q = target.indexOf('?');
  return q !== -1 && offset > q ? 'query' : 'path';
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
