// Microbenchmark of the byte automaton: build time and table memory at 10–10k patterns, and scan
// throughput over a 500 KiB request-like body with no hit, with a few, and over a base64 image blob.
// Run: node --import tsx bench/matcher.bench.ts

import { execSync } from 'node:child_process';
import { cpus } from 'node:os';
import { Bench } from 'tinybench';
import { createMatcher, type Matcher } from '../src/redact/matcher.ts';
import { mulberry32 } from '../src/util/prng.ts';

const PATTERN_COUNTS = [10, 100, 1_000, 10_000];
const BODY_BYTES = 500 * 1024;
const PLANTED_HITS = 8;


const enc = new TextEncoder();
const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Secret-shaped patterns of 20–40 bytes with real vendor prefixes. */
function makePatterns(n: number, seed: number): Uint8Array[] {
  const rnd = mulberry32(seed);
  const shapes = [
    { prefix: 'sk-ant-api03-', length: 40, chars: `${BASE62}-_` },
    { prefix: 'ghp_', length: 40, chars: BASE62 },
    { prefix: 'AKIA', length: 20, chars: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567' },
    { prefix: '', length: 40, chars: BASE62 },
  ];
  return Array.from({ length: n }, (_, i) => {
    const shape = shapes[i % shapes.length]!;
    let s = shape.prefix;
    while (s.length < shape.length) s += shape.chars[Math.floor(rnd() * shape.chars.length)];
    return enc.encode(s);
  });
}

/** A 500 KiB chat-completion-like body: JSON-escaped prose and code, including near-miss prefixes. */
function makeBody(seed: number): Uint8Array {
  const rnd = mulberry32(seed);
  const words = (
    'the proxy request response secret token config deploy build server client stream event error ' +
    'value field index message content tool function argument result cache retry timeout header key ' +
    'AKIA sk-ant ghp ask akin skip ghost 2024 v1 user assistant système naïve 日本語 données'
  ).split(' ');
  const code = [
    'const client = new Anthropic({ apiKey: process.env.ANTHROPIC_API_KEY });',
    'for (let i = 0; i < items.length; i++) { total += items[i].price * items[i].qty; }',
    'def handler(event, context):\n    return {"statusCode": 200, "body": json.dumps(event)}',
    'git commit -m "fix: retry on 529 overloaded" && git push origin HEAD',
    'SELECT id, name FROM users WHERE created_at > NOW() - INTERVAL \'7 days\';',
  ];
  const parts: string[] = ['{"model":"claude-sonnet-4-5","max_tokens":4096,"messages":['];
  let size = parts[0]!.length;
  while (size < BODY_BYTES) {
    let text = '';
    for (let k = 0; k < 40; k++) {
      const word = words[Math.floor(rnd() * words.length)]!;
      text += rnd() < 0.08 ? `\n${code[Math.floor(rnd() * code.length)]}\n` : `${word} `;
    }
    const msg = `${JSON.stringify({ role: rnd() < 0.5 ? 'user' : 'assistant', content: text })},`;
    parts.push(msg);
    size += Buffer.byteLength(msg);
  }
  const body = enc.encode(parts.join(''));
  return body.subarray(0, BODY_BYTES);
}

/** A 500 KiB base64 image block: random base64 text is the worst realistic case for the dense table. */
function makeBase64Body(seed: number): Uint8Array {
  const rnd = mulberry32(seed);
  const alphabet = `${BASE62}+/`;
  let s = '{"type":"image","source":{"type":"base64","media_type":"image/png","data":"';
  const chars: string[] = [];
  while (s.length + chars.length < BODY_BYTES) chars.push(alphabet[Math.floor(rnd() * 64)]!);
  s += chars.join('');
  return enc.encode(s).subarray(0, BODY_BYTES);
}

interface Row {
  patterns: number;
  buildMs: number;
  memoryMB: number;
  noHitMs: number;
  noHitP99Ms: number;
  hitMs: number;
  base64Ms: number;
}

function latency(bench: Bench, name: string): { p50: number; p99: number } {
  const task = bench.getTask(name);
  const result = task?.result;
  if (result === undefined || !('latency' in result)) throw new Error(`bench: ${name} has no result`);
  return { p50: result.latency.p50, p99: result.latency.p99 };
}

function assertScan(m: Matcher, body: Uint8Array, want: { id: number; end: number }[]): void {
  const list = m.scan(body);
  const got = Array.from({ length: list.count }, (_, i) => ({ id: list.ids[i]!, end: list.ends[i]! }));
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    throw new Error(`bench: wrong scan result (${list.count} hits, expected ${want.length})`);
  }
}

async function main(): Promise<void> {
  const body = makeBody(1);
  const base64Body = makeBase64Body(2);
  const rows: Row[] = [];
  for (const n of PATTERN_COUNTS) {
    const patterns = makePatterns(n, n);
    const matcher = createMatcher(patterns);

    // The same body with a few registered values written over it, spread out.
    const hitBody = body.slice();
    const want: { id: number; end: number }[] = [];
    for (let k = 0; k < PLANTED_HITS; k++) {
      const id = Math.floor((k * n) / PLANTED_HITS);
      const at = Math.floor(((k + 0.5) * BODY_BYTES) / PLANTED_HITS);
      hitBody.set(patterns[id]!, at);
      want.push({ id, end: at + patterns[id]!.length });
    }
    assertScan(matcher, body, []);
    assertScan(matcher, hitBody, want);
    assertScan(matcher, base64Body, []);

    const build = new Bench({ time: 1000, warmupTime: 200, iterations: 5 });
    build.add('build', () => void createMatcher(patterns));
    await build.run();

    const scan = new Bench({ time: 1500, warmupTime: 300 });
    scan.add('no-hit', () => void matcher.scan(body));
    scan.add('hits', () => void matcher.scan(hitBody));
    scan.add('base64', () => void matcher.scan(base64Body));
    await scan.run();

    const noHit = latency(scan, 'no-hit');
    rows.push({
      patterns: n,
      buildMs: latency(build, 'build').p50,
      memoryMB: matcher.memoryBytes / 1e6,
      noHitMs: noHit.p50,
      noHitP99Ms: noHit.p99,
      hitMs: latency(scan, 'hits').p50,
      base64Ms: latency(scan, 'base64').p50,
    });
  }

  let sha = 'unknown';
  try {
    sha = execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
  } catch {
    // Not a checkout: leave the sha unknown.
  }
  const mb = BODY_BYTES / 1e6;
  const cpu = `${cpus()[0]?.model ?? 'cpu?'} ×${cpus().length}`;
  console.log(`matcher bench — node ${process.version}, ${cpu}, git ${sha}`);
  console.log(`bodies 500KiB; ${PLANTED_HITS} planted hits in "hits"; tinybench p50 unless marked p99`);
  console.table(
    rows.map((r) => ({
      patterns: r.patterns,
      'build ms': r.buildMs.toFixed(1),
      'tables MB': r.memoryMB.toFixed(2),
      'no-hit ms': r.noHitMs.toFixed(3),
      'no-hit p99': r.noHitP99Ms.toFixed(3),
      'no-hit MB/s': Math.round(mb / (r.noHitMs / 1000)),
      'no-hit ms/MB': (r.noHitMs / mb).toFixed(3),
      'hits MB/s': Math.round(mb / (r.hitMs / 1000)),
      'hits ms/MB': (r.hitMs / mb).toFixed(3),
      'base64 MB/s': Math.round(mb / (r.base64Ms / 1000)),
    })),
  );
}

await main();
