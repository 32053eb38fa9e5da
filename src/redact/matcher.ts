// The multi-pattern byte automaton (Aho-Corasick) behind redaction and the gate: one pass over a body
// finds every occurrence of every registered value, at a cost that does not grow with their number.

/** Occurrences found by a scan, as parallel arrays; `count` entries are valid. */
export interface MatchList {
  count: number;
  /** pattern index (position in the array given to createMatcher) */
  ids: Int32Array;
  /** exclusive end offset of the occurrence in the scanned buffer (absolute offset, not relative to `start`) */
  ends: Int32Array;
}

export interface Matcher {
  readonly patternCount: number;
  readonly minLength: number;
  readonly maxLength: number;
  /** Approximate bytes held by the automaton's tables. */
  readonly memoryBytes: number;
  /** Every occurrence (overlapping ones included) of every pattern fully inside buf[start, end). Ordered by end ascending; for equal ends, longer pattern first. Returns an empty list (count 0) when nothing matched, without allocating per call on that path. */
  scan(buf: Uint8Array, start?: number, end?: number): MatchList;
  /** True if any pattern occurs in buf[start,end) — may stop at the first hit. */
  test(buf: Uint8Array, start?: number, end?: number): boolean;
}

/**
 * Cap on dense-table entries (4 bytes each) for the states shallower than the shortest pattern.
 * 10,000 secrets of 20–40 bytes over a 500 KiB chat body: 2^18 → depth 3, 0.31 GB/s (common trigrams
 * trap); 2^19 → depth 5, 0.81 GB/s; 2^20 → depth 7, 1.10 GB/s, 8.7 MB in all; 2^21 and 2^22 no faster
 * (1.10 GB/s) at 12.4 and 19.7 MB.
 */
const DENSE_MAX_ENTRIES = 1 << 20;

/**
 * Cap on that depth: past it text almost never follows a secret's prefix, so rows only cost memory.
 * 1,000 secrets: depth 8 → 1.15 MB, 20 (the shortest secret) → 3.66 MB, both 1.10 GB/s on prose and
 * base64; depth 6 drops to 0.82 GB/s on prose that mentions `sk-ant` often.
 */
const DENSE_MAX_DEPTH = 8;

/**
 * Below this many bytes (or 8 × the longest pattern, for the warm-ups) a scan runs as one byte-by-byte
 * chain. 1,000 secrets: one chain 2.2 ns/B at any size; four chains 4.9 ns/B at 128 B, 3.0 at 256 B,
 * 1.96 at 512 B, 1.43 at 1 KiB, 0.91 at 64 KiB.
 */
const MULTI_CHAIN_MIN_BYTES = 512;

/** Table offset of state 0's row: slots [0, 256) of the table hold the byte-class map. */
const ROOT = 256;

const EMPTY_MATCHES: MatchList = Object.freeze({
  count: 0,
  ids: Object.freeze(new Int32Array(0)),
  ends: Object.freeze(new Int32Array(0)),
});

/** Growable (id, end) buffer for one chain; kept by the matcher so a scan without hits allocates nothing. */
class MatchSink {
  count = 0;
  ids = new Int32Array(16);
  ends = new Int32Array(16);

  push(id: number, end: number): void {
    if (this.count === this.ids.length) {
      const ids = new Int32Array(this.count * 2);
      const ends = new Int32Array(this.count * 2);
      ids.set(this.ids);
      ends.set(this.ends);
      this.ids = ids;
      this.ends = ends;
    }
    this.ids[this.count] = id;
    this.ends[this.count++] = end;
  }
}

/** Tables built by {@link createMatcher}; the layout is described there. */
interface Tables {
  table: Int32Array;
  stride: number;
  trap: number;
  depth: number;
  lo: number;
  base: number;
  childStart: Int32Array;
  edge: Uint8Array;
  fail: Int32Array;
  dict: Int32Array;
  outStart: Int32Array;
  outIds: Int32Array;
}

class ByteAutomaton implements Matcher {
  readonly patternCount: number;
  readonly minLength: number;
  readonly maxLength: number;
  readonly memoryBytes: number;
  private readonly t: Tables;
  private readonly sinks = [new MatchSink(), new MatchSink(), new MatchSink(), new MatchSink()] as const;
  /** Encoded state at the index a careful step returned (its second return value). */
  private resume = 0;
  private stopAtFirst = false;
  private found = false;

  constructor(patternCount: number, minLength: number, maxLength: number, t: Tables) {
    this.patternCount = patternCount;
    this.minLength = minLength;
    this.maxLength = maxLength;
    this.t = t;
    let bytes = 0;
    for (const a of [t.table, t.childStart, t.edge, t.fail, t.dict, t.outStart, t.outIds]) {
      bytes += a.byteLength;
    }
    this.memoryBytes = bytes;
  }

  scan(buf: Uint8Array, start = 0, end: number = buf.length): MatchList {
    checkRange(buf, start, end);
    const sinks = this.sinks;
    for (const s of sinks) s.count = 0;
    if (this.patternCount === 0 || end - start < this.minLength) return EMPTY_MATCHES;
    this.run(buf, start, end);
    const count = sinks[0].count + sinks[1].count + sinks[2].count + sinks[3].count;
    if (count === 0) return EMPTY_MATCHES;
    // Chains own consecutive ranges of end offsets, so concatenating them keeps ends ascending.
    const ids = new Int32Array(count);
    const ends = new Int32Array(count);
    let at = 0;
    for (const s of sinks) {
      ids.set(s.ids.subarray(0, s.count), at);
      ends.set(s.ends.subarray(0, s.count), at);
      at += s.count;
    }
    return { count, ids, ends };
  }

  test(buf: Uint8Array, start = 0, end: number = buf.length): boolean {
    checkRange(buf, start, end);
    if (this.patternCount === 0 || end - start < this.minLength) return false;
    this.stopAtFirst = true;
    try {
      this.run(buf, start, end);
    } finally {
      this.stopAtFirst = false;
    }
    return this.found;
  }

  /** Scans buf[start, end) into the sinks, as four interleaved chains when the input is long enough. */
  private run(buf: Uint8Array, start: number, end: number): void {
    const [k0, k1, k2, k3] = this.sinks;
    this.found = false;
    const n = end - start;
    if (n < MULTI_CHAIN_MIN_BYTES || n < 8 * this.maxLength) {
      this.careful(buf, start, end, start, ROOT, k0);
      return;
    }
    // Chain k owns the matches ending in (a_k, a_k+1]; it starts maxLength-1 bytes early so every such
    // match lies inside what it reads. Independent chains overlap their table loads.
    const slice = Math.floor(n / 4);
    const warm = this.maxLength - 1;
    const a1 = start + slice;
    const a2 = a1 + slice;
    const a3 = a2 + slice;
    const c1 = Math.max(start, a1 - warm);
    const c2 = Math.max(start, a2 - warm);
    const c3 = Math.max(start, a3 - warm);
    let i0 = start;
    let i1 = c1;
    let i2 = c2;
    let i3 = c3;
    let s0 = ROOT;
    let s1 = ROOT;
    let s2 = ROOT;
    let s3 = ROOT;
    const T = this.t.table;
    const below = this.t.trap - 1;
    for (;;) {
      let m = a1 - i0;
      if (a2 - i1 < m) m = a2 - i1;
      if (a3 - i2 < m) m = a3 - i2;
      if (end - i3 < m) m = end - i3;
      if (m < 4) break;
      const stop = i0 + (m & ~3);
      // Hot loop: blocks of 4 bytes per chain, one load per byte into the class map and one into the
      // table. Entering a deep state lands on the sticky trap row, tested once per block.
      while (i0 < stop) {
        s0 = T[s0 + T[buf[i0]!]!]!;
        s1 = T[s1 + T[buf[i1]!]!]!;
        s2 = T[s2 + T[buf[i2]!]!]!;
        s3 = T[s3 + T[buf[i3]!]!]!;
        s0 = T[s0 + T[buf[i0 + 1]!]!]!;
        s1 = T[s1 + T[buf[i1 + 1]!]!]!;
        s2 = T[s2 + T[buf[i2 + 1]!]!]!;
        s3 = T[s3 + T[buf[i3 + 1]!]!]!;
        s0 = T[s0 + T[buf[i0 + 2]!]!]!;
        s1 = T[s1 + T[buf[i1 + 2]!]!]!;
        s2 = T[s2 + T[buf[i2 + 2]!]!]!;
        s3 = T[s3 + T[buf[i3 + 2]!]!]!;
        s0 = T[s0 + T[buf[i0 + 3]!]!]!;
        s1 = T[s1 + T[buf[i1 + 3]!]!]!;
        s2 = T[s2 + T[buf[i2 + 3]!]!]!;
        s3 = T[s3 + T[buf[i3 + 3]!]!]!;
        i0 += 4;
        i1 += 4;
        i2 += 4;
        i3 += 4;
        if (((below - s0) | (below - s1) | (below - s2) | (below - s3)) < 0) break;
      }
      if (s0 > below) {
        i0 = this.resync(buf, i0 - 4, start, a1, start, k0);
        s0 = this.resume;
      }
      if (s1 > below) {
        i1 = this.resync(buf, i1 - 4, c1, a2, a1, k1);
        s1 = this.resume;
      }
      if (s2 > below) {
        i2 = this.resync(buf, i2 - 4, c2, a3, a2, k2);
        s2 = this.resume;
      }
      if (s3 > below) {
        i3 = this.resync(buf, i3 - 4, c3, end, a3, k3);
        s3 = this.resume;
      }
      if (this.found) return;
    }
    // Tails shorter than a block (or chains a deep walk carried to their end).
    this.careful(buf, i0, a1, start, s0, k0);
    this.careful(buf, i1, a2, a1, s1, k1);
    this.careful(buf, i2, a3, a2, s2, k2);
    this.careful(buf, i3, end, a3, s3, k3);
  }

  /**
   * Redoes a block [p, p+4) in which a chain hit the trap row. The chain was shallow at p, so its state
   * there is recovered by rereading the `depth - 1` bytes before p (too few to complete a pattern, so
   * nothing is reported twice); then the block is replayed carefully and the deep walk followed until
   * the chain is shallow again. Returns the index; the state is in `resume`.
   */
  private resync(
    buf: Uint8Array,
    p: number,
    chainStart: number,
    end: number,
    reportFrom: number,
    sink: MatchSink,
  ): number {
    const from = Math.max(chainStart, p - (this.t.depth - 1));
    const s = this.careful(buf, from, p + 4, reportFrom, ROOT, sink);
    if (s >= 0 || this.found) {
      this.resume = s;
      return p + 4;
    }
    return this.walk(buf, p + 4, end, reportFrom, ~s, sink, false);
  }

  /** Runs one chain byte by byte over buf[i, end) from encoded state s; returns the encoded state at end. */
  private careful(
    buf: Uint8Array,
    i: number,
    end: number,
    reportFrom: number,
    s: number,
    sink: MatchSink,
  ): number {
    const T = this.t.table;
    const trap = this.t.trap;
    while (i < end) {
      const c = T[buf[i++]!]!;
      const next = T[s + c]!;
      if (next !== trap) {
        s = next;
        continue;
      }
      i = this.walk(buf, i, end, reportFrom, this.child(s, c), sink, true);
      s = this.resume;
      if (s < 0) break;
    }
    return s;
  }

  /** The trie child by class c of the shallow state whose row is at offset `row` (it must exist). */
  private child(row: number, c: number): number {
    const { stride, lo, base, childStart, edge } = this.t;
    const k = (row - ROOT) / stride - lo;
    let v = childStart[k]!;
    while (edge[v - base] !== c) v++;
    return v;
  }

  /**
   * Follows deep state t (buf[i-1] just consumed; its matches reported first when `report` is set) until
   * the automaton is back in a shallow state or the chain ends; returns the index, the state in `resume`.
   */
  private walk(
    buf: Uint8Array,
    i: number,
    end: number,
    reportFrom: number,
    t: number,
    sink: MatchSink,
    report: boolean,
  ): number {
    const { table, trap, base, childStart, lo, edge, fail, dict, outStart, outIds } = this.t;
    for (;;) {
      let k = t - base;
      let x = outStart[k] !== outStart[k + 1] ? t : dict[k]!;
      if (report && x >= 0 && i > reportFrom) {
        if (this.stopAtFirst) {
          this.found = true;
          this.resume = ~t;
          return end;
        }
        // Own patterns first (the longest), then shorter suffixes along the dictionary links.
        while (x >= 0) {
          const kx = x - base;
          for (let o = outStart[kx]!, oe = outStart[kx + 1]!; o < oe; o++) sink.push(outIds[o]!, i);
          x = dict[kx]!;
        }
      }
      report = true;
      if (i >= end) {
        this.resume = ~t;
        return i;
      }
      const c = table[buf[i++]!]!;
      let next: number;
      for (;;) {
        let v = childStart[k + base - lo]!;
        const ve = childStart[k + base - lo + 1]!;
        while (v < ve && edge[v - base] !== c) v++;
        if (v < ve) {
          next = ~v;
          break;
        }
        const f = fail[k]!;
        if (f >= 0) {
          next = table[f + c]!;
          if (next === trap) next = ~this.child(f, c);
          break;
        }
        k = ~f - base;
      }
      if (next >= 0) {
        this.resume = next;
        return i;
      }
      t = ~next;
    }
  }
}

function checkRange(buf: Uint8Array, start: number, end: number): void {
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || start > end || end > buf.length) {
    throw new RangeError(`matcher: bad scan range [${start}, ${end}) for a buffer of ${buf.length} bytes`);
  }
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i]! - b[i]!;
  }
  return a.length - b.length;
}

/**
 * Compile byte patterns (each length >= 1; duplicates allowed — each index is reported) into one automaton.
 *
 * States are numbered breadth-first; the `base` states shallower than `depth` (≤ the shortest pattern,
 * DENSE_MAX_DEPTH and DENSE_MAX_ENTRIES) are shallow and get a full row in `table`: slots [0, 256) map
 * a byte to its class, state u's row starts at 256 + u × stride, and an entry is the target's row
 * offset — or `trap`, the offset of a last row that maps every class to itself, when the target is
 * deep. Deep states (encoded ~id) keep CSR children, fail links (row offset or ~id) and dictionary links.
 */
export function createMatcher(patterns: readonly Uint8Array[]): Matcher {
  const count = patterns.length;
  const seen = new Uint8Array(256);
  let total = 0;
  let minLen = count === 0 ? 0 : Infinity;
  let maxLen = 0;
  for (let id = 0; id < count; id++) {
    const p = patterns[id]!;
    if (p.length === 0) throw new RangeError(`matcher: pattern ${id} is empty`);
    total += p.length;
    if (p.length < minLen) minLen = p.length;
    if (p.length > maxLen) maxLen = p.length;
    for (let j = 0; j < p.length; j++) seen[p[j]!] = 1;
  }

  // Byte classes: each byte that occurs in a pattern gets its own class, in byte order (so sorted
  // patterns are sorted by class); all other bytes share class 0.
  const cls = new Uint8Array(256);
  let stride = seen.includes(0) ? 1 : 0;
  for (let b = 0; b < 256; b++) if (seen[b] === 1) cls[b] = stride++;

  // Trie in DFS preorder from the sorted patterns: a pattern shares the previous one's path up to
  // their common prefix, and children are created in ascending class order.
  const order = Array.from({ length: count }, (_, i) => i).sort(
    (a, b) => compareBytes(patterns[a]!, patterns[b]!) || a - b,
  );
  const parent = new Int32Array(total + 1);
  const edgeOld = new Uint8Array(total + 1);
  const depthOld = new Int32Array(total + 1);
  const path = new Int32Array(maxLen + 1);
  const patNode = new Int32Array(count);
  let nodes = 1;
  let prev: Uint8Array = new Uint8Array(0);
  for (const id of order) {
    const p = patterns[id]!;
    const lim = Math.min(p.length, prev.length);
    let l = 0;
    while (l < lim && p[l] === prev[l]) l++;
    for (let j = l; j < p.length; j++) {
      const v = nodes++;
      parent[v] = path[j]!;
      edgeOld[v] = cls[p[j]!]!;
      depthOld[v] = j + 1;
      path[j + 1] = v;
    }
    patNode[id] = path[p.length]!;
    prev = p;
  }
  const N = nodes;

  // Children lists (CSR, ascending class), then breadth-first renumbering.
  const kidStart = new Int32Array(N + 1);
  for (let v = 1; v < N; v++) kidStart[parent[v]! + 1]!++;
  for (let u = 0; u < N; u++) kidStart[u + 1]! += kidStart[u]!;
  const kids = new Int32Array(Math.max(N - 1, 0));
  const fill = kidStart.slice(0, N);
  for (let v = 1; v < N; v++) kids[fill[parent[v]!]!++] = v;
  const oldOf = new Int32Array(N);
  const newId = new Int32Array(N);
  const edge = new Uint8Array(N);
  const firstChild = new Int32Array(N + 1);
  const perDepth = new Int32Array(maxLen + 2);
  let tail = 1;
  for (let h = 0; h < N; h++) {
    const u = oldOf[h]!;
    perDepth[depthOld[u]!]!++;
    firstChild[h] = tail;
    for (let k = kidStart[u]!, ke = kidStart[u + 1]!; k < ke; k++) {
      const v = kids[k]!;
      newId[v] = tail;
      edge[tail] = edgeOld[v]!;
      oldOf[tail++] = v;
    }
  }
  firstChild[N] = N;

  // Dense depth: as deep as the shortest pattern and the caps allow (at least the root).
  let depth = 1;
  let base = perDepth[0]!;
  let lo = 0;
  while (
    depth < minLen &&
    depth < DENSE_MAX_DEPTH &&
    (base + perDepth[depth]!) * stride <= DENSE_MAX_ENTRIES
  ) {
    lo = base;
    base += perDepth[depth++]!;
  }

  const trap = ROOT + base * stride;
  const table = new Int32Array(trap + stride).fill(trap, trap);
  table.set(cls);
  table.fill(ROOT, ROOT, ROOT + stride);
  const failAll = new Int32Array(N);
  const child = (row: number, c: number): number => {
    let v = firstChild[(row - ROOT) / stride]!;
    while (edge[v] !== c) v++;
    return v;
  };
  for (let u = 0; u < N; u++) {
    const cs = firstChild[u]!;
    const ce = firstChild[u + 1]!;
    if (u < base) {
      const row = ROOT + u * stride;
      const f = failAll[u]!;
      if (u !== 0) table.copyWithin(row, f, f + stride);
      for (let v = cs; v < ce; v++) {
        const c = edge[v]!;
        // The copied entry is goto(fail(u), c); fail(u) is shallower than depth - 1, so never the trap.
        failAll[v] = u === 0 ? ROOT : table[row + c]!;
        table[row + c] = v < base ? ROOT + v * stride : trap;
      }
    } else {
      for (let v = cs; v < ce; v++) {
        const c = edge[v]!;
        // fail(v) = goto(fail(u), c): try deep suffix states' children, then the shallow row.
        let f = failAll[u]!;
        let target = 0;
        while (f < 0) {
          const t = ~f;
          let w = firstChild[t]!;
          const we = firstChild[t + 1]!;
          while (w < we && edge[w] !== c) w++;
          if (w < we) {
            target = ~w;
            break;
          }
          f = failAll[t]!;
        }
        if (f >= 0) target = table[f + c] === trap ? ~child(f, c) : table[f + c]!;
        failAll[v] = target;
      }
    }
  }

  // Outputs of deep states (CSR, ids ascending) and dictionary links.
  const nDeep = N - base;
  const outStart = new Int32Array(nDeep + 1);
  for (let id = 0; id < count; id++) outStart[newId[patNode[id]!]! - base + 1]!++;
  for (let k = 0; k < nDeep; k++) outStart[k + 1]! += outStart[k]!;
  const outIds = new Int32Array(count);
  const outFill = outStart.slice(0, nDeep);
  for (let id = 0; id < count; id++) outIds[outFill[newId[patNode[id]!]! - base]!++] = id;
  const dict = new Int32Array(nDeep).fill(-1);
  for (let k = 0; k < nDeep; k++) {
    const f = failAll[k + base]!;
    if (f >= 0) continue;
    const kf = ~f - base;
    dict[k] = outStart[kf] !== outStart[kf + 1] ? ~f : dict[kf]!;
  }

  return new ByteAutomaton(count, minLen, maxLen, {
    table,
    stride,
    trap,
    depth,
    lo,
    base,
    childStart: firstChild.slice(lo),
    edge: edge.slice(base),
    fail: failAll.slice(base),
    dict,
    outStart,
    outIds,
  });
}
