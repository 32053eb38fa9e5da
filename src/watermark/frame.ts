// The in-band frame: U+2060 WORD JOINER, then four nibbles as U+FE00..U+FE0F (VS1..VS16): symbol
// index, symbol high and low nibble, CRC-4. No legitimate text puts a variation selector after U+2060.

/** First code point of every frame. */
export const FRAME_START = 0x2060;
/** Nibble d is written as FRAME_DIGIT_BASE + d. */
export const FRAME_DIGIT_BASE = 0xfe00;
/** Nibbles after the start: index, symbol high, symbol low, check. */
export const FRAME_DIGITS = 4;
/** One codeword symbol as carried by a frame. */
export interface FrameSymbol {
  index: number;
  value: number;
}

/** CRC-4 (x^4 + x + 1, ITU G.704) over 12 bits; detects every single-nibble substitution. */
export function crc4(data12: number): number {
  let reg = data12 << 4;
  for (let bit = 15; bit >= 4; bit--) if (reg & (1 << bit)) reg ^= 0x13 << (bit - 4);
  return reg & 0xf;
}

/** The frame string for one symbol (index 0–15, value 0–255). */
export function formatFrame(symbol: FrameSymbol): string {
  const { index, value } = symbol;
  if (index < 0 || index > 15 || value < 0 || value > 255) throw new RangeError('frame: symbol out of range');
  const check = crc4((index << 8) | value);
  return String.fromCharCode(FRAME_START, FRAME_DIGIT_BASE + index, FRAME_DIGIT_BASE + (value >> 4), FRAME_DIGIT_BASE + (value & 0xf), FRAME_DIGIT_BASE + check);
}

/** Reads a complete frame's nibbles; undefined when the check fails. */
export function parseFrameDigits(d0: number, d1: number, d2: number, d3: number): FrameSymbol | undefined {
  const value = (d1 << 4) | d2;
  return crc4((d0 << 8) | value) === d3 ? { index: d0, value } : undefined;
}
