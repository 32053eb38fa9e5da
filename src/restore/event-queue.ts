// The stream restorer's output while a tool call is held: events leave in the order they came, so from
// the first held event on, every later event waits behind it (its bytes final already), and a held
// event leaves once each of its held fields has its bytes (the call was decided or failed closed).
// Bounded by the caller: the bytes waiting behind held events count against the same limit as the
// held calls themselves.

import type { Edit, FramedEvent } from './framing.ts';

/** One held field of an event: the piece of a call's arguments it carried, until the call is decided. */
export interface HeldField {
  /** The field's span in the event's data. */
  readonly start: number;
  readonly end: number;
  /** The piece as it came (placeholders in place), and its offset in the call's arguments. */
  readonly piece: Buffer;
  readonly from: number;
  /** The event it belongs to. */
  readonly owner: HeldEvent;
}

/** An event with held fields: the rest of its edits are final. */
export interface HeldEvent {
  readonly event: FramedEvent;
  readonly edits: Edit[];
  /** Fields still waiting for their bytes. */
  open: number;
}

/** Creates an event that waits for `open` held fields (registered with `holdField`). */
export function heldEvent(event: FramedEvent, edits: Edit[]): HeldEvent {
  return { event, edits, open: 0 };
}

/** Registers a field of `owner` as held. */
export function holdField(owner: HeldEvent, start: number, end: number, piece: Buffer, from: number): HeldField {
  owner.open++;
  return { start, end, piece, from, owner };
}

/** Gives a held field its bytes. */
export function releaseField(field: HeldField, bytes: Buffer): void {
  field.owner.edits.push({ start: field.start, end: field.end, bytes });
  field.owner.open--;
}

export class EventQueue {
  private items: Array<Buffer | HeldEvent> = [];
  private head = 0;
  private waiting = 0;

  /** Bytes of final events waiting behind a held one. */
  get bytes(): number {
    return this.waiting;
  }

  get empty(): boolean {
    return this.head === this.items.length;
  }

  /** Sends final bytes: at once when nothing is held before them, else in order behind. */
  push(bytes: Buffer, out: Buffer[]): void {
    if (this.empty) out.push(bytes);
    else {
      this.items.push(bytes);
      this.waiting += bytes.length;
    }
  }

  /** Sends an event that may hold fields: at once when it holds none and nothing waits, else queued. */
  pushEvent(ev: HeldEvent, out: Buffer[]): void {
    if (this.empty && ev.open === 0) out.push(render(ev));
    else this.items.push(ev);
  }

  /** Moves what is ready at the head (final bytes, events with every field given) to `out`. */
  drain(out: Buffer[]): void {
    while (this.head < this.items.length) {
      const item = this.items[this.head] as Buffer | HeldEvent;
      if (Buffer.isBuffer(item)) {
        out.push(item);
        this.waiting -= item.length;
      } else if (item.open === 0) out.push(render(item));
      else return;
      this.items[this.head++] = EMPTY;
    }
    this.items = [];
    this.head = 0;
  }
}

const EMPTY = Buffer.alloc(0);

function render(ev: HeldEvent): Buffer {
  return ev.event.rewrite(ev.edits.length > 1 ? ev.edits.sort((a, b) => a.start - b.start) : ev.edits);
}
