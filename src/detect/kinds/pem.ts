// Private key blocks: `-----BEGIN … PRIVATE KEY-----`, base64 lines (and RFC 1421 / OpenPGP armor
// headers), `-----END … PRIVATE KEY-----`. Lines may be separated by real newlines or by JSON escapes
// (`\n` in a JSON string, `\\n` in JSON text inside a string); the value reported is the block with
// those escapes decoded, so it restores correctly in any context.

import type { Confirm } from '../kind.ts';

/** Longest block looked at (an armored 4096-bit OpenPGP secret key is ~7 KB). */
const MAX_BLOCK_BYTES = 64 * 1024;

/** Fewest base64 bytes in a block (a 256-bit EC key is ~160): `anything` between the lines is not a key. */
const MIN_BODY_BYTES = 64;

/** A block with no END line (a `head` of a key file) is still reported once it has this much key material. */
const MIN_TRUNCATED_BODY_BYTES = 256;

const BASE64 = (() => {
  const t = new Uint8Array(256);
  for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=') t[c.charCodeAt(0)] = 1;
  return t;
})();

const DASHES = Buffer.from('-----', 'latin1');
const END = Buffer.from('-----END ', 'latin1');

/** A line separator at `i`: its length (0 when none) for the escape depth the block uses. */
function separatorAt(buf: Uint8Array, i: number, depth: number): number {
  if (depth === 0) {
    if (buf[i] === 0x0a) return 1;
    if (buf[i] === 0x0d && buf[i + 1] === 0x0a) return 2;
    if (buf[i] === 0x20) return 1;
    return 0;
  }
  const slashes = 1 << (depth - 1);
  const one = (at: number, letter: number): number => {
    for (let k = 0; k < slashes; k++) if (buf[at + k] !== 0x5c) return 0;
    return buf[at + slashes] === letter ? slashes + 1 : 0;
  };
  const r = one(i, 0x72);
  if (r > 0) {
    const n = one(i + r, 0x6e);
    return n > 0 ? r + n : 0;
  }
  return one(i, 0x6e);
}

/** The escape depth of the separator at `i` (0 for a raw newline), or -1. */
function depthOf(buf: Uint8Array, i: number): number {
  if (buf[i] === 0x0a || buf[i] === 0x0d || buf[i] === 0x20) return 0;
  let slashes = 0;
  while (buf[i + slashes] === 0x5c && slashes < 4) slashes++;
  if (slashes === 1) return 1;
  if (slashes === 2) return 2;
  if (slashes === 4) return 3;
  return -1;
}

/** Confirms a private key block whose BEGIN line is the anchor; emits the block (decoded when escaped). */
export const confirmPrivateKeyBlock: Confirm = (buf, anchorStart, anchorEnd, emit) => {
  // The label between "-----BEGIN " and "-----" (bytes [labelStart, labelEnd)): the END line repeats it.
  const labelStart = anchorStart + 11;
  const labelEnd = anchorEnd - 5;
  const depth = depthOf(buf, anchorEnd);
  if (depth < 0) return;
  const limit = Math.min(buf.length, anchorStart + MAX_BLOCK_BYTES);
  let i = anchorEnd;
  let body = 0;
  let lastLineEnd = -1;
  for (;;) {
    const sep = separatorAt(buf, i, depth);
    if (sep === 0) break;
    i += sep;
    if (i >= limit) break;
    if (matchesEnd(buf, i, labelStart, labelEnd)) {
      if (body < MIN_BODY_BYTES) return;
      const end = i + END.length + (labelEnd - labelStart) + DASHES.length;
      const value = decode(buf, anchorStart, end, depth);
      if (value !== undefined) emit(anchorStart, end, value);
      return;
    }
    // A base64 line (an escaped slash `\/` counts as one byte), a blank line or an armor header.
    const lineStart = i;
    let headerColon = false;
    while (i < limit) {
      const b = buf[i]!;
      // A block flattened onto one line separates its lines with spaces, which header lines also hold:
      // the END line ends the line before it whatever that line allows.
      if (b === 0x20 && matchesEnd(buf, i + 1, labelStart, labelEnd)) break;
      if (BASE64[b] === 1) {
        body++;
        i++;
      } else if (b === 0x5c && depth > 0 && buf[i + 1] === 0x2f) {
        body++;
        i += 2;
      } else if (b === 0x3a || (headerColon && b >= 0x20 && b < 0x7f && b !== 0x5c)) {
        // "Proc-Type: 4,ENCRYPTED", "DEK-Info: …", "Version: …", "Comment: …"
        headerColon = true;
        i++;
      } else if (b === 0x2d && i === lineStart) {
        // A line starting with '-' that is not END: not part of a block.
        return;
      } else if ((b === 0x2d || b === 0x2c || b === 0x2e || b === 0x20) && i > lineStart) {
        i++;
      } else break;
    }
    if (i > lineStart) lastLineEnd = i;
  }
  // No END line: a truncated copy is still a key.
  if (body < MIN_TRUNCATED_BODY_BYTES || lastLineEnd === -1) return;
  const value = decode(buf, anchorStart, lastLineEnd, depth);
  if (value !== undefined) emit(anchorStart, lastLineEnd, value);
};

function matchesEnd(buf: Uint8Array, i: number, labelStart: number, labelEnd: number): boolean {
  for (let k = 0; k < END.length; k++) if (buf[i + k] !== END[k]) return false;
  const at = i + END.length;
  const len = labelEnd - labelStart;
  for (let k = 0; k < len; k++) if (buf[at + k] !== buf[labelStart + k]) return false;
  for (let k = 0; k < DASHES.length; k++) if (buf[at + len + k] !== 0x2d) return false;
  return true;
}

/** The block's text with `depth` levels of JSON string escaping undone; undefined if they do not parse. */
function decode(buf: Uint8Array, start: number, end: number, depth: number): string | undefined {
  let s = Buffer.from(buf.subarray(start, end)).toString('latin1');
  try {
    for (let d = 0; d < depth; d++) s = JSON.parse(`"${s}"`) as string;
  } catch {
    return undefined;
  }
  return s;
}
