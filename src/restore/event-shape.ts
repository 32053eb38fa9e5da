// Recognises an event as another of a run of look-alike delta events without parsing it: the bytes
// before and after its one delta string equal those of an event that was parsed, and what lies between
// is plain JSON string content. JSON.parse of both then differs only in that string's value, and
// adapters never classify an event by its delta strings' contents (providers/types.ts), so it has the
// same stream and the same meaning. Reading a long stream's backlog this way, and restoring the events
// that hold a `~`, costs a few byte comparisons per event instead of a parse (Anthropic and Chat deltas
// repeat their shape; events with a counter in them, like Responses' sequence_number, do not match and
// are parsed).

import type { DeltaField } from '../providers/types.ts';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Shapes remembered at once (text and thinking deltas may alternate). */
const SHAPES = 4;

interface Shape {
  prefix: Buffer;
  suffix: Buffer;
  /** The delta field the string is, as the adapter declared it for the event learned. */
  field: DeltaField;
}

/** A recognised event: its delta string is `field` (of stream `field.key`) and holds region[start, end); it ends at eventEnd. */
export interface ShapeMatch {
  field: DeltaField;
  start: number;
  end: number;
  eventEnd: number;
}

export class EventShapes {
  private readonly shapes: Shape[] = [];
  private next = 0;

  /**
   * The remembered shape of the event that starts at `at` in `region` (a region of whole events), with
   * the event's end, or undefined. The shape itself finds where the event ends: its prefix, then string
   * content up to the first unescaped quote, then its suffix.
   */
  matchAt(region: Buffer, at: number): ShapeMatch | undefined {
    for (const s of this.shapes) {
      const p = s.prefix.length;
      const q = s.suffix.length;
      if (region.length - at < p + q) continue;
      if (!equalAt(region, at, s.prefix)) continue;
      const close = stringEnd(region, at + p);
      if (close === -1 || region.length - close < q || !equalAt(region, close, s.suffix)) continue;
      return { field: s.field, start: at + p, end: close, eventEnd: close + q };
    }
    return undefined;
  }

  /** Remembers `block` as a shape: its one delta string, `field`, has its content at [start, end). */
  learn(block: Buffer, start: number, end: number, field: DeltaField): void {
    const shape: Shape = { prefix: Buffer.from(block.subarray(0, start)), suffix: Buffer.from(block.subarray(end)), field };
    this.shapes[this.next] = shape;
    this.next = (this.next + 1) % SHAPES;
  }
}

/**
 * The offset of the quote that closes the JSON string whose content starts at `from`, or -1 when the
 * content is not what a JSON string holds before it (a raw control byte or an invalid escape).
 */
function stringEnd(buf: Buffer, from: number): number {
  let i = from;
  while (i < buf.length) {
    const b = buf[i] as number;
    if (b === QUOTE) return i;
    if (b < 0x20) return -1;
    if (b !== BACKSLASH) {
      i++;
      continue;
    }
    const e = buf[i + 1];
    if (e === 0x75) {
      if (i + 6 > buf.length) return -1;
      for (let k = i + 2; k < i + 6; k++) if (!isHex(buf[k] as number)) return -1;
      i += 6;
      continue;
    }
    if (e !== QUOTE && e !== BACKSLASH && e !== 0x2f && e !== 0x62 && e !== 0x66 && e !== 0x6e && e !== 0x72 && e !== 0x74) return -1;
    i += 2;
  }
  return -1;
}

/** region[at, at + want.length) equals `want` (a loop: Buffer.compare's argument checks cost more than ~100 bytes). */
function equalAt(region: Buffer, at: number, want: Buffer): boolean {
  for (let k = want.length - 1; k >= 0; k--) if (region[at + k] !== want[k]) return false;
  return true;
}

function isHex(b: number): boolean {
  return (b >= 0x30 && b <= 0x39) || ((b | 0x20) >= 0x61 && (b | 0x20) <= 0x66);
}
