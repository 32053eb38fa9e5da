// The signature of an Azure shared access signature URL: `sig=` followed by the percent-encoded base64
// of an HMAC-SHA256 (32 bytes: 43 characters and `=`; copies in docs and tests run a few characters
// longer or shorter), in a query that also carries `sv=` (the version).

import type { Confirm } from '../kind.ts';

/** How far back the `sv=` parameter is looked for (a SAS query is a few hundred bytes). */
const SV_WINDOW = 1024;

const MIN_SIG_CHARS = 40;
const MAX_SIG_CHARS = 50;
/** Longest percent-encoded signature: each character at most 3 bytes. */
const MAX_SIG_BYTES = MAX_SIG_CHARS * 3;

const SV = [0x73, 0x76, 0x3d]; // "sv="

/** Confirms `?sig=` / `&sig=` at an anchor; emits the signature value. */
export const confirmAzureSas: Confirm = (buf, anchorStart, anchorEnd, emit) => {
  let i = anchorEnd;
  let chars = 0;
  let pad = 0;
  const stop = Math.min(buf.length, anchorEnd + MAX_SIG_BYTES + 1);
  while (i < stop) {
    const b = buf[i]!;
    let c = b;
    if (b === 0x25) {
      const v = hexPair(buf, i + 1);
      if (v < 0) break;
      c = v;
      i += 3;
    } else if (isSigByte(b)) i++;
    else break;
    if (c === 0x3d) pad++;
    else if (pad > 0 || !isBase64(c)) return;
    chars++;
  }
  if (chars < MIN_SIG_CHARS || chars > MAX_SIG_CHARS || pad < 1 || pad > 2) return;
  if (i < buf.length && isSigByte(buf[i]!)) return;
  if (!hasSvBefore(buf, anchorStart)) return;
  emit(anchorEnd, i);
};

function isSigByte(b: number): boolean {
  return isBase64(b) || b === 0x3d;
}

function isBase64(b: number): boolean {
  return (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || (b >= 0x30 && b <= 0x39) || b === 0x2b || b === 0x2f;
}

function hexPair(buf: Uint8Array, at: number): number {
  if (at + 1 >= buf.length) return -1;
  const h = hexVal(buf[at]!);
  const l = hexVal(buf[at + 1]!);
  return h < 0 || l < 0 ? -1 : (h << 4) | l;
}

function hexVal(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  const l = b | 0x20;
  return l >= 0x61 && l <= 0x66 ? l - 0x61 + 10 : -1;
}

/** True when `sv=` starts a parameter of the same query, before `at`. */
function hasSvBefore(buf: Uint8Array, at: number): boolean {
  const floor = Math.max(0, at - SV_WINDOW);
  for (let i = at - 3; i >= floor; i--) {
    const b = buf[i]!;
    // The query ends at whitespace or a quote.
    if (b <= 0x20 || b === 0x22 || b === 0x27) return false;
    if (buf[i] === SV[0] && buf[i + 1] === SV[1] && buf[i + 2] === SV[2] && (buf[i - 1] === 0x3f || buf[i - 1] === 0x26)) return true;
  }
  return false;
}
