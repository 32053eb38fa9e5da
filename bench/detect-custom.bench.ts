// What the config's own kinds cost in redact + gate: the built-in detection of today against the same
// with 100 custom detectors and 1,000 terms, with the three PII kinds, and with all of them, at 10,
// 1,000 and 10,000 registered secrets (the cost must stay flat in that count), in alternating rounds;
// then adversarial 1 and 4 MiB bodies made of the new anchors, to show the cost stays linear.
// Run: node --import tsx bench/detect-custom.bench.ts [--quick] [--secrets 10,1000,10000]

import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { Bench } from 'tinybench';
import { makeMessagesBody, makeSecrets, SIZES, type SizeName } from '../src/bench/corpus.ts';
import { machineInfo } from '../src/bench/machine.ts';
import { median } from '../src/bench/stats.ts';
import { base62, crc32 } from '../src/detect/checksum.ts';
import { customKind, type CustomRule } from '../src/detect/custom.ts';
import { createDetector } from '../src/detect/detector.ts';
import type { Kind } from '../src/detect/kind.ts';
import { piiKinds } from '../src/detect/pii/index.ts';
import { createDetectedStore } from '../src/detect/store.ts';
import { termKind, type TermInput } from '../src/detect/terms.ts';
import { redactBody } from '../src/redact/body.ts';
import { gateRequest } from '../src/redact/gate.ts';
import { buildSecretSet, type SecretSet } from '../src/redact/secret-set.ts';
import { mulberry32 } from '../src/util/prng.ts';

const { values } = parseArgs({ options: { quick: { type: 'boolean' }, secrets: { type: 'string' } }, strict: true });
const quick = values.quick === true;
const out = (s = ''): void => void process.stdout.write(`${s}\n`);
const KEY = Buffer.alloc(32, 7);

/** 100 rules: 90 by prefix (`orgNN_live_`, base62, 30–40 long, half with a CRC32), 10 by keyword. */
function customRules(): CustomRule[] {
  const rules: CustomRule[] = [];
  for (let i = 0; i < 90; i++) rules.push({ name: `org-${i}`, prefix: `org${i}_live_`, charset: 'A-Za-z0-9', length: [30, 40], checksum: i % 2 === 0 ? 'crc32-base62' : 'none' });
  for (let i = 0; i < 10; i++) rules.push({ name: `org-kw-${i}`, charset: '0-9a-f', length: [32, 32], keywords: [`org${i}_secret`] });
  return rules;
}

/** 1,000 made-up code names (consonant-vowel words with a `q`, `x` or `z`), 5 to 10 letters. */
function terms(): TermInput[] {
  const rnd = mulberry32(0x7e57);
  const cons = 'bcdfghjklmnprstvw';
  const vow = 'aeiou';
  const seen = new Set<string>();
  while (seen.size < 1000) {
    const len = 5 + Math.floor(rnd() * 6);
    let w = 'qxz'[Math.floor(rnd() * 3)]!;
    while (w.length < len) w += w.length % 2 === 1 ? vow[Math.floor(rnd() * vow.length)] : cons[Math.floor(rnd() * cons.length)];
    seen.add(w[0]!.toUpperCase() + w.slice(1));
  }
  return [...seen].map((value, i) => ({ name: `term-${i}`, value }));
}

const CONFIGS: Record<string, () => Kind[]> = {
  builtins: () => [],
  '+100 custom, 1k terms': () => [...customRules().map(customKind), termKind(terms())!],
  '+PII (card, iban, email)': () => piiKinds(['payment-card', 'iban', 'email'], []),
  '+all of them': () => [...customRules().map(customKind), ...piiKinds(['payment-card', 'iban', 'email'], []), termKind(terms())!],
};

function setFor(n: number, extra: Kind[]): SecretSet {
  const secrets = makeSecrets(n);
  const detection = { detector: createDetector(extra.length === 0 ? {} : { extra }), store: createDetectedStore(), mode: 'redact' as const };
  return buildSecretSet(Object.entries(secrets).map(([name, value]) => ({ name, value })), KEY, detection);
}

function redactAndGate(set: SecretSet, body: Buffer): Buffer {
  const r = redactBody(set, body, 'json', new Map());
  const findings = gateRequest(set, { target: '/v1/messages', headers: [], body: r.bytes, bodyKind: 'json' }, r.clean ? { scannedCleanBody: r.bytes } : {});
  if (findings.length > 0) throw new Error('bench: gate blocked a redacted body');
  return r.bytes;
}

async function time(fn: () => unknown, timeMs: number): Promise<number> {
  const bench = new Bench({ time: timeMs, warmupTime: 50, iterations: 5, warmupIterations: 2 });
  bench.add('x', fn);
  await bench.run();
  const r = bench.tasks[0]?.result;
  if (r === undefined || r.state !== 'completed') throw new Error('bench: a case did not complete');
  return r.latency.p50 ?? 0;
}

/** One value of each new kind: a custom token with its CRC32, two terms in other casings, a card, an IBAN, an email. */
function plantedValues(): string[] {
  const body = 'Q7vR2mXk9TzL4wNp8YcB3dHs';
  const t = terms();
  return [`org4_live_${body}${base62(crc32(Buffer.from(body)))}`, t[3]!.value.toUpperCase(), t[500]!.value.toLowerCase(), '4111 1111 1111 1111', 'DE89 3704 0044 0532 0130 00', 'jane.doe@corp-mail.io'];
}

const m = machineInfo();
out(`detect-custom bench — node ${m.node}, ${m.cpu} × ${m.cpus}, git ${m.gitSha}, load ${m.loadBefore} (machine shared with other jobs)`);
const rounds = quick ? 3 : 7;
const timeMs = quick ? 150 : 300;
const counts = values.secrets !== undefined ? values.secrets.split(',').map(Number) : quick ? [10, 10_000] : [10, 1000, 10_000];
const sizes: SizeName[] = quick ? ['500KiB'] : ['50KiB', '500KiB'];
out(`\n== redact + gate, detection on (${rounds} alternating rounds of ${timeMs} ms per case; median of per-round p50, ms; ratio to builtins) ==`);
const names = Object.keys(CONFIGS);
out(`${'case'.padEnd(26)} ${names.map((n) => n.padStart(26)).join('')}`);
const built = new Map<string, Kind[]>(names.map((n) => [n, CONFIGS[n]!()]));
for (const n of counts) {
  const sets = new Map(names.map((c) => [c, setFor(n, built.get(c)!)]));
  // With hits, every config gets 6 registered values to redact; the new kinds' configs 6 more of their own.
  const registered = Object.values(makeSecrets(n)).slice(0, 6);
  for (const size of sizes) {
    for (const hits of [false, true]) {
      const planted = hits ? [...registered, ...plantedValues()] : [];
      const body = makeMessagesBody(SIZES[size], { plant: planted });
      // Checked before timed: a clean body is untouched by every config; with hits, the registered values
      // are gone in every config and the new kinds' values in the config with all of them.
      for (const [c, set] of sets) {
        const o = redactAndGate(set, body);
        if (!hits && !o.equals(body)) throw new Error(`bench: ${c} rewrote a body without values`);
        const gone = c === '+all of them' ? planted : registered;
        if (hits) for (const [i, v] of gone.entries()) if (o.includes(v)) throw new Error(`bench: ${c} left planted value ${i}`);
      }
      const p50 = new Map<string, number[]>(names.map((c) => [c, []]));
      for (let r = 0; r < rounds; r++) {
        const order = r % 2 === 0 ? names : [...names].reverse();
        for (const c of order) p50.get(c)!.push(await time(() => redactAndGate(sets.get(c)!, body), timeMs));
      }
      const base = median(p50.get('builtins')!);
      const cells = names.map((c) => {
        const v = median(p50.get(c)!);
        return (c === 'builtins' ? `${v.toFixed(3)}` : `${v.toFixed(3)} (${(v / base).toFixed(2)}×)`).padStart(26);
      });
      out(`${`${n} secrets, ${size}${hits ? ', 6+6 hits' : ''}`.padEnd(26)} ${cells.join('')}`);
    }
  }
}

out('\n== adversarial bodies, all kinds on, 1,000 secrets (redact + gate; ms per MiB at 1 and 4 MiB: linear when equal) ==');
const set = setFor(1000, built.get('+all of them')!);
const MiB = 1024 * 1024;
const fill = (unit: string, size: number): Buffer => Buffer.from(JSON.stringify({ content: unit.repeat(Math.ceil(size / unit.length)).slice(0, size) }));
const adversarial: Array<[string, string]> = [
  ['digits (card anchors everywhere)', '4111 2222 3333 4444 5555 6666 7777 8888 '],
  ['one 1 MiB number', '4'],
  ['@ signs glued to words', 'a@b@c@d.e@f.g@'],
  ['IBAN-like runs', 'DE89 3704 0044 0532 0130 01 '],
  ['term prefixes (every casing)', `${terms()[0]!.value.slice(0, 3).toUpperCase()}${terms()[1]!.value.slice(0, 3)} `],
  ['glued custom prefixes', 'org1_live_org2_live_org3_live_'],
  ['keywords without values', 'org1_secret org2_secret = "'],
  // A built-in case from bench/detect.bench.ts, for scale in the same run and load.
  ['(built-in) glued anchors', 'ghp_ya29.eyJsk-ant-api03-AKIA'],
];
for (const [name, unit] of adversarial) {
  const ms: number[] = [];
  for (const size of [MiB, 4 * MiB]) {
    const body = fill(unit, size);
    const t0 = performance.now();
    redactAndGate(set, body);
    ms.push((performance.now() - t0) / (size / MiB));
  }
  out(`  ${name.padEnd(36)} ${ms.map((v) => `${v.toFixed(1)} ms/MiB`.padStart(14)).join('')}`);
}
out(`load after: ${loadavg()[0]!.toFixed(2)}`);
