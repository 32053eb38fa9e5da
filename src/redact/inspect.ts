// Finds every occurrence of a registered value in a buffer, in every form it can take there: raw and
// JSON-escaped (1–3 levels, compiled into the automaton) in one pass; and, only when the bytes hold a
// `\u` or `\/` escape, inside decoded views of the strings that hold them (nested JSON text included).
// Both the redactor and the fail-closed gate use it: the gate runs it on the exact outgoing bytes.

import { decodeEscapes, findStringEnd, findStringStart, readHex4, type DecodedView } from './json-text.ts';
import { scanSecrets, type SecretSet } from './secret-set.ts';

/** How a buffer is read: JSON text, other text, or opaque bytes (raw forms only). */
export type TextKind = 'json' | 'text' | 'binary';

/** A registered value found at source bytes [start, end). */
export interface Hit {
  start: number;
  end: number;
  secret: number;
  /** Found in a decoded view of a JSON string literal, so it lies inside one. */
  inString: boolean;
}

/** Views nest at most this deep (a `\u` inside JSON text inside a string inside a string). */
const MAX_VIEW_DEPTH = 3;

/** Every hit of a registered value in `buf` (overlapping hits included; see selectHits). */
export function inspect(set: SecretSet, buf: Buffer, kind: TextKind): Hit[] {
  const hits: Hit[] = [];
  if (set.inert || buf.length === 0) return hits;
  scanRaw(set, buf, hits, false);
  if (kind !== 'binary' && hasEscapeTrigger(set, buf)) {
    for (const h of scanEscaped(set, buf, kind === 'json', 1)) hits.push(h);
  }
  return hits;
}

/**
 * True when `buf` holds a `\u` or `\/` escape that could be part of a registered value: one that
 * decodes to a character some value contains. Others cannot hide a value from the raw scan.
 */
export function hasEscapeTrigger(set: SecretSet, buf: Buffer): boolean {
  const next = createTriggerCursor(set, buf);
  for (let p = next(0); p !== -1; p = next(p + 2)) if (triggerMatters(set, buf, p)) return true;
  return false;
}

/** Whether the escape at `p` decodes to a character used by a registered value. */
function triggerMatters(set: SecretSet, buf: Buffer, p: number): boolean {
  if (buf[p + 1] === 0x2f) return set.usesCodePoint(0x2f);
  let cp = readHex4(buf, p + 2, buf.length);
  if (cp < 0) return false;
  if (cp >= 0xd800 && cp <= 0xdbff && buf[p + 6] === 0x5c && buf[p + 7] === 0x75) {
    const lo = readHex4(buf, p + 8, buf.length);
    if (lo >= 0xdc00 && lo <= 0xdfff) cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
  }
  if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
  return set.usesCodePoint(cp);
}

const TRIGGER_U = Buffer.from('\\u', 'latin1');
const TRIGGER_SLASH = Buffer.from('\\/', 'latin1');

/**
 * Finds `\u` and `\/` byte pairs in order. Escape parity is ignored on purpose: `\\u00f6` is an
 * escaped backslash here but a `\u` escape one level down (JSON text inside a string). Each needle's
 * next position is cached, so walking every trigger of a body stays linear.
 */
function createTriggerCursor(set: SecretSet, buf: Buffer): (from: number) => number {
  let u = -2;
  // `\/` only matters when some value contains a slash; then it is searched for too.
  let s = set.usesCodePoint(0x2f) ? -2 : -1;
  return (from) => {
    if (u !== -1 && u < from) u = buf.indexOf(TRIGGER_U, from);
    if (s !== -1 && s < from) s = buf.indexOf(TRIGGER_SLASH, from);
    return u === -1 ? s : s === -1 ? u : Math.min(u, s);
  };
}

function scanRaw(set: SecretSet, buf: Buffer, out: Hit[], inString: boolean): void {
  scanSecrets(set, buf, (start, end, secret) => out.push({ start, end, secret, inString }));
}

function scanEscaped(set: SecretSet, buf: Buffer, jsonish: boolean, depth: number): Hit[] {
  const hits: Hit[] = [];
  if (!jsonish) {
    collectView(set, decodeEscapes(buf, 0, buf.length), depth, hits, false);
    return hits;
  }
  const nextTrigger = createTriggerCursor(set, buf);
  let pos = 0;
  let floor = 0;
  for (;;) {
    const p = nextTrigger(pos);
    if (p === -1) break;
    if (!triggerMatters(set, buf, p)) {
      pos = p + 2;
      continue;
    }
    let s = findStringStart(buf, p, floor);
    if (s === -1) s = floor - 1;
    let e = findStringEnd(buf, p, buf.length);
    if (e === -1) e = buf.length;
    collectView(set, decodeEscapes(buf, s + 1, e), depth, hits, true);
    pos = e + 1;
    floor = pos;
    if (pos >= buf.length) break;
  }
  return hits;
}

function collectView(set: SecretSet, view: DecodedView, depth: number, out: Hit[], inString: boolean): void {
  const local: Hit[] = [];
  scanRaw(set, view.bytes, local, inString);
  if (depth < MAX_VIEW_DEPTH && hasEscapeTrigger(set, view.bytes)) {
    for (const h of scanEscaped(set, view.bytes, looksLikeJson(view.bytes), depth + 1)) local.push(h);
  }
  for (const h of local) {
    const [start, end] = view.map(h.start, h.end);
    out.push({ start, end, secret: h.secret, inString });
  }
}

/** True when the first non-blank byte opens a JSON object or array. */
export function looksLikeJson(buf: Uint8Array): boolean {
  for (let i = 0; i < buf.length; i++) {
    const b = buf[i] as number;
    if (b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09) continue;
    return b === 0x7b || b === 0x5b;
  }
  return false;
}

/**
 * Picks non-overlapping hits to replace: the longest wins an overlap (then the leftmost), and the
 * result is ordered by start. Hits are first cut into clusters of transitively overlapping spans, so
 * the common case (no overlaps) is one sort.
 */
export function selectHits(hits: readonly Hit[]): Hit[] {
  const sorted = hits.slice().sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Hit[] = [];
  let i = 0;
  while (i < sorted.length) {
    let j = i + 1;
    let clusterEnd = (sorted[i] as Hit).end;
    while (j < sorted.length && (sorted[j] as Hit).start < clusterEnd) {
      clusterEnd = Math.max(clusterEnd, (sorted[j] as Hit).end);
      j++;
    }
    if (j === i + 1) out.push(sorted[i] as Hit);
    else for (const h of resolveCluster(sorted.slice(i, j))) out.push(h);
    i = j;
  }
  return out;
}

function resolveCluster(cluster: Hit[]): Hit[] {
  const byPriority = cluster.sort((a, b) => b.end - b.start - (a.end - a.start) || a.start - b.start);
  const taken: Hit[] = [];
  if (cluster.length <= 16) {
    for (const h of byPriority) {
      if (!taken.some((t) => h.start < t.end && t.start < h.end)) taken.push(h);
    }
  } else {
    // Large clusters (a value repeated back to back): an occupancy map keeps this linear in the span.
    let lo = Infinity;
    let hi = 0;
    for (const h of cluster) {
      lo = Math.min(lo, h.start);
      hi = Math.max(hi, h.end);
    }
    const used = new Uint8Array(hi - lo);
    for (const h of byPriority) {
      let free = true;
      for (let k = h.start - lo; k < h.end - lo; k++) {
        if (used[k] === 1) {
          free = false;
          break;
        }
      }
      if (!free) continue;
      used.fill(1, h.start - lo, h.end - lo);
      taken.push(h);
    }
  }
  return taken.sort((a, b) => a.start - b.start);
}
