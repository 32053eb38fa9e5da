// Microbenchmark cases for the hot path, shared by `pnpm bench` (the full grid) and `ficta bench` (a
// subset): automaton build and scan, redact + gate as the proxy runs them, and JSON / SSE restore fed
// in network-sized chunks. Every case checks its output once before it is timed.

import { Bench } from 'tinybench';
import { createDetector } from '../detect/detector.ts';
import { createDetectedStore } from '../detect/store.ts';
import { anthropicMessages } from '../providers/anthropic-messages.ts';
import { generic } from '../providers/generic.ts';
import { redactBody } from '../redact/body.ts';
import { gateRequest } from '../redact/gate.ts';
import { createMatcher } from '../redact/matcher.ts';
import { buildSecretSet, type SecretSet } from '../redact/secret-set.ts';
import { createBodyRestorer, type ChunkTransform } from '../restore/body-restorer.ts';
import { createRestoreStats } from '../restore/restore-bytes.ts';
import { createSseRestorer } from '../restore/sse-restorer.ts';
import { makeMessagesBody, makeMessagesResponse, makeMessagesSse, makeSecrets, SIZES, streamedText, type SizeName } from './corpus.ts';
import { summarize, type Summary } from './stats.ts';

/** One timed operation; its inputs are built only when it runs (filtered-out cases cost nothing). */
export interface MicroCase {
  /** `micro/<operation>/<variant>/<secrets>/<size>`. */
  name: string;
  prepare(): PreparedCase;
}

export interface PreparedCase {
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

const sets = new Map<string, { set: SecretSet; values: string[] }>();

/** The compiled set of `n` corpus secrets, with detection on or off (cached; built once per process). */
export function benchSecretSet(n: number, detect = false): { set: SecretSet; values: string[] } {
  const key = `${n}:${detect}`;
  let s = sets.get(key);
  if (s === undefined) {
    const secrets = makeSecrets(n);
    const detection = detect ? { detector: createDetector(), store: createDetectedStore(), mode: 'redact' as const } : undefined;
    const set = buildSecretSet(Object.entries(secrets).map(([name, value]) => ({ name, value })), BENCH_PLACEHOLDER_KEY, detection);
    s = { set, values: Object.values(secrets) };
    sets.set(key, s);
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
    const matcherName = `micro/matcher-build/raw/${countLabel(n)}`;
    const setName = `micro/secret-set-build/all-forms/${countLabel(n)}`;
    const patterns = (): Buffer[] => benchSecretSet(n).set.values.map((v) => Buffer.from(v, 'utf8'));
    return [
      {
        name: matcherName,
        prepare: () => {
          const p = patterns();
          return {
            bytes: 0,
            fn: () => createMatcher(p),
            check: () => {
              if (createMatcher(p).patternCount !== p.length) fail(matcherName, 'wrong pattern count');
            },
          };
        },
      },
      {
        name: setName,
        prepare: () => {
          const { set } = benchSecretSet(n);
          const entries = set.values.map((value, i) => ({ name: `SECRET_${i}`, value }));
          return {
            bytes: 0,
            fn: () => buildSecretSet(entries, BENCH_PLACEHOLDER_KEY),
            check: () => {
              const built = buildSecretSet(entries, BENCH_PLACEHOLDER_KEY);
              if (built.size !== n || built.placeholders[0] !== set.placeholders[0]) fail(setName, 'wrong set');
            },
          };
        },
      },
    ];
  });
}

/** Raw automaton scan of a request body with no registered value in it. */
export function matcherScanCases(counts: readonly number[], sizes: readonly SizeName[]): MicroCase[] {
  return grid(counts, sizes).map(([n, size]) => {
    const name = `micro/matcher-scan/no-hits/${countLabel(n)}/${size}`;
    return {
      name,
      prepare: () => {
        const { set } = benchSecretSet(n);
        const body = makeMessagesBody(SIZES[size]);
        return {
          bytes: body.length,
          fn: () => set.matcher.scan(body),
          check: () => {
            if (set.matcher.scan(body).count !== 0) fail(name, 'found a value in a clean body');
          },
        };
      },
    };
  });
}

/** Redact + gate (inspect → replace → gate on the exact bytes): no hits, hits, and a `\u`-escaped body with hits. */
export function redactGateCases(counts: readonly number[], sizes: readonly SizeName[]): MicroCase[] {
  return redactGateGrid(counts, sizes, false);
}

/** The same cases with detection on (its anchors in the automaton, hits confirmed by grammar). */
export function detectRedactGateCases(counts: readonly number[], sizes: readonly SizeName[]): MicroCase[] {
  return redactGateGrid(counts, sizes, true);
}

function redactGateGrid(counts: readonly number[], sizes: readonly SizeName[], detect: boolean): MicroCase[] {
  const variants = ['no-hits', 'hits', 'u-escapes-hits'] as const;
  return grid(counts, sizes).flatMap(([n, size]) =>
    variants.map((variant): MicroCase => {
      const name = `micro/redact-gate${detect ? '-detect' : ''}/${variant}/${countLabel(n)}/${size}`;
      return {
        name,
        prepare: () => {
          const { set, values } = benchSecretSet(n, detect);
          const planted = spread(values, MICRO_HITS);
          const body =
            variant === 'no-hits' ? makeMessagesBody(SIZES[size]) : makeMessagesBody(SIZES[size], { plant: planted, asciiEscapes: variant === 'u-escapes-hits' });
          return {
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
          };
        },
      };
    }),
  );
}

/** JSON and SSE response restore: no placeholder, and placeholders split across chunks (and, for SSE, across events). */
export function restoreCases(counts: readonly number[], sizes: readonly SizeName[]): MicroCase[] {
  return grid(counts, sizes).flatMap(([n, size]): MicroCase[] => {
    const label = `${countLabel(n)}/${size}`;
    const inputs = (): { set: SecretSet; planted: string[]; placeholders: string[] } => {
      const { set, values } = benchSecretSet(n);
      const planted = spread(values, MICRO_HITS);
      return { set, planted, placeholders: planted.map((v) => set.placeholders[set.values.indexOf(v)] as string) };
    };
    const cleanName = `micro/restore-json/no-placeholders/${label}`;
    const jsonName = `micro/restore-json/placeholders/${label}`;
    const sseName = `micro/restore-sse/split-placeholders/${label}`;
    return [
      {
        name: cleanName,
        prepare: () => {
          const { set } = inputs();
          const clean = makeMessagesResponse(SIZES[size]);
          const cleanChunks = chunks(clean, RESTORE_CHUNK_BYTES);
          const run = (): Buffer[] => feed(createBodyRestorer(set, 'json', createRestoreStats()), cleanChunks);
          return {
            bytes: clean.length,
            fn: run,
            check: () => {
              const got = run();
              if (got.length !== cleanChunks.length || got.some((b, i) => b !== cleanChunks[i])) fail(cleanName, 'clean chunks were not passed through as they came');
            },
          };
        },
      },
      {
        name: jsonName,
        prepare: () => {
          const { set, planted, placeholders } = inputs();
          const json = makeMessagesResponse(SIZES[size], placeholders);
          const jsonChunks = chunks(json, RESTORE_CHUNK_BYTES);
          const run = (): Buffer[] => feed(createBodyRestorer(set, 'json', createRestoreStats()), jsonChunks);
          return {
            bytes: json.length,
            fn: run,
            check: () => {
              let want = json.toString('utf8');
              placeholders.forEach((p, i) => (want = want.replace(p, planted[i] as string)));
              if (Buffer.concat(run()).toString('utf8') !== want) fail(jsonName, 'restored body differs from the expected one');
            },
          };
        },
      },
      {
        name: sseName,
        prepare: () => {
          const { set, planted, placeholders } = inputs();
          const sse = makeMessagesSse(SIZES[size], 1, placeholders);
          const sseBody = Buffer.concat([sse.head, ...sse.ticks, sse.tail]);
          const sseChunks = chunks(sseBody, RESTORE_CHUNK_BYTES);
          const run = (): Buffer[] => feed(createSseRestorer(set, anthropicMessages, createRestoreStats(), { maxEventBytes: 32 * 1024 * 1024 }), sseChunks);
          return {
            bytes: sseBody.length,
            fn: run,
            check: () => {
              let want = sse.text;
              placeholders.forEach((p, i) => (want = want.replace(p, planted[i] as string)));
              if (streamedText(Buffer.concat(run())) !== want) fail(sseName, 'restored text differs from the expected one');
            },
          };
        },
      },
    ];
  });
}

/** Bytes of one `data:` line in the many-lines SSE shape (issue 9: `data: x` + LF). */
const SHAPE_LINE_BYTES = 8;
/** Bytes of text per placeholder in the JSON-text shape (500 KiB holds ~8,000, the figure). */
const SHAPE_TEXT_BYTES_PER_PLACEHOLDER = 64;

/**
 * Shapes that were quadratic before the forward lexer and the incremental SSE framing (issue 9, item
 * 13): one SSE event made of many 8-byte `data:` lines (a few holding placeholders), and one JSON
 * response whose tool-call arguments (JSON text in a string) hold a placeholder every 64 bytes.
 */
export function restoreShapeCases(n: number, lineSizes: readonly SizeName[], textSizes: readonly SizeName[]): MicroCase[] {
  const lines = lineSizes.map((size): MicroCase => {
    const name = `micro/restore-sse/one-event-8-byte-lines/${countLabel(n)}/${size}`;
    return {
      name,
      prepare: () => {
        const { set, values } = benchSecretSet(n);
        const planted = spread(values, MICRO_HITS);
        const placeholders = planted.map((v) => set.placeholders[set.values.indexOf(v)] as string);
        const count = Math.floor(SIZES[size] / SHAPE_LINE_BYTES);
        const every = Math.floor(count / (MICRO_HITS + 1));
        const parts: string[] = [];
        for (let i = 0; i < count; i++) parts.push(i > 0 && i % every === 0 && i / every <= MICRO_HITS ? `data: ${placeholders[i / every - 1] as string}\n` : `data: ${String.fromCharCode(97 + (i % 26))}\n`);
        const text = `${parts.join('')}\n`;
        const body = Buffer.from(text);
        const input = chunks(body, RESTORE_CHUNK_BYTES);
        let want = text;
        placeholders.forEach((p, i) => (want = want.replace(p, planted[i] as string)));
        const run = (): Buffer[] => feed(createSseRestorer(set, generic, createRestoreStats(), { maxEventBytes: 64 * 1024 * 1024 }), input);
        return {
          bytes: body.length,
          fn: run,
          check: () => {
            if (Buffer.concat(run()).toString('utf8') !== want) fail(name, 'restored event differs from the expected one');
          },
        };
      },
    };
  });
  const texts = textSizes.map((size): MicroCase => {
    const name = `micro/restore-json/json-text-placeholders/${countLabel(n)}/${size}`;
    return {
      name,
      prepare: () => {
        const { set, values } = benchSecretSet(n);
        const count = Math.floor(SIZES[size] / SHAPE_TEXT_BYTES_PER_PLACEHOLDER);
        const planted = spread(values, Math.min(count, values.length));
        const words: string[] = [];
        const wantWords: string[] = [];
        for (let i = 0; i < count; i++) {
          const v = planted[i % planted.length] as string;
          const pad = 'lorem ipsum dolor sit amet'.slice(0, SHAPE_TEXT_BYTES_PER_PLACEHOLDER - 32);
          words.push(`${pad} ${set.placeholders[set.values.indexOf(v)] as string}`);
          wantWords.push(`${pad} ${v}`);
        }
        const args = JSON.stringify({ path: 'notes.md', content: words.join('\n') });
        const body = Buffer.from(JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'write_file', arguments: args } }] }, finish_reason: 'tool_calls' }] }));
        const input = chunks(body, RESTORE_CHUNK_BYTES);
        const want = wantWords.join('\n');
        const run = (): Buffer[] => feed(createBodyRestorer(set, 'json', createRestoreStats()), input);
        return {
          bytes: body.length,
          fn: run,
          check: () => {
            const out = JSON.parse(Buffer.concat(run()).toString('utf8')) as { choices: Array<{ message: { tool_calls: Array<{ function: { arguments: string } }> } }> };
            const got = JSON.parse(out.choices[0]?.message.tool_calls[0]?.function.arguments ?? '{}') as { content?: string };
            if (got.content !== want) fail(name, 'restored arguments differ from the expected ones');
          },
        };
      },
    };
  });
  return [...lines, ...texts];
}

function grid(counts: readonly number[], sizes: readonly SizeName[]): Array<[number, SizeName]> {
  return counts.flatMap((n) => sizes.map((size): [number, SizeName] => [n, size]));
}

/** Prepares and checks each case, then times it with tinybench; `timeMs` per case after `warmupMs`. */
export async function runMicro(cases: readonly MicroCase[], options: { timeMs: number; warmupMs: number; onResult?: (r: MicroResult) => void }): Promise<MicroResult[]> {
  const results: MicroResult[] = [];
  for (const c of cases) {
    const prepared = c.prepare();
    prepared.check();
    // One Bench per case: a case's garbage is not collected on the next case's clock.
    const bench = new Bench({ time: options.timeMs, warmupTime: options.warmupMs, iterations: 5, warmupIterations: 2, retainSamples: true });
    bench.add(c.name, prepared.fn);
    await bench.run();
    const r = bench.tasks[0]?.result;
    if (r === undefined || r.state !== 'completed') throw new Error(`bench: ${c.name} did not complete`);
    const s = summarize(r.latency.samples ?? []);
    const result: MicroResult = { name: c.name, unit: 'ms', ...s, ...(prepared.bytes > 0 ? { msPerMB: s.p50 / (prepared.bytes / 1e6) } : {}) };
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
