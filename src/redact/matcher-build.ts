// Construction of the multi-pattern byte automaton behind redaction and the gate (the scanner is in
// matcher.ts): byte classes, a sorted trie numbered breadth-first, fail and dictionary links, and the
// dense table for shallow states (entries into states that end a pattern point at the trap row).

/**
 * Cap on dense-table entries (4 bytes each) for the shallow states.
 * 10,000 secrets of 20–40 bytes over a 500 KiB chat body: 2^18 → depth 3, 0.31 GB/s (common trigrams
 * trap); 2^19 → depth 5, 0.81 GB/s; 2^20 → depth 7, 1.10 GB/s, 8.7 MB in all; 2^21 and 2^22 no faster
 * (1.10 GB/s) at 12.4 and 19.7 MB (Node 20). Remeasured with detection (Node 24, the bench's Messages
 * body, whose `sk-proj`/`sk-ant` words are 7-byte prefixes of registered values): 10,000 secrets at 2^20
 * get depth 7 and redact + gate 0.37 ms on 500 KiB, at 2^21 depth 8 and 0.32 ms (tables 10.7 → 12.7 MB);
 * with detection's ~240 anchors (ten more byte classes, ~850 rows) 2^20 gives depth 6 and 0.44 ms, 2^21
 * depth 8 and 0.32 ms (14.4 MB). Leaves have no rows, so anchors extended by their next byte cost none.
 */
const DENSE_MAX_ENTRIES = 1 << 21;

/**
 * Cap on that depth: past it text almost never follows a secret's prefix, so rows only cost memory.
 * 1,000 secrets: depth 8 → 1.15 MB, 20 (the shortest secret) → 3.66 MB, both 1.10 GB/s on prose and
 * base64; depth 6 drops to 0.82 GB/s on prose that mentions `sk-ant` often.
 */
const DENSE_MAX_DEPTH = 8;

/** Table offset of state 0's row: slots [0, 256) of the table hold the byte-class map. */
export const ROOT = 256;

/** Tables built by {@link buildTables}; the layout is described there. */
export interface Tables {
  table: Int32Array;
  stride: number;
  trap: number;
  depth: number;
  /** Row offset of each state with a row, else -1. */
  rowOf: Int32Array;
  /** State id of each row (by row index). */
  rowState: Int32Array;
  /** CSR children of every state (ascending class), indexed by state id. */
  childStart: Int32Array;
  /** Class of the edge into each state. */
  edge: Uint8Array;
  /** Fail link of each state: a row offset (a state with a row) or ~id (one without). */
  fail: Int32Array;
  /** Nearest state on the fail chain that ends a pattern, or -1. */
  dict: Int32Array;
  /** CSR pattern ids ending at each state. */
  outStart: Int32Array;
  outIds: Int32Array;
}

/**
 * Patterns given as a base and the bytes that may follow it: one pattern `base + b` for each byte b with
 * `follows[b] === 1`, in ascending b (detection's anchors, each extended by the byte after it). Built
 * without writing each member out: one trie path for the base and a leaf per member.
 */
export interface PatternFamily {
  base: Uint8Array;
  follows: Uint8Array;
}

const NO_FAMILIES: readonly PatternFamily[] = [];

/** What buildTables returns. */
export interface BuiltTables {
  count: number;
  minLen: number;
  maxLen: number;
  tables: Tables;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i]! - b[i]!;
  }
  return a.length - b.length;
}

/** Each node's children in CSR form (`kids[start[u]..start[u+1])`), placed in `order` (default: by node id); the root is node 0. */
function childLists(parent: Int32Array, n: number, order?: Int32Array): { start: Int32Array; kids: Int32Array } {
  const start = new Int32Array(n + 1);
  for (let v = 1; v < n; v++) start[parent[v]! + 1]!++;
  for (let u = 0; u < n; u++) start[u + 1]! += start[u]!;
  const kids = new Int32Array(Math.max(n - 1, 0));
  const fill = start.slice(0, n);
  for (let k = 1; k < n; k++) {
    const v = order === undefined ? k : order[k - 1]!;
    kids[fill[parent[v]!]!++] = v;
  }
  return { start, kids };
}

/**
 * Builds the automaton's tables from byte patterns (each length >= 1; duplicates allowed), ids in order,
 * then from the members of `families` (ids after them, family by family).
 *
 * States are numbered breadth-first. Those shallower than `depth` (≤ the longest pattern, DENSE_MAX_DEPTH
 * and DENSE_MAX_ENTRIES) that have children get a full row in `table`: slots [0, 256) map a byte to its
 * class, rows follow from 256 in state order (`rowOf`, `rowState`), and an entry is the target's row
 * offset — or `trap`, the offset of a last row that maps every class to itself, when the target has no
 * row (deep, or a leaf) or ends a pattern (its own or, through its fail chain, a shorter one's). So the
 * hot loop never emits, and patterns shorter than `depth` (detection anchors) cost a trap only where they
 * occur instead of making the whole table shallow. Every state keeps CSR children, a fail link (row
 * offset or ~id), outputs and a dictionary link, for the careful walk.
 */
/**
 * Builds the tables. `pause`, when given, is called every few thousand steps of each long loop: the set-build
 * worker (src/redact/matcher-worker.ts) sleeps there now and then, so a build shares the CPU with requests.
 */
export function buildTables(patterns: readonly Uint8Array[], families: readonly PatternFamily[] = NO_FAMILIES, pause?: () => void): BuiltTables {
  const plain = patterns.length;
  const seen = new Uint8Array(256);
  let total = 0;
  let count = plain;
  let minLen = Infinity;
  let maxLen = 0;
  for (let id = 0; id < plain; id++) {
    const p = patterns[id]!;
    if (p.length === 0) throw new RangeError(`matcher: pattern ${id} is empty`);
    total += p.length;
    if (p.length < minLen) minLen = p.length;
    if (p.length > maxLen) maxLen = p.length;
    for (let j = 0; j < p.length; j++) seen[p[j]!] = 1;
  }
  // A family's members are its base's bytes (read once) plus one byte each: one trie path and a leaf per member.
  const firstId = new Int32Array(families.length);
  /** The families that have members (one without any adds nothing). */
  const used: number[] = [];
  for (let f = 0; f < families.length; f++) {
    const { base, follows } = families[f]!;
    firstId[f] = count;
    let members = 0;
    for (let b = 0; b < 256; b++) {
      if (follows[b] !== 1) continue;
      seen[b] = 1;
      members++;
    }
    if (members === 0) continue;
    used.push(f);
    count += members;
    total += base.length + members;
    if (base.length + 1 < minLen) minLen = base.length + 1;
    if (base.length + 1 > maxLen) maxLen = base.length + 1;
    for (let j = 0; j < base.length; j++) seen[base[j]!] = 1;
  }
  if (count === 0) minLen = 0;

  // Byte classes: each byte that occurs in a pattern gets its own class, in byte order (so sorted
  // patterns are sorted by class); all other bytes share class 0.
  const cls = new Uint8Array(256);
  let stride = seen.includes(0) ? 1 : 0;
  for (let b = 0; b < 256; b++) if (seen[b] === 1) cls[b] = stride++;

  // Trie in DFS preorder from the sorted patterns and family bases (item `plain + k` is the base of
  // family used[k]): an item shares the previous one's path up to their common prefix.
  const items = plain + used.length;
  const itemBytes = (i: number): Uint8Array => (i < plain ? patterns[i]! : families[used[i - plain]!]!.base);
  const order = Array.from({ length: items }, (_, i) => i).sort(
    (a, b) => compareBytes(itemBytes(a), itemBytes(b)) || a - b,
  );
  const parent = new Int32Array(total + 1);
  const edgeOld = new Uint8Array(total + 1);
  const depthOld = new Int32Array(total + 1);
  const path = new Int32Array(maxLen + 1);
  const patNode = new Int32Array(count);
  const baseNode = new Int32Array(used.length);
  let nodes = 1;
  let prev: Uint8Array = new Uint8Array(0);
  let step = 0;
  for (const i of order) {
    if ((++step & 511) === 0) pause?.();
    const p = itemBytes(i);
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
    if (i < plain) patNode[i] = path[p.length]!;
    else baseNode[i - plain] = path[p.length]!;
    prev = p;
  }

  if (used.length > 0) {
    // Members: the base node's child by the member's byte, made a leaf when no pattern continues there.
    // Families on one node are taken together, after its children from the patterns are looked up.
    const { start: kidStart0, kids: kids0 } = childLists(parent, nodes);
    const kidOf = new Int32Array(stride).fill(-1);
    const byNode = Array.from({ length: used.length }, (_, k) => k).sort((a, b) => baseNode[a]! - baseNode[b]! || a - b);
    for (let k = 0; k < byNode.length; ) {
      const b = baseNode[byNode[k]!]!;
      for (let q = kidStart0[b]!, qe = kidStart0[b + 1]!; q < qe; q++) kidOf[edgeOld[kids0[q]!]!] = kids0[q]!;
      for (; k < byNode.length && baseNode[byNode[k]!] === b; k++) {
        const f = used[byNode[k]!]!;
        const follows = families[f]!.follows;
        let id = firstId[f]!;
        for (let c = 0; c < 256; c++) {
          if (follows[c] !== 1) continue;
          const e = cls[c]!;
          let v = kidOf[e]!;
          if (v === -1) {
            v = nodes++;
            parent[v] = b;
            edgeOld[v] = e;
            depthOld[v] = depthOld[b]! + 1;
            kidOf[e] = v;
          }
          patNode[id++] = v;
        }
      }
      kidOf.fill(-1);
    }
  }
  const N = nodes;

  // Children lists (CSR, ascending class), then breadth-first renumbering. Nodes created in DFS preorder of
  // sorted patterns already come in ascending class under each parent; members added later are placed
  // class by class.
  let byClass: Int32Array | undefined;
  if (used.length > 0) {
    const classStart = new Int32Array(stride + 1);
    for (let v = 1; v < N; v++) classStart[edgeOld[v]! + 1]!++;
    for (let c = 0; c < stride; c++) classStart[c + 1]! += classStart[c]!;
    byClass = new Int32Array(Math.max(N - 1, 0));
    for (let v = 1; v < N; v++) byClass[classStart[edgeOld[v]!]!++] = v;
  }
  const { start: kidStart, kids } = childLists(parent, N, byClass);
  const oldOf = new Int32Array(N);
  const newId = new Int32Array(N);
  const edge = new Uint8Array(N);
  const firstChild = new Int32Array(N + 1);
  const depthOf = new Int32Array(N);
  let tail = 1;
  for (let h = 0; h < N; h++) {
    if ((h & 8191) === 8191) pause?.();
    const u = oldOf[h]!;
    depthOf[h] = depthOld[u]!;
    firstChild[h] = tail;
    for (let k = kidStart[u]!, ke = kidStart[u + 1]!; k < ke; k++) {
      const v = kids[k]!;
      newId[v] = tail;
      edge[tail] = edgeOld[v]!;
      oldOf[tail++] = v;
    }
  }
  firstChild[N] = N;

  // Dense states: those shallower than `depth` that have children. A leaf only ends a pattern: entering
  // it is a trap anyway, and after it the automaton goes on as from its fail state, so it needs no row
  // (detection's anchors, extended by the byte that must follow them, are thousands of such leaves).
  const inner = new Int32Array(maxLen + 2);
  for (let u = 0; u < N; u++) if (u === 0 || firstChild[u] !== firstChild[u + 1]) inner[depthOf[u]!]!++;
  let depth = 1;
  let rows = inner[0]!;
  while (depth <= maxLen && depth < DENSE_MAX_DEPTH && (rows + inner[depth]!) * stride <= DENSE_MAX_ENTRIES) rows += inner[depth++]!;
  const rowOf = new Int32Array(N).fill(-1);
  const rowState = new Int32Array(rows);
  let r = 0;
  for (let u = 0; u < N && r < rows; u++) {
    if (depthOf[u]! < depth && (u === 0 || firstChild[u] !== firstChild[u + 1])) {
      rowOf[u] = ROOT + r * stride;
      rowState[r++] = u;
    }
  }
  const encode = (v: number): number => (rowOf[v]! >= 0 ? rowOf[v]! : ~v);
  const stateOf = (e: number): number => (e >= 0 ? rowState[(e - ROOT) / stride]! : ~e);

  const trap = ROOT + rows * stride;
  const table = new Int32Array(trap + stride).fill(trap, trap);
  table.set(cls);
  table.fill(ROOT, ROOT, ROOT + stride);
  const failAll = new Int32Array(N);
  /** goto(state, c), encoded, from built rows and the trie (a trap entry means a row-less target). */
  const goTo = (e: number, c: number): number => {
    for (;;) {
      if (e >= 0) {
        const t = table[e + c]!;
        if (t !== trap) return t;
      }
      const x = stateOf(e);
      let w = firstChild[x]!;
      const we = firstChild[x + 1]!;
      while (w < we && edge[w] !== c) w++;
      if (w < we) return encode(w);
      e = failAll[x]!;
    }
  };
  for (let u = 0; u < N; u++) {
    if ((u & 4095) === 4095) pause?.();
    const cs = firstChild[u]!;
    const ce = firstChild[u + 1]!;
    const row = rowOf[u]!;
    if (row >= 0) {
      if (u !== 0) {
        // A row starts as its fail state's; a row-less fail state (a leaf) is followed transition by transition.
        const f = failAll[u]!;
        if (f >= 0) table.copyWithin(row, f, f + stride);
        else {
          for (let c = 0; c < stride; c++) {
            const t = goTo(f, c);
            table[row + c] = t < 0 ? trap : t;
          }
        }
      }
      for (let v = cs; v < ce; v++) {
        const c = edge[v]!;
        failAll[v] = u === 0 ? ROOT : goTo(failAll[u]!, c);
        table[row + c] = rowOf[v]! >= 0 ? rowOf[v]! : trap;
      }
    } else {
      for (let v = cs; v < ce; v++) failAll[v] = goTo(failAll[u]!, edge[v]!);
    }
  }

  // Outputs of every state (CSR, ids ascending) and dictionary links (fail states precede their
  // states in breadth-first order, so one forward pass suffices).
  const outStart = new Int32Array(N + 1);
  for (let id = 0; id < count; id++) outStart[newId[patNode[id]!]! + 1]!++;
  for (let k = 0; k < N; k++) outStart[k + 1]! += outStart[k]!;
  const outIds = new Int32Array(count);
  const outFill = outStart.slice(0, N);
  for (let id = 0; id < count; id++) outIds[outFill[newId[patNode[id]!]!]!++] = id;
  const dict = new Int32Array(N).fill(-1);
  const emits = new Uint8Array(N);
  for (let v = 1; v < N; v++) {
    if ((v & 32767) === 0) pause?.();
    const fs = stateOf(failAll[v]!);
    dict[v] = outStart[fs] !== outStart[fs + 1] ? fs : dict[fs]!;
    emits[v] = outStart[v] !== outStart[v + 1] || dict[v] !== -1 ? 1 : 0;
  }

  // Entries into rows of states that emit become traps: the careful walk reports them.
  for (let at = ROOT; at < trap; at++) {
    if ((at & 131071) === 0) pause?.();
    const e = table[at]!;
    if (e !== trap && emits[stateOf(e)] === 1) table[at] = trap;
  }

  return { count, minLen, maxLen, tables: {
    table,
    stride,
    trap,
    depth,
    rowOf,
    rowState,
    childStart: firstChild,
    edge,
    fail: failAll,
    dict,
    outStart,
    outIds,
  } };
}
