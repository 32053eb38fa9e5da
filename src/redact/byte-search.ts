// Searching bytes where the next hit is often near: a short loop first, Buffer#indexOf past it. One
// indexOf call costs about as much as scanning 60 bytes in a loop, and JSON text holds a quote or a
// backslash every few bytes in its worst shapes (many tiny strings), where per-call cost would dominate.

/** Bytes looked at one by one before handing over to indexOf. */
const NEAR_BYTES = 48;

/** Position of the first `byte` at or after `from`, or -1. */
export function findByte(buf: Uint8Array & { indexOf(value: number, byteOffset?: number): number }, byte: number, from: number): number {
  const stop = from + NEAR_BYTES < buf.length ? from + NEAR_BYTES : buf.length;
  for (let i = from; i < stop; i++) if (buf[i] === byte) return i;
  return stop === buf.length ? -1 : buf.indexOf(byte, stop);
}

/** Position of the first two-byte sequence `a b` at or after `from`, or -1. */
export function findPair(buf: Buffer, a: number, b: number, needle: Buffer, from: number): number {
  const stop = from + NEAR_BYTES < buf.length - 1 ? from + NEAR_BYTES : buf.length - 1;
  for (let i = from; i < stop; i++) if (buf[i] === a && buf[i + 1] === b) return i;
  return stop >= buf.length - 1 ? -1 : buf.indexOf(needle, stop);
}
