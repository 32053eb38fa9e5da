// Signed JSON Web Tokens (RFC 7519, compact JWS): `header.payload.signature`, each base64url, where the
// header decodes to a JSON object naming a signing algorithm. A signed token is reported as it is; one
// whose signature is missing (`header.payload`, as copies cut at the last dot and test fixtures show it)
// is still a token, reported `unverified`: redacted, never blocked. A base64 blob that merely starts with
// `eyJ`, a token whose header says `alg: none`, or a lone header is not.

import { B64URL, boundaryAfter, boundaryBefore, runEnd } from '../charset.ts';
import type { Confirm } from '../kind.ts';

const MAX_HEADER = 2048;
const MAX_PAYLOAD = 16 * 1024;
const MAX_SIGNATURE = 1024;
/** HMAC-SHA256 gives 43 characters; a copy cut short still carries most of it. */
const MIN_SIGNATURE = 16;
/** An unsigned token's payload: base64 of at least `{"a":1,"b":2}`-sized JSON. */
const MIN_UNSIGNED_PAYLOAD = 16;

/** Confirms a JWT whose header starts at the `eyJ` anchor. */
export const confirmJwt: Confirm = (buf, anchorStart, _anchorEnd, emit) => {
  if (!boundaryBefore(buf, anchorStart, B64URL)) return;
  const h = runEnd(buf, anchorStart, B64URL, MAX_HEADER);
  if (buf[h] !== 0x2e || h - anchorStart < 16 || h - anchorStart > MAX_HEADER) return;
  const p0 = h + 1;
  if (buf[p0] !== 0x65 || buf[p0 + 1] !== 0x79 || buf[p0 + 2] !== 0x4a) return; // "eyJ": a JSON object
  const p1 = runEnd(buf, p0, B64URL, MAX_PAYLOAD);
  if (buf[p1] !== 0x2e) {
    // No signature: the payload must be a whole base64url JSON object, bounded.
    if (p1 - p0 < MIN_UNSIGNED_PAYLOAD || p1 - p0 > MAX_PAYLOAD || !boundaryAfter(buf, p1, B64URL) || !namesAlgorithm(buf, anchorStart, h) || !isObject(buf, p0, p1)) return;
    emit(anchorStart, p1, undefined, 'unverified');
    return;
  }
  if (p1 - p0 < 8 || p1 - p0 > MAX_PAYLOAD) return;
  const s0 = p1 + 1;
  const s1 = runEnd(buf, s0, B64URL, MAX_SIGNATURE);
  const sig = s1 - s0;
  if (sig < MIN_SIGNATURE || sig > MAX_SIGNATURE || !boundaryAfter(buf, s1, B64URL) || buf[s1] === 0x2e) return;
  if (!namesAlgorithm(buf, anchorStart, h)) return;
  emit(anchorStart, s1);
};

/** True when the base64url header decodes to a JSON object with an `alg` other than `none`. */
function namesAlgorithm(buf: Uint8Array, start: number, end: number): boolean {
  const header = Buffer.from(Buffer.from(buf.subarray(start, end)).toString('latin1'), 'base64url').toString('latin1');
  if (!header.startsWith('{')) return false;
  const m = /"alg"\s*:\s*"([^"]*)"/.exec(header);
  return m !== null && m[1]!.toLowerCase() !== 'none' && m[1] !== '';
}

/** True when buf[start, end) is base64url of a JSON object: it decodes to `{` … `}` (trailing blanks aside). */
function isObject(buf: Uint8Array, start: number, end: number): boolean {
  const text = Buffer.from(Buffer.from(buf.subarray(start, end)).toString('latin1'), 'base64url').toString('latin1').trimEnd();
  return text.startsWith('{') && text.endsWith('}');
}
