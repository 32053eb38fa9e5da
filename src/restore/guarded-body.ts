// Restore of a non-streamed JSON body whose adapter declares tool calls, under a sink (DESIGN §10). The
// body passes as it comes until its first placeholder; from there the rest is held (bounded by the
// limit) and, once the body is complete, read as one document: each tool call the adapter declares goes
// to the sink whole, every other placeholder is restored at its string depth as usual, and the held part
// leaves restored. A client cannot use a JSON body before its last byte, so holding costs it nothing.
// Past the limit the body fails closed: its placeholders from then on stay, counted withheld.

import { BODY, type StreamAdapter } from '../providers/types.ts';
import { PLACEHOLDER_FIRST_BYTE, probePlaceholder } from '../redact/placeholder.ts';
import type { SecretSet } from '../redact/secret-set.ts';
import { indexOfNeedle, needle, type Needle } from '../util/needle.ts';
import type { ChunkTransform } from './body-restorer.ts';
import { scanEvent, watch } from './event-scan.ts';
import { applyEdits, type Edit } from './framing.ts';
import type { RestoreStats } from './restore-bytes.ts';
import { HELD_TOO_LARGE, type RestoreSink } from './restore-sink.ts';
import { parseObject, placeholderEdits } from './placeholder-edits.ts';

/**
 * A body restorer for `adapter`'s bodies whose tool calls `sink` decides: `json` (declared JSON) or `text`
 * (JSON only when it starts like it), as createBodyRestorer.
 */
export function createGuardedBodyRestorer(set: SecretSet, mode: 'json' | 'text', adapter: StreamAdapter, stats: RestoreStats, sink: RestoreSink, limit: number): ChunkTransform {
  return new GuardedBody(set, mode, adapter, stats, sink, limit);
}

class GuardedBody implements ChunkTransform {
  /** Every chunk from the body's first byte (undefined once past the limit). */
  private kept: Buffer[] | undefined = [];
  private keptBytes = 0;
  /** Body offset from which bytes are held (-1: nothing held yet). */
  private heldFrom = -1;
  /** Past the limit: bytes pass as they come, their placeholders counted withheld. */
  private failed = false;

  constructor(
    private readonly set: SecretSet,
    private readonly mode: 'json' | 'text',
    private readonly adapter: StreamAdapter,
    private readonly stats: RestoreStats,
    private readonly sink: RestoreSink,
    private readonly limit: number,
  ) {}

  push(chunk: Buffer): Buffer[] {
    if (this.failed) return [this.withheld(chunk)];
    if (this.kept === undefined) {
      // Past the limit before any placeholder: the body cannot be read whole any more.
      if (firstPlaceholder(this.set, chunk) === -1) return [chunk];
      this.failed = true;
      return [this.withheld(chunk)];
    }
    if (this.keptBytes + chunk.length > this.limit) {
      // What was held leaves as it came, and so does everything after it.
      const held = this.heldFrom === -1 ? undefined : Buffer.concat(this.kept, this.keptBytes).subarray(this.heldFrom);
      this.kept = undefined;
      if (held === undefined && firstPlaceholder(this.set, chunk) === -1) return [chunk];
      this.failed = true;
      return held === undefined ? [this.withheld(chunk)] : [this.withheld(held), this.withheld(chunk)];
    }
    const at = this.keptBytes;
    this.kept.push(chunk);
    this.keptBytes += chunk.length;
    if (this.heldFrom !== -1) return [];
    const i = firstPlaceholder(this.set, chunk);
    if (i === -1) return [chunk];
    this.heldFrom = at + i;
    return i === 0 ? [] : [chunk.subarray(0, i)];
  }

  end(): Buffer[] {
    if (this.heldFrom === -1 || this.kept === undefined) return [];
    const doc = this.kept.length === 1 ? (this.kept[0] as Buffer) : Buffer.concat(this.kept, this.keptBytes);
    this.kept = undefined;
    // Nothing before heldFrom changes: it holds no placeholder.
    return [restoreDocument(this.set, this.adapter, this.stats, this.sink, doc, this.mode === 'json').subarray(this.heldFrom)];
  }

  private withheld(bytes: Buffer): Buffer {
    if (firstPlaceholder(this.set, bytes) !== -1) this.sink.withhold({ key: undefined, tool: {}, kind: 'json', raw: bytes, depth: 0, copy: false }, HELD_TOO_LARGE);
    return bytes;
  }
}

/**
 * Restores one whole document (`json`: declared JSON): the tool calls the adapter declares in it through
 * the sink, every other placeholder at its string depth. A duplicate key on a call's path fails the
 * document closed.
 */
export function restoreDocument(set: SecretSet, adapter: StreamAdapter, stats: RestoreStats, sink: RestoreSink, doc: Buffer, json: boolean): Buffer {
  const obj = mayHoldCall(adapter, doc) ? parseObject(doc.toString('utf8')) : undefined;
  const sites = obj === undefined ? [] : (adapter.calls?.(BODY, obj) ?? []);
  const watched = sites.map((c) => watch(c.path, true, true));
  // Declared JSON is read as any JSON value; text is JSON only when it starts like it (as the body restorer reads them).
  const scan = scanEvent(doc, json || obj !== undefined, watched);
  // A body that was not parsed holds no call at all: every placeholder in it is restored as text.
  if (watched.some((w) => w.duplicate)) {
    for (let i = doc.indexOf(PLACEHOLDER_FIRST_BYTE); i !== -1; i = doc.indexOf(PLACEHOLDER_FIRST_BYTE, i + 1)) {
      if (probePlaceholder(doc, i, doc.length).kind !== 'none') stats.misses++;
    }
    return doc;
  }
  const edits = placeholderEdits(set, ANY_BYTES, doc, scan.tildes, scan.depths, stats);
  sites.forEach((site, k) => {
    const w = watched[k];
    if (w === undefined || w.start === -1) return;
    const raw = doc.subarray(w.start, w.end);
    const call = { key: site.key, tool: site.tool, kind: site.kind, raw, depth: w.isString ? 1 : 0, copy: false };
    if (site.withhold !== undefined && sink.guarding) {
      sink.withhold(call, site.withhold);
      return;
    }
    for (const e of sink.decide(call)) {
      edits.push({ start: e.start + w.start, end: e.end + w.start, bytes: e.bytes });
    }
  });
  return applyEdits(doc, edits.length > 1 ? edits.sort(byStart) : edits);
}

/** False when `doc` cannot hold a tool call of the adapter: none of its hints, and no `\u` escape that could spell one. */
function mayHoldCall(adapter: StreamAdapter, doc: Buffer): boolean {
  if (adapter.calls === undefined) return false;
  const hints = callHintsOf(adapter);
  if (hints === undefined || doc.includes(ESCAPE_U)) return true;
  for (const h of hints) if (indexOfNeedle(doc, h) !== -1) return true;
  return false;
}

const hintNeedles = new WeakMap<StreamAdapter, Needle[]>();

/** The adapter's call hints, prepared once: searched as strings they cost 15–23 µs per 50 KiB each. */
function callHintsOf(adapter: StreamAdapter): Needle[] | undefined {
  if (adapter.callHints === undefined) return undefined;
  let hints = hintNeedles.get(adapter);
  if (hints === undefined) {
    hints = adapter.callHints.map(needle);
    hintNeedles.set(adapter, hints);
  }
  return hints;
}

const ESCAPE_U = Buffer.from('\\u');

/** A body carries any value (no framing). */
const ANY_BYTES = { carries: (): boolean => true };

function byStart(a: Edit, b: Edit): number {
  return a.start - b.start;
}

/**
 * Offset of the first `~` in `buf` that begins a placeholder of a known value, or one cut off by its end; -1
 * if none. For a gateway tenant every whole placeholder counts, so another group's or tenant's is counted.
 */
function firstPlaceholder(set: SecretSet, buf: Buffer): number {
  const every = set.deniedForId !== undefined;
  for (let i = buf.indexOf(PLACEHOLDER_FIRST_BYTE); i !== -1; i = buf.indexOf(PLACEHOLDER_FIRST_BYTE, i + 1)) {
    const p = probePlaceholder(buf, i, buf.length);
    if (p.kind === 'partial' || (p.kind === 'full' && (every || set.secretForId(p.id) !== -1))) return i;
  }
  return -1;
}
