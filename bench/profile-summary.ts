// Summarises a V8 CPU profile (`node --cpu-prof`): self time by function and by package/file, so a
// missed target can be explained from the profile of the process that missed it.
// Run: node --import tsx bench/profile-summary.ts FILE.cpuprofile [--top 30] [--skip-ms 2000 (start-up)]
// To profile ficta inside the harness: ficta bench --ficta-bin bench/ficta-profiled.sh … (writes to $FICTA_PROF_DIR)

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { formatTable } from '../src/bench/report.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const { values, positionals } = parseArgs({ options: { top: { type: 'string' }, 'skip-ms': { type: 'string' } }, allowPositionals: true, strict: true });
const top = Number(values.top ?? 30);
const skipUs = Number(values['skip-ms'] ?? 0) * 1000;
if (positionals.length === 0) {
  process.stderr.write('usage: profile-summary.ts FILE.cpuprofile… [--top N]\n');
  process.exit(2);
}

for (const file of positionals) {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  let t = 0;
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i] ?? 0;
    if (t < skipUs) continue;
    self.set(p.samples[i] as number, (self.get(p.samples[i] as number) ?? 0) + (p.timeDeltas[i] ?? 0));
  }
  const totalUs = p.endTime - p.startTime - skipUs;
  const fn = new Map<string, number>();
  const area = new Map<string, number>();
  for (const [id, us] of self) {
    const n = byId.get(id);
    if (n === undefined) continue;
    const { functionName, url, lineNumber } = n.callFrame;
    const where = shortUrl(url);
    const key = `${functionName || '(anonymous)'} ${where}${where === '' ? '' : `:${lineNumber + 1}`}`;
    fn.set(key, (fn.get(key) ?? 0) + us);
    area.set(areaOf(functionName, url), (area.get(areaOf(functionName, url)) ?? 0) + us);
  }
  const busy = [...self.entries()].filter(([id]) => byId.get(id)?.callFrame.functionName !== '(idle)').reduce((s, [, us]) => s + us, 0);
  process.stdout.write(`\n${file}: ${(totalUs / 1000).toFixed(0)} ms profiled, ${(busy / 1000).toFixed(0)} ms busy\n\n`);
  const rows = (m: Map<string, number>, n: number): Array<[string, number, number]> =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, us]) => [k, us / 1000, (100 * us) / Math.max(1, busy)]);
  process.stdout.write(`${formatTable(['area', 'self ms', '% busy'], rows(area, 40))}\n\n`);
  process.stdout.write(`${formatTable(['function', 'self ms', '% busy'], rows(fn, top))}\n`);
}

function shortUrl(url: string): string {
  if (url === '') return '';
  const nm = url.lastIndexOf('node_modules/');
  if (nm !== -1) return url.slice(nm + 'node_modules/'.length).replace(/^\.pnpm\/[^/]+\/node_modules\//, '');
  const src = url.indexOf('/src/');
  if (src !== -1) return url.slice(src + 1);
  return url.replace(/^file:\/\//, '');
}

/** A coarse owner of a function: ficta's folder, the package, Node's internals or V8 (GC, idle). */
function areaOf(functionName: string, url: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const u = shortUrl(url);
  if (u.startsWith('node:')) return u.split('/').slice(0, 2).join('/');
  if (u.startsWith('src/')) return u.split('/').slice(0, 2).join('/');
  const pkg = u.startsWith('@') ? u.split('/').slice(0, 2).join('/') : (u.split('/')[0] as string);
  return pkg;
}
