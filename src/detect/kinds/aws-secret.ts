// The AWS secret access key that goes with an access key id: 40 bytes of base64 alphabet written within
// a few lines of the id (`~/.aws/credentials`, `env`, STS JSON), in either order.

import { B64, boundaryAfter, boundaryBefore, looksLikePlaceholder, runChars, runEnd } from '../charset.ts';

/** How far from the key id the secret is looked for, each way (a credentials file or env dump puts it within a line or two). */
export const AWS_SECRET_WINDOW = 256;

const SECRET_LENGTH = 40;

/**
 * The 40-character runs found so far in the buffer being scanned, and how far it was read: key ids come
 * in order, so each window reads only what the previous one did not (a body made of key ids would
 * otherwise read ~500 bytes per id).
 */
let seenBuf: Uint8Array | undefined;
let seenFrom = 0;
let seenTo = 0;
let found: Array<[number, number]> = [];
/** Candidates before this index lie wholly before every later window. */
let firstUseful = 0;

/**
 * Span [start, end) of the secret access key nearest the key id at [idStart, idEnd), or undefined: a run
 * of exactly 40 base64-alphabet characters (an escaped slash `\/` counts as one) with upper case, lower
 * case and a digit, not touching other base64 bytes, within AWS_SECRET_WINDOW of the id.
 */
export function findAwsSecretKey(buf: Uint8Array, idStart: number, idEnd: number): [number, number] | undefined {
  const from = Math.max(0, idStart - AWS_SECRET_WINDOW);
  const to = Math.min(buf.length, idEnd + AWS_SECRET_WINDOW);
  if (buf !== seenBuf || from < seenFrom || from > seenTo) {
    seenBuf = buf;
    seenFrom = from;
    seenTo = from;
    found = [];
    firstUseful = 0;
  }
  let i = seenTo;
  while (i < to) {
    if (B64[buf[i]!] !== 1 && !(buf[i] === 0x5c && buf[i + 1] === 0x2f)) {
      i++;
      continue;
    }
    const s = i;
    let e = runEnd(buf, s, B64, SECRET_LENGTH);
    const chars = runChars();
    // Past the length looked at: skip the rest of this longer run.
    if (chars > SECRET_LENGTH) {
      while (e < buf.length && (B64[buf[e]!] === 1 || (buf[e] === 0x5c && buf[e + 1] === 0x2f))) e += buf[e] === 0x5c ? 2 : 1;
    }
    i = e;
    if (chars === SECRET_LENGTH && isSecretShaped(buf, s, e)) found.push([s, e]);
  }
  seenTo = Math.max(seenTo, i);
  while (firstUseful < found.length && found[firstUseful]![0] < from) firstUseful++;
  let before: [number, number] | undefined;
  for (let k = firstUseful; k < found.length; k++) {
    const span = found[k]!;
    if (span[0] >= idEnd) return span[0] < to ? span : before;
    if (span[1] <= idStart) before = span;
  }
  return before;
}

function isSecretShaped(buf: Uint8Array, s: number, e: number): boolean {
  if (!boundaryBefore(buf, s, B64) || !boundaryAfter(buf, e, B64) || buf[e] === 0x3d) return false;
  let upper = 0;
  let lower = 0;
  let digit = 0;
  let symbol = 0;
  for (let k = s; k < e; k++) {
    const b = buf[k]!;
    if (b === 0x5c) continue; // the escape of a `\/`
    if (b >= 0x41 && b <= 0x5a) upper++;
    else if (b >= 0x61 && b <= 0x7a) lower++;
    else if (b >= 0x30 && b <= 0x39) digit++;
    else symbol++;
  }
  // Random base64: ~16 of each letter case, ~6 digits, ~1 symbol; paths and words look otherwise.
  return upper >= 4 && lower >= 4 && digit >= 1 && symbol <= 6 && !looksLikePlaceholder(buf, s, e);
}
