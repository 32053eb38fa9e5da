// The module graph of src/: no import cycles, static or dynamic (STYLE: "No circular imports"). Found by
// reading every import specifier, so a cycle through a lazily loaded command counts too.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  const stack = [dir];
  while (stack.length > 0) {
    const d = stack.pop() as string;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) stack.push(p);
      else if (e.name.endsWith('.ts')) out.push(p);
    }
  }
  return out.sort();
}

/** Relative imports of a file: `from './x.ts'` (type-only imports too: they tie the files as much), `import('./x.ts')`, `export … from`. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  const re = /(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g;
  for (const m of text.matchAll(re)) {
    const spec = m[1] ?? m[2];
    if (spec !== undefined) out.push(resolve(dirname(file), spec));
  }
  return out;
}

/** Every cycle's first back edge found by an iterative depth-first search, as a list of files. */
export function findCycles(graph: Map<string, string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const cycles: string[][] = [];
  for (const root of graph.keys()) {
    if (state.has(root)) continue;
    const path: string[] = [];
    const stack: Array<{ node: string; next: number }> = [{ node: root, next: 0 }];
    state.set(root, 'open');
    path.push(root);
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as { node: string; next: number };
      const edges = graph.get(top.node) ?? [];
      if (top.next >= edges.length) {
        state.set(top.node, 'done');
        stack.pop();
        path.pop();
        continue;
      }
      const to = edges[top.next++] as string;
      if (state.get(to) === 'open') cycles.push([...path.slice(path.indexOf(to)), to]);
      else if (!state.has(to) && graph.has(to)) {
        state.set(to, 'open');
        path.push(to);
        stack.push({ node: to, next: 0 });
      }
    }
  }
  return cycles;
}

describe('src/ module graph', () => {
  it('has no import cycles, counting dynamic imports (doctor and doctor-vault included)', () => {
    const graph = new Map(sourceFiles(SRC).map((f) => [f, importsOf(f)]));
    expect(graph.get(join(SRC, 'cli/doctor-vault.ts'))?.length).toBeGreaterThan(0);
    const cycles = findCycles(graph).map((c) => c.map((f) => relative(SRC, f)).join(' → '));
    expect(cycles).toEqual([]);
  });

  it('finds a cycle when there is one (the check itself can fail)', () => {
    const g = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]);
    expect(findCycles(g)).toEqual([['a', 'b', 'c', 'a']]);
  });
});
