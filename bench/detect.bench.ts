// Detection benchmark: precision and recall per kind on the generated corpus (fixtures/detect), what the
// detectors find in every text file of this project's node_modules (counts by kind, a few examples with
// the middle masked), and the cost of detection in redact + gate: on vs off in alternating rounds at 10
// and 10,000 secrets on 50 KiB and 500 KiB bodies (medians; the target is within 10 %).
// Run: node --import tsx bench/detect.bench.ts [--quick] [--skip-node-modules] [--skip-cost]

import { loadavg } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { Bench } from 'tinybench';
import { negatives, positives } from '../fixtures/detect/corpus.ts';
import { benchSecretSet, countLabel, MICRO_HITS } from '../src/bench/micro.ts';
import { makeMessagesBody, SIZES, type SizeName } from '../src/bench/corpus.ts';
import { machineInfo } from '../src/bench/machine.ts';
import { median } from '../src/bench/stats.ts';
import { createDetector } from '../src/detect/detector.ts';
import { createCredentialFinder } from '../src/detect/find.ts';
import { KINDS } from '../src/detect/kinds.ts';
import { redactBody } from '../src/redact/body.ts';
import { gateRequest } from '../src/redact/gate.ts';
import type { SecretSet } from '../src/redact/secret-set.ts';
import { walkFiles } from '../src/scan/walk.ts';

const { values } = parseArgs({ options: { quick: { type: 'boolean' }, 'skip-node-modules': { type: 'boolean' }, 'skip-cost': { type: 'boolean' } }, strict: true });
const quick = values.quick === true;
const out = (s = ''): void => void process.stdout.write(`${s}\n`);
const finder = createCredentialFinder(createDetector());

const m = machineInfo();
out(`detect bench — node ${m.node}, ${m.cpu} × ${m.cpus}, git ${m.gitSha}, load ${m.loadBefore} (machine shared with other jobs)`);

// ---- 1. Precision and recall per kind on the generated corpus ----
const stats = new Map<string, { tp: number; fn: number; fp: number }>(KINDS.map((k) => [k.name, { tp: 0, fn: 0, fp: 0 }]));
const labelled = [...positives(), ...negatives()];
for (const doc of labelled) {
  const found = finder.find(Buffer.from(doc.text, 'utf8'));
  for (const c of doc.credentials) {
    const s = stats.get(c.kind)!;
    if (found.some((f) => f.kind === c.kind && f.value === c.secret)) s.tp++;
    else s.fn++;
  }
  for (const f of found) if (!doc.credentials.some((c) => c.kind === f.kind && c.secret === f.value)) stats.get(f.kind)!.fp++;
}
const pct = (a: number, b: number): string => (b === 0 ? '—' : `${((100 * a) / b).toFixed(1)} %`);
let tp = 0;
let fn = 0;
let fp = 0;
out('\n== precision and recall per kind (generated corpus: every kind in 5 surroundings; hard negatives) ==');
out(`${'kind'.padEnd(34)} ${'found'.padStart(6)} ${'missed'.padStart(6)} ${'false+'.padStart(6)} ${'recall'.padStart(8)} ${'precision'.padStart(9)}`);
for (const [kind, s] of stats) {
  tp += s.tp;
  fn += s.fn;
  fp += s.fp;
  out(`${kind.padEnd(34)} ${String(s.tp).padStart(6)} ${String(s.fn).padStart(6)} ${String(s.fp).padStart(6)} ${pct(s.tp, s.tp + s.fn).padStart(8)} ${pct(s.tp, s.tp + s.fp).padStart(9)}`);
}
const negCount = negatives().length;
out(`${'all kinds'.padEnd(34)} ${String(tp).padStart(6)} ${String(fn).padStart(6)} ${String(fp).padStart(6)} ${pct(tp, tp + fn).padStart(8)} ${pct(tp, tp + fp).padStart(9)}`);
out(`(${positives().length} positive documents, ${negCount} hard-negative documents)`);
if (fn > 0 || fp > 0) process.exitCode = 1;

// ---- 2. Everything in node_modules ----
if (values['skip-node-modules'] !== true) {
  const root = join(import.meta.dirname, '..');
  // pnpm keeps every installed package under .pnpm (the top-level entries are symlinks into it); other
  // dot-directories are tool caches (vitest's holds this project's own test files).
  const dir = join(root, 'node_modules', '.pnpm');
  const byKind = new Map<string, number>();
  const examples: string[] = [];
  const t0 = performance.now();
  const counts = walkFiles([dir], 32 * 1024 * 1024, (file, bytes) => {
    for (const c of finder.find(bytes)) {
      byKind.set(c.kind, (byKind.get(c.kind) ?? 0) + 1);
      if (examples.length < 8) examples.push(`${relative(root, file)}: ${c.kind} ${mask(c.value)}`);
    }
  });
  const ms = performance.now() - t0;
  out('\n== every text file of node_modules ==');
  out(`${counts.files} files, ${(counts.bytes / 1e6).toFixed(1)} MB read in ${(ms / 1000).toFixed(1)} s (walk, read and detect; ${(counts.bytes / 1e6 / (ms / 1000)).toFixed(0)} MB/s); skipped ${counts.binary} binary, ${counts.huge} over 32 MiB`);
  const total = [...byKind.values()].reduce((a, b) => a + b, 0);
  out(`${total} detections${total === 0 ? '' : `: ${[...byKind].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ')}`}`);
  for (const e of examples) out(`  ${e}`);
}

// ---- 3. Cost: redact + gate, detection on vs off ----
if (values['skip-cost'] !== true) {
  const rounds = quick ? 3 : 7;
  const timeMs = quick ? 150 : 300;
  out(`\n== redact + gate, detection on vs off (${rounds} alternating rounds of ${timeMs} ms per case; median of per-round p50) ==`);
  out(`${'case'.padEnd(32)} ${'off ms'.padStart(9)} ${'on ms'.padStart(9)} ${'on/off'.padStart(8)}  (ms per MB off / on)`);
  const sizes: SizeName[] = ['50KiB', '500KiB'];
  for (const n of [10, 10_000]) {
    for (const size of sizes) {
      for (const variant of ['clean', 'hits', 'u-escapes'] as const) {
        const hits = variant !== 'clean';
        const off = benchSecretSet(n, false);
        const on = benchSecretSet(n, true);
        const planted = hits ? spread(off.values, MICRO_HITS) : [];
        const body = makeMessagesBody(SIZES[size], { plant: planted, asciiEscapes: variant === 'u-escapes' });
        check(off.set, body, planted);
        check(on.set, body, planted);
        const p50 = { off: [] as number[], on: [] as number[] };
        for (let r = 0; r < rounds; r++) {
          const order: Array<'off' | 'on'> = r % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
          for (const which of order) p50[which].push(await time(() => redactAndGate(which === 'on' ? on.set : off.set, body), timeMs));
        }
        const a = median(p50.off);
        const b = median(p50.on);
        const mb = body.length / 1e6;
        out(`${`${countLabel(n)} secrets, ${size}${hits ? `, ${MICRO_HITS} hits` : ''}${variant === 'u-escapes' ? ', \\u' : ''}`.padEnd(32)} ${a.toFixed(3).padStart(9)} ${b.toFixed(3).padStart(9)} ${(b / a).toFixed(3).padStart(8)}  (${(a / mb).toFixed(2)} / ${(b / mb).toFixed(2)})`);
      }
    }
  }
  out(`load after: ${loadavg()[0]!.toFixed(2)}`);
}

function redactAndGate(set: SecretSet, body: Buffer): Buffer {
  const r = redactBody(set, body, 'json', new Map());
  const findings = gateRequest(set, { target: '/v1/messages', headers: [], body: r.bytes, bodyKind: 'json' }, r.clean ? { scannedCleanBody: r.bytes } : {});
  if (findings.length > 0) throw new Error('bench: gate blocked a redacted body');
  return r.bytes;
}

/** Asserts the output before timing it: planted values gone, a clean body untouched. */
function check(set: SecretSet, body: Buffer, planted: readonly string[]): void {
  const out = redactAndGate(set, body);
  if (planted.length === 0 && !out.equals(body)) throw new Error('bench: a body without credentials was rewritten');
  for (const v of planted) if (out.includes(v)) throw new Error('bench: a planted value survived');
}

async function time(fn: () => unknown, timeMs: number): Promise<number> {
  const bench = new Bench({ time: timeMs, warmupTime: 50, iterations: 5, warmupIterations: 2 });
  bench.add('x', fn);
  await bench.run();
  const r = bench.tasks[0]?.result;
  if (r === undefined || r.state !== 'completed') throw new Error('bench: a case did not complete');
  return r.latency.p50 ?? 0;
}

function spread<T>(list: readonly T[], k: number): T[] {
  return Array.from({ length: k }, (_, i) => list[Math.floor((i * list.length) / k)] as T);
}

/** First 6 and last 2 characters: enough to recognise a known test value, not enough to use a real one. */
function mask(value: string): string {
  const v = value.replace(/\s+/g, ' ');
  return v.length <= 10 ? `${'*'.repeat(v.length)} (${v.length} chars)` : `${v.slice(0, 6)}…${v.slice(-2)} (${v.length} chars)`;
}

// ---- 4. Adversarial inputs: every stage stays linear (DESIGN §1: ≤ ~50 ms per MB of event-loop time) ----
if (values['skip-cost'] !== true) {
  const MB = 1024 * 1024;
  const fill = (unit: string): Buffer => Buffer.from(JSON.stringify({ content: unit.repeat(Math.ceil(MB / unit.length)).slice(0, MB) }));
  const adversarial: Array<[string, Buffer]> = [
    ['glued anchors (ghp_ya29.eyJ…)', fill('ghp_ya29.eyJsk-ant-api03-AKIA')],
    ['one long token-alphabet run', fill('ya29.aB3dE5gH7jK9mN1pQ3sT5vW7yZ')],
    ['AWS key ids, each with a window', fill('AKIAZ7Q2WXN4KD3LPRST ')],
    ['AWS key ids and secret keys', fill('AKIAZ7Q2WXN4KD3LPRST AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCd\n')],
    ['URLs with user info', fill('https://u:pw@h ')],
    ['BEGIN lines without END', fill('-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n')],
    ['JWT headers without payloads', fill('eyJhbGciOiJIUzI1NiJ9.')],
  ];
  const set = benchSecretSet(1000, true).set;
  out('\n== adversarial 1 MiB bodies, detection on, 1,000 secrets (redact + gate) ==');
  for (const [name, body] of adversarial) {
    const t0 = performance.now();
    const r = redactBody(set, body, 'json', new Map());
    gateRequest(set, { target: '/v1/messages', headers: [], body: r.bytes, bodyKind: 'json' }, r.clean ? { scannedCleanBody: r.bytes } : {});
    out(`  ${name.padEnd(34)} ${(performance.now() - t0).toFixed(1)} ms`);
  }
}
