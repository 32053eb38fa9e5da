// Writes a set of bytes as a charset spec (see charset.ts), the form kinds give `follows` and `reads` in.

/** The bytes one by one, `-` last, where the spec reads it as itself rather than as a range. */
export function specOf(bytes: Iterable<number>): string {
  const all = new Set(bytes);
  const sorted = [...all].filter((b) => b !== 0x2d).sort((a, b) => a - b);
  return String.fromCharCode(...sorted) + (all.has(0x2d) ? '-' : '');
}

/** The bytes of a byte class. */
export function bytesOf(set: Uint8Array): number[] {
  const out: number[] = [];
  for (let b = 0; b < 256; b++) if (set[b] === 1) out.push(b);
  return out;
}
