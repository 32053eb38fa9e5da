// Searching bytes where the next hit is often near: a short loop first, Buffer#indexOf past it. One
// indexOf call costs about as much as scanning 60 bytes in a loop, and JSON text holds a quote or a
// backslash every few bytes in its worst shapes (many tiny strings), where per-call cost would dominate.

/** Bytes looked at one by one before handing over to indexOf. */
const NEAR_BYTES = 48;

/** Position of the first `byte` in [from, end), or -1; never reads past `end`. */
export function findByte(buf: Buffer, byte: number, from: number, end: number = buf.length): number {
  const stop = from + NEAR_BYTES < end ? from + NEAR_BYTES : end;
  for (let i = from; i < stop; i++) if (buf[i] === byte) return i;
  if (stop >= end) return -1;
  if (end === buf.length) return buf.indexOf(byte, stop);
  // A subarray bounds indexOf: searching a short range of a long buffer must not scan the rest of it.
  const q = buf.subarray(stop, end).indexOf(byte);
  return q === -1 ? -1 : stop + q;
}

/** Position of the first two-byte sequence `a b` at or after `from`, or -1. */
export function findPair(buf: Buffer, a: number, b: number, needle: Buffer, from: number): number {
  const stop = from + NEAR_BYTES < buf.length - 1 ? from + NEAR_BYTES : buf.length - 1;
  for (let i = from; i < stop; i++) if (buf[i] === a && buf[i + 1] === b) return i;
  return stop >= buf.length - 1 ? -1 : buf.indexOf(needle, stop);
}
