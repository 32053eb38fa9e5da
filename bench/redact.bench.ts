// Redact + gate as the proxy runs them (inspect → replace → gate on the exact bytes) over Messages
// bodies, at 10 / 100 / 1,000 / 10,000 secrets: no hits, hits, and \u-escaped bodies.
// Run: node --import tsx bench/redact.bench.ts [--sizes 50KiB,500KiB] [--secrets 10,1000]

import { cpus } from 'node:os';
import { Bench } from 'tinybench';
import { redactBody } from '../src/redact/body.ts';
import { gateRequest } from '../src/redact/gate.ts';
import { buildSecretSet, type SecretSet } from '../src/redact/secret-set.ts';
import { makeMessagesBody, makeSecrets, SIZES, type SizeName } from '../src/bench/corpus.ts';

const args = process.argv.slice(2);
const arg = (name: string, def: string): string => {
  const i = args.indexOf(name);
  return i === -1 ? def : (args[i + 1] as string);
};
const sizes = arg('--sizes', '50KiB,500KiB,5MiB').split(',') as SizeName[];
const counts = arg('--secrets', '10,100,1000,10000').split(',').map(Number);

function redactAndGate(set: SecretSet, body: Buffer): Buffer {
  const counts = new Map<number, number>();
  const r = redactBody(set, body, 'json', counts);
  const findings = gateRequest(set, { target: '/v1/messages', headers: [], body: r.bytes, bodyKind: 'json' }, r.clean ? { scannedCleanBody: r.bytes } : {});
  if (findings.length > 0) throw new Error('bench: gate blocked');
  return r.bytes;
}

const rows: Array<Record<string, string | number>> = [];
for (const n of counts) {
  const secrets = makeSecrets(n);
  const set = buildSecretSet(Object.entries(secrets).map(([name, value]) => ({ name, value })), Buffer.alloc(32, 3));
  const planted = Object.values(secrets).slice(0, 8);
  for (const size of sizes) {
    const bytes = SIZES[size];
    const cases: Array<[string, Buffer, number]> = [
      ['no hits', makeMessagesBody(bytes), 0],
      ['8 hits', makeMessagesBody(bytes, { plant: planted }), 8],
      ['\\u escapes, 8 hits', makeMessagesBody(bytes, { plant: planted, asciiEscapes: true }), 8],
    ];
    const bench = new Bench({ time: 400, warmupTime: 100 });
    for (const [name, body, hits] of cases) {
      // Assert the output before timing it.
      const out = redactAndGate(set, body);
      if (hits === 0 && out !== body) throw new Error('bench: clean body was rewritten');
      if (hits > 0) for (const p of planted) if (out.includes(p)) throw new Error('bench: value survived');
      bench.add(name, () => {
        redactAndGate(set, body);
      });
    }
    await bench.run();
    for (const t of bench.tasks) {
      const body = cases.find((c) => c[0] === t.name)![1];
      const r = t.result;
      if (r === undefined || r.state !== 'completed') throw new Error(`bench: ${t.name} did not complete`);
      const p50 = r.latency.p50 ?? 0;
      rows.push({ secrets: n, size, case: t.name, 'p50 ms': p50.toFixed(3), 'p99 ms': (r.latency.p99 ?? 0).toFixed(3), 'ms/MB': (p50 / (body.length / 1e6)).toFixed(3), samples: r.latency.samplesCount });
    }
  }
}
console.log(`node ${process.version}, ${cpus()[0]?.model ?? 'cpu'} × ${cpus().length}`);
console.table(rows);
