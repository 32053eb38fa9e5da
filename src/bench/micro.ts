// Microbenchmark cases for the hot path, shared by `pnpm bench` (the full grid) and `ficta bench` (a
// subset): automaton build and scan, redact + gate as the proxy runs them, and JSON / SSE restore fed
// in network-sized chunks. Every case checks its output once before it is timed.

import { Bench } from 'tinybench';
import { anthropicMessages } from '../providers/anthropic-messages.ts';
import { redactBody } from '../redact/body.ts';
import { gateRequest } from '../redact/gate.ts';
import { createMatcher } from '../redact/matcher.ts';
import { buildSecretSet, type SecretSet } from '../redact/secret-set.ts';
import { createBodyRestorer, type ChunkTransform } from '../restore/body-restorer.ts';
import { createRestoreStats } from '../restore/restore-bytes.ts';
import { createSseRestorer } from '../restore/sse-restorer.ts';
import { makeMessagesBody, makeMessagesResponse, makeMessagesSse, makeSecrets, SIZES, streamedText, type SizeName } from './corpus.ts';
import { summarize, type Summary } from './stats.ts';

/** One timed operation. */
export interface MicroCase {
  /** `micro/<operation>/<variant>/<secrets>/<size>`. */
  name: string;
  /** Input bytes per call (0 when a rate makes no sense, e.g. a build). */
  bytes: number;
  fn: () => unknown;
  /** Throws when the operation's output is wrong. */
  check: () => void;
}

export interface MicroResult extends Summary {
  name: string;
  unit: 'ms';
  /** p50 per 10^6 input bytes, when the case has an input size. */
  msPerMB?: number;
}

/** Registered values planted in request bodies and placeholders planted in responses. */
export const MICRO_HITS = 8;

/** Chunk size the restore cases are fed in (a typical TCP read on loopback is 16–64 KiB). */
const RESTORE_CHUNK_BYTES = 16 * 1024;

/** A fixed placeholder key: the benchmark must produce the same placeholders every run. */
export const BENCH_PLACEHOLDER_KEY = Buffer.alloc(32, 0x5a);

const sets = new Map<number, { set: SecretSet; values: string[] }>();

/** The compiled set of `n` corpus secrets (cached; built once per process). */
export function benchSecretSet(n: number): { set: SecretSet; values: string[] } {
  let s = sets.get(n);
  if (s === undefined) {
    const secrets = makeSecrets(n);
    const set = buildSecretSet(Object.entries(secrets).map(([name, value]) => ({ name, value })), BENCH_PLACEHOLDER_KEY);
    s = { set, values: Object.values(secrets) };
    sets.set(n, s);
  }
  return s;
}

/** `1k` for 1000, `10k` for 10,000. */
export function countLabel(n: number): string {
  return n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n);
}

function fail(name: string, what: string): never {
  throw new Error(`bench: ${name}: ${what}`);
}

function redactAndGate(set: SecretSet, body: Buffer): Buffer {
  const r = redactBody(set, body, 'json', new Map());
  const findings = gateRequest(set, { target: '/v1/messages', headers: [], body: r.bytes, bodyKind: 'json' }, r.clean ? { scannedCleanBody: r.bytes } : {});
  if (findings.length > 0) throw new Error('bench: gate blocked a redacted body');
  return r.bytes;
}

/** Automaton build over the raw values, and the whole secret-set compile a reload does (every form, placeholders). */
export function buildCases(counts: readonly number[]): MicroCase[] {
  return counts.flatMap((n) => {
    const { set } = benchSecretSet(n);
    const patterns = set.values.map((v) => Buffer.from(v, 'utf8'));
    const entries = set.values.map((value, i) => ({ name: `SECRET_${i}`, value }));
    const matcherName = `micro/matcher-build/raw/${countLabel(n)}`;
    const setName = `micro/secret-set-build/all-forms/${countLabel(n)}`;
    return [
      {
        name: matcherName,
        bytes: 0,
        fn: () => createMatcher(patterns),
        check: () => {
          if (createMatcher(patterns).patternCount !== patterns.length) fail(matcherName, 'wrong pattern count');
        },
      },
      {
        name: setName,
        bytes: 0,
        fn: () => buildSecretSet(entries, BENCH_PLACEHOLDER_KEY),
        check: () => {
          const built = buildSecretSet(entries, BENCH_PLACEHOLDER_KEY);
          if (built.size !== n || built.placeholders[0] !== set.placeholders[0]) fail(setName, 'wrong set');
        },
      },
    ];
  });
}

/** Raw automaton scan of a request body with no registered value in it. */
export function matcherScanCases(counts: readonly number[], sizes: readonly SizeName[]): MicroCase[] {
  const out: MicroCase[] = [];
  for (const n of counts) {
    const { set } = benchSecretSet(n);
    for (const size of sizes) {
      const body = makeMessagesBody(SIZES[size]);
      const name = `micro/matcher-scan/no-hits/${countLabel(n)}/${size}`;
      out.push({
        name,
        bytes: body.length,
        fn: () => set.matcher.scan(body),
        check: () => {
          if (set.matcher.scan(body).count !== 0) fail(name, 'found a value in a clean body');
        },
      });
    }
  }
  return out;
}

/** Redact + gate (inspect → replace → gate on the exact bytes): no hits, hits, and a `\u`-escaped body with hits. */
export function redactGateCases(counts: readonly number[], sizes: readonly SizeName[]): MicroCase[] {
  const out: MicroCase[] = [];
  for (const n of counts) {
    const { set, values } = benchSecretSet(n);
    const planted = spread(values, MICRO_HITS);
    for (const size of sizes) {
      const variants: Array<[string, Buffer]> = [
        ['no-hits', makeMessagesBody(SIZES[size])],
        ['hits', makeMessagesBody(SIZES[size], { plant: planted })],
        ['u-escapes-hits', makeMessagesBody(SIZES[size], { plant: planted, asciiEscapes: true })],
      ];
      for (const [variant, body] of variants) {
        const name = `micro/redact-gate/${variant}/${countLabel(n)}/${size}`;
        out.push({
          name,
          bytes: body.length,
          fn: () => redactAndGate(set, body),
          check: () => {
            const r = redactAndGate(set, body);
            if (variant === 'no-hits') {
              if (r !== body) fail(name, 'a clean body was rewritten');
              return;
            }
            for (const v of planted) if (r.includes(v)) fail(name, 'a planted value survived');
            const placeholders = planted.map((v) => set.placeholders[set.values.indexOf(v)] as string);
            for (const p of placeholders) if (!r.includes(p)) fail(name, 'a planted value was not replaced by its placeholder');
          },
        });
      }
    }
  }
  return out;
}

/** JSON and SSE response restore with placeholders (split across chunks and, for SSE, across events). */
export function restoreCases(counts: readonly number[], sizes: readonly SizeName[]): MicroCase[] {
  const out: MicroCase[] = [];
  for (const n of counts) {
    const { set, values } = benchSecretSet(n);
    const planted = spread(values, MICRO_HITS);
    const placeholders = planted.map((v) => set.placeholders[set.values.indexOf(v)] as string);
    for (const size of sizes) {
      const clean = makeMessagesResponse(SIZES[size]);
      const cleanChunks = chunks(clean, RESTORE_CHUNK_BYTES);
      const cleanName = `micro/restore-json/no-placeholders/${countLabel(n)}/${size}`;
      const runClean = (): Buffer[] => feed(createBodyRestorer(set, 'json', createRestoreStats()), cleanChunks);
      out.push({
        name: cleanName,
        bytes: clean.length,
        fn: runClean,
        check: () => {
          const got = runClean();
          if (got.length !== cleanChunks.length || got.some((b, i) => b !== cleanChunks[i])) fail(cleanName, 'clean chunks were not passed through as they came');
        },
      });

      const json = makeMessagesResponse(SIZES[size], placeholders);
      const jsonChunks = chunks(json, RESTORE_CHUNK_BYTES);
      const jsonName = `micro/restore-json/placeholders/${countLabel(n)}/${size}`;
      const runJson = (): Buffer[] => feed(createBodyRestorer(set, 'json', createRestoreStats()), jsonChunks);
      out.push({
        name: jsonName,
        bytes: json.length,
        fn: runJson,
        check: () => {
          const got = Buffer.concat(runJson()).toString('utf8');
          let want = json.toString('utf8');
          placeholders.forEach((p, i) => (want = want.replace(p, planted[i] as string)));
          if (got !== want) fail(jsonName, 'restored body differs from the expected one');
        },
      });

      const sse = makeMessagesSse(SIZES[size], 1, placeholders);
      const sseBody = Buffer.concat([sse.head, ...sse.ticks, sse.tail]);
      const sseChunks = chunks(sseBody, RESTORE_CHUNK_BYTES);
      const sseName = `micro/restore-sse/split-placeholders/${countLabel(n)}/${size}`;
      const runSse = (): Buffer[] => feed(createSseRestorer(set, anthropicMessages, createRestoreStats(), { maxEventBytes: 32 * 1024 * 1024 }), sseChunks);
      out.push({
        name: sseName,
        bytes: sseBody.length,
        fn: runSse,
        check: () => {
          let want = sse.text;
          placeholders.forEach((p, i) => (want = want.replace(p, planted[i] as string)));
          if (streamedText(Buffer.concat(runSse())) !== want) fail(sseName, 'restored text differs from the expected one');
        },
      });
    }
  }
  return out;
}

/** Checks every case, then times each with tinybench; `timeMs` per case after `warmupMs`. */
export async function runMicro(cases: readonly MicroCase[], options: { timeMs: number; warmupMs: number; onResult?: (r: MicroResult) => void }): Promise<MicroResult[]> {
  for (const c of cases) c.check();
  const results: MicroResult[] = [];
  for (const c of cases) {
    // One Bench per case: a case's garbage is not collected on the next case's clock.
    const bench = new Bench({ time: options.timeMs, warmupTime: options.warmupMs, iterations: 5, warmupIterations: 2, retainSamples: true });
    bench.add(c.name, c.fn);
    await bench.run();
    const task = bench.tasks[0];
    const r = task?.result;
    if (r === undefined || r.state !== 'completed') throw new Error(`bench: ${c.name} did not complete`);
    const s = summarize(r.latency.samples ?? []);
    const result: MicroResult = { name: c.name, unit: 'ms', ...s, ...(c.bytes > 0 ? { msPerMB: s.p50 / (c.bytes / 1e6) } : {}) };
    results.push(result);
    options.onResult?.(result);
  }
  return results;
}

function spread<T>(list: readonly T[], k: number): T[] {
  return Array.from({ length: k }, (_, i) => list[Math.floor((i * list.length) / k)] as T);
}

function chunks(buf: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < buf.length; i += size) out.push(buf.subarray(i, i + size));
  return out;
}

function feed(t: ChunkTransform, input: readonly Buffer[]): Buffer[] {
  const out: Buffer[] = [];
  for (const c of input) for (const p of t.push(c)) out.push(p);
  for (const p of t.end()) out.push(p);
  return out;
}
