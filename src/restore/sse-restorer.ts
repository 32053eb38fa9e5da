// Streaming restore for server-sent events. Complete events without a placeholder byte pass through as
// the same bytes while no text is held back; only events that may hold a placeholder are parsed. Each
// streamed text field (per content block / choice / tool call / item, as the adapter declares) keeps a
// carry, so a placeholder split across TCP chunks or across two or more events is restored exactly
// once, escaped for its context. Whole copies (`*.done`, `response.completed`) are restored in place.

import { FictaError } from '../errors.ts';
import { getPath, setPath, type DeltaField, type StreamAdapter } from '../providers/types.ts';
import { PLACEHOLDER_FIRST_BYTE } from '../redact/placeholder.ts';
import type { SecretSet } from '../redact/secret-set.ts';
import type { ChunkTransform } from './body-restorer.ts';
import { depthWithinString, jsonDepthAt } from './context.ts';
import { restoreBytes, type RestoreStats } from './restore-bytes.ts';
import { buildEvent, formatEvent, lastEventEnd, nextEventEnd, parseEvent, splitEvents, type SseEvent } from './sse-frame.ts';

interface Carry {
  /** Held-back text (the start of what may be a placeholder). */
  text: string;
  /** The last delta event of this stream, to re-emit the held text in the same shape. */
  eventName: string;
  template: Record<string, unknown>;
  path: ReadonlyArray<string | number>;
  eol: string;
}

/** A per-stream text filter applied to each delta before restore (e.g. the watermark frame stripper). */
export interface DeltaFilter {
  push(text: string): string;
  flush(): string;
  readonly pending: number;
}

export interface SseRestorerOptions {
  /** Largest incomplete event held while waiting for its end. */
  maxEventBytes: number;
  /** Creates one filter per streamed field; it may hold text back across events. */
  deltaFilter?: () => DeltaFilter;
  /** With a delta filter: true when an event may need it (otherwise only `~` makes an event parsed). */
  deltaFilterNeeded?: (bytes: Buffer) => boolean;
}

/** A restorer for an SSE body in the adapter's wire format. */
export function createSseRestorer(set: SecretSet, adapter: StreamAdapter, stats: RestoreStats, options: SseRestorerOptions): ChunkTransform {
  let pending: Buffer | undefined;
  const carries = new Map<string, Carry>();
  const filters = new Map<string, DeltaFilter>();
  const needsFilter = options.deltaFilterNeeded ?? ((): boolean => false);
  /** Bytes that can pass through untouched: nothing held, no placeholder byte, nothing for the filter. */
  const untouched = (bytes: Buffer): boolean => carries.size === 0 && bytes.indexOf(PLACEHOLDER_FIRST_BYTE) === -1 && !needsFilter(bytes);

  const restoreString = (s: string, depthOf: (content: Buffer, pos: number) => number, hold: boolean): { text: string; held: string } | undefined => {
    if (!s.includes('~')) return undefined;
    const buf = Buffer.from(s, 'utf8');
    const r = restoreBytes(set, buf, (pos) => depthOf(buf, pos), stats, hold);
    if (!r.changed && r.heldFrom === -1) return undefined;
    return {
      text: Buffer.concat(r.parts).toString('utf8'),
      held: r.heldFrom === -1 ? '' : buf.subarray(r.heldFrom).toString('utf8'),
    };
  };

  /** Restores whole placeholders in every string of `node` except the delta fields just handled. */
  const walk = (node: unknown, skip: ReadonlySet<string>, path: string): boolean => {
    if (typeof node !== 'object' || node === null) return false;
    const rec = node as Record<string, unknown>;
    let changed = false;
    for (const k of Object.keys(rec)) {
      const v = rec[k];
      const p = `${path}/${k}`;
      if (typeof v === 'object' && v !== null) changed = walk(v, skip, p) || changed;
      else if (typeof v === 'string' && !skip.has(p)) {
        const r = restoreString(v, depthWithinString, false);
        if (r !== undefined) {
          rec[k] = r.text;
          changed = true;
        }
      }
    }
    return changed;
  };

  const flushCarry = (key: string, out: Buffer[]): void => {
    const c = carries.get(key);
    if (c === undefined) return;
    carries.delete(key);
    const filter = filters.get(key);
    filters.delete(key);
    const text = c.text + (filter?.flush() ?? '');
    if (text === '') return;
    const data = structuredClone(c.template);
    setPath(data, c.path, text);
    out.push(buildEvent(c.eventName, JSON.stringify(data), c.eol));
  };

  const flushWhere = (pred: (key: string) => boolean, out: Buffer[]): void => {
    for (const key of [...carries.keys()]) if (pred(key)) flushCarry(key, out);
  };

  const processEvent = (block: Buffer, out: Buffer[]): void => {
    if (untouched(block)) {
      out.push(block);
      return;
    }
    const event = parseEvent(block);
    if (event.data === undefined) {
      out.push(block);
      return;
    }
    let data: unknown;
    try {
      data = JSON.parse(event.data);
    } catch {
      data = undefined;
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      const ends = adapter.ends(event.name, undefined, event.data);
      if (ends !== undefined) flushWhere(ends, out);
      out.push(restoreTextEvent(event, block));
      return;
    }
    const obj = data as Record<string, unknown>;
    const ends = adapter.ends(event.name, obj, event.data);
    if (ends !== undefined) flushWhere(ends, out);

    let changed = false;
    const skip = new Set<string>();
    for (const field of adapter.deltas(event.name, obj)) {
      changed = handleDelta(event, obj, field) || changed;
      skip.add(`/${field.path.join('/')}`);
    }
    changed = walk(obj, skip, '') || changed;
    out.push(changed ? formatEvent(event, JSON.stringify(obj)) : block);
  };

  const handleDelta = (event: SseEvent, obj: Record<string, unknown>, field: DeltaField): boolean => {
    const value = getPath(obj, field.path);
    if (typeof value !== 'string') return false;
    let filter = filters.get(field.key);
    if (filter === undefined && options.deltaFilter !== undefined) {
      filter = options.deltaFilter();
      filters.set(field.key, filter);
    }
    const incoming = filter === undefined ? value : filter.push(value);
    const prior = carries.get(field.key);
    const text = prior === undefined ? incoming : prior.text + incoming;
    // JSON-text fragments: a placeholder there sits inside a string of that JSON (bare `~` is not JSON).
    const depthOf = field.json ? (): number => 1 : (): number => 0;
    const r = restoreString(text, depthOf, true);
    const emitted = r === undefined ? text : r.text;
    const held = r === undefined ? '' : r.held;
    if (held !== '' || (filter !== undefined && filter.pending > 0)) {
      const template = structuredClone(obj);
      setPath(template, field.path, '');
      carries.set(field.key, { text: held, eventName: event.name, template, path: field.path, eol: event.eol });
    } else carries.delete(field.key);
    if (emitted === value) return false;
    setPath(obj, field.path, emitted);
    return true;
  };

  const restoreTextEvent = (event: SseEvent, block: Buffer): Buffer => {
    if (event.data === undefined || !event.data.includes('~')) return block;
    const buf = Buffer.from(event.data, 'utf8');
    const r = restoreBytes(set, buf, (pos) => jsonDepthAt(buf, pos), stats, false);
    return r.changed ? formatEvent(event, Buffer.concat(r.parts).toString('utf8')) : block;
  };

  const processRegion = (region: Buffer): Buffer[] => {
    if (untouched(region)) return [region];
    const out: Buffer[] = [];
    if (needsFilter(region)) {
      for (const block of splitEvents(region)) processEvent(block, out);
      return out;
    }
    // Only `~` and held text make an event worth parsing: the events before the next `~` pass through
    // as one piece, unsplit (splitting every event of a 16 KiB region was half of SSE restore's time).
    let pos = 0;
    while (pos < region.length) {
      if (carries.size === 0) {
        const tilde = region.indexOf(PLACEHOLDER_FIRST_BYTE, pos);
        if (tilde === -1) {
          out.push(pos === 0 ? region : region.subarray(pos));
          break;
        }
        const before = lastEventEnd(region.subarray(pos, tilde));
        if (before > 0) {
          out.push(region.subarray(pos, pos + before));
          pos += before;
        }
      }
      const end = nextEventEnd(region, pos);
      const stop = end === -1 ? region.length : end;
      processEvent(region.subarray(pos, stop), out);
      pos = stop;
    }
    return out;
  };

  return {
    push(chunk) {
      const data = pending === undefined ? chunk : Buffer.concat([pending, chunk]);
      const end = lastEventEnd(data);
      if (end === -1) {
        if (data.length > options.maxEventBytes) {
          throw new FictaError('FICTA_STREAM_OVERFLOW', `restore: an SSE event exceeded ${options.maxEventBytes} bytes`);
        }
        pending = data;
        return [];
      }
      pending = end === data.length ? undefined : data.subarray(end);
      if (pending !== undefined && pending.length > options.maxEventBytes) {
        throw new FictaError('FICTA_STREAM_OVERFLOW', `restore: an SSE event exceeded ${options.maxEventBytes} bytes`);
      }
      return processRegion(end === data.length ? data : data.subarray(0, end));
    },
    end() {
      const out: Buffer[] = [];
      // Held text first, as whole events; then whatever arrived of an unfinished event, as it came.
      flushWhere(() => true, out);
      if (pending !== undefined) {
        const tail = pending;
        pending = undefined;
        processEvent(tail, out);
      }
      return out;
    },
  };
}
