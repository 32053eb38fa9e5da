// Arithmetic in GF(2^8) with the primitive polynomial x^8 + x^4 + x^3 + x^2 + 1 (0x11d), the field
// QR codes and most Reed–Solomon implementations use; log/antilog tables built once at load.

const PRIMITIVE_POLY = 0x11d;

const EXP = new Uint8Array(512);
const LOG = new Uint8Array(256);

{
  let x = 1;
  for (let i = 0; i < 255; i++) {
    EXP[i] = x;
    LOG[x] = i;
    x <<= 1;
    if (x & 0x100) x ^= PRIMITIVE_POLY;
  }
  // Doubling the table lets gfMul index EXP[log a + log b] without a modulo.
  for (let i = 255; i < 512; i++) EXP[i] = EXP[i - 255]!;
}

/** Multiplies two field elements. */
export function gfMul(a: number, b: number): number {
  if (a === 0 || b === 0) return 0;
  return EXP[LOG[a]! + LOG[b]!]!;
}

/** Divides `a` by a non-zero `b`. */
export function gfDiv(a: number, b: number): number {
  if (b === 0) throw new RangeError('gf256: division by zero');
  if (a === 0) return 0;
  return EXP[LOG[a]! + 255 - LOG[b]!]!;
}

/** The generator α raised to the power `n` (0 ≤ n < 255). */
export function gfPow(n: number): number {
  return EXP[n % 255]!;
}
