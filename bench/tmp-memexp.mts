import { makeSecrets } from '../src/bench/corpus.ts';
import { createDetector } from '../src/detect/detector.ts';
import { anchorTables, setTablesInput } from '../src/redact/secret-set.ts';
import { buildTablesInWorker } from '../src/redact/matcher-thread.ts';
import { buildSetTables } from '../src/redact/set-tables.ts';
import { createGatewayKeys } from '../src/gateway/tenant-placeholder.ts';
const rss = () => (process.memoryUsage().rss / 2 ** 20).toFixed(0);
const keys = createGatewayKeys(Buffer.alloc(32, 1));
const entries = Object.entries({ ...makeSecrets(10000, 1), ...Object.fromEntries(Object.entries(makeSecrets(10000, 2)).map(([k, v]) => [k + '_2', v])) }).map(([name, value], i) => ({ name, value, source: `g${i % 10}`, groups: [`g${i % 10}`] }));
const a = anchorTables(createDetector());
console.log('start', rss());
const keep: unknown[] = [];
for (let r = 0; r < 3; r++) {
  const input = setTablesInput(entries, Buffer.alloc(32), keys);
  input.automaton = { anchors: a.plain, families: a.families };
  const t = process.argv[2] === 'here' ? buildSetTables(input) : await buildTablesInWorker(input);
  keep[r % 1] = t;
  const bytes = Object.values(t.automaton!.tables).reduce((n: number, x: any) => n + (x?.byteLength ?? 0), 0);
  await new Promise((r) => setTimeout(r, 500));
  (globalThis as any).gc?.();
  console.log('after build', r, rss(), 'MB; tables', (bytes / 2 ** 20).toFixed(1), 'MB');
}
