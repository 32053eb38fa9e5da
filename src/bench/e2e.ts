// The end-to-end harness: a mock upstream, ficta (passthrough and redacting) and optionally another
// proxy, each in its own process, driven over loopback by the load client in this process. Targets
// are measured in interleaved rounds (the order rotates every round), so load on a shared machine
// falls on all of them alike and "added latency" compares with a direct connection measured in the
// same minutes. Each target is verified (leak count at the upstream, placeholders restored) first.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Pool } from 'undici';
import { FictaError } from '../errors.ts';
import { derivePlaceholder } from '../redact/placeholder.ts';
import { makeMessagesBody, makeSecrets, SIZES, streamedText, TOOL_MARKS, type SizeName } from './corpus.ts';
import { createPool, runBatch, send, type RequestSpec, type Timing } from './load-client.ts';
import { BENCH_PLACEHOLDER_KEY, countLabel } from './micro.ts';
import { CHECK_HEADER, LEAKS_HEADER, REPLY_HEADER, type MockUpstreamConfig } from './mock-upstream.ts';
import { closeAllocWindow } from './alloc-probe.ts';
import { cpuTimeMs, memory } from './proc.ts';
import { freePort, spawnChild, type Child } from './processes.ts';
import { diffOfMedians, summarize, type Summary } from './stats.ts';
import { ownScriptArgs } from '../util/own-script.ts';

/** `smoke` (tests: seconds, figures meaningless), `quick` (under a minute) or `full`. */
export type BenchMode = 'smoke' | 'quick' | 'full';

/** How much each mode measures. */
export interface E2ePlan {
  formats: Array<'json' | 'sse'>;
  sizes: SizeName[];
  concurrency: number[];
  /** Secret counts of the redacting ficta targets (default config). */
  redactCounts: number[];
  /** Also measure ficta with no secrets but the default watermark stage (isolates its cost). */
  watermarkOnly: boolean;
  /** Only scenarios whose name contains this. */
  filter?: string;
  /** Timed requests per target and scenario, by format and concurrency 1 / many. */
  samples: Record<'json' | 'sse', { one: number; many: number }>;
  /**
   * Untimed requests per target before each scenario (JIT, connections). A fresh proxy's CPU per
   * request still includes V8 compiling its hot paths after 60 requests: quick runs read 0.60 ms at
   * c16 where the full run, warmed by 1,650 requests, read 0.38.
   */
  warmup: Record<'json' | 'sse', number>;
  rounds: number;
  /** Also measure a stream with text and two tool calls, the second carrying a placeholder (`e2e/sse-tool`). */
  toolCalls?: boolean;
  /** Cap on one batch's wall time, so a slow proxy cannot stall the run. */
  batchMaxMs: number;
  stream: Pick<MockUpstreamConfig, 'firstTokenMs' | 'gapMs' | 'ticks'>;
}

/**
 * Stream pacing: the first text delta 5 ms after the headers, then 9 more groups 1 ms apart. Real
 * models take 0.3–3 s to the first token; the gap only has to be long enough that ficta's work on one
 * group is done before the next arrives, and short enough to keep runs quick.
 */
const STREAM = { firstTokenMs: 5, gapMs: 1, ticks: 10 } as const;

/** The end-to-end plan of each mode. */
export const PLANS: Record<BenchMode, E2ePlan> = {
  smoke: {
    formats: ['json', 'sse'],
    sizes: ['50KiB'],
    concurrency: [1, 16],
    redactCounts: [1_000],
    watermarkOnly: false,
    samples: { json: { one: 12, many: 32 }, sse: { one: 6, many: 32 } },
    warmup: { json: 4, sse: 4 },
    rounds: 2,
    toolCalls: true,
    batchMaxMs: 5_000,
    stream: STREAM,
  },
  quick: {
    formats: ['json', 'sse'],
    sizes: ['50KiB'],
    concurrency: [1, 16],
    redactCounts: [1_000],
    watermarkOnly: false,
    samples: { json: { one: 400, many: 1_600 }, sse: { one: 80, many: 320 } },
    warmup: { json: 400, sse: 40 },
    rounds: 4,
    toolCalls: true,
    batchMaxMs: 10_000,
    stream: STREAM,
  },
  full: {
    formats: ['json', 'sse'],
    sizes: ['50KiB', '500KiB'],
    concurrency: [1, 16],
    redactCounts: [100, 1_000],
    watermarkOnly: true,
    samples: { json: { one: 1_500, many: 6_000 }, sse: { one: 300, many: 1_200 } },
    warmup: { json: 400, sse: 60 },
    rounds: 10,
    toolCalls: true,
    batchMaxMs: 20_000,
    stream: STREAM,
  },
};

/** Values planted in every request: secret indices of four shapes (sk-ant, ghp_, AKIA, sk-proj), all within the first 100. */
const PLANTED_INDICES = [0, 25, 50, 75];
/** Secrets the redacting targets and a --proxy-cmd's {ENV_FILE} register (the largest redact count). */
const CORPUS_SECRETS = 10_000;

export interface TargetSpec {
  name: string;
  /** Registered secrets: 0 for passthrough, undefined for direct and other proxies (unknown). */
  secrets: number | undefined;
}

export interface Target extends TargetSpec {
  url: string;
  child: Child | undefined;
  pools: Map<number, Pool>;
  /** performance.now() when it was ready. */
  readyAt: number;
  /** Where the process's allocation probe reports (alloc-probe.ts), when it has one. */
  allocFile?: string;
}

export interface E2eResult extends Summary {
  name: string;
  unit: 'ms';
  scenario: string;
  target: string;
  format: 'json' | 'sse';
  size: SizeName;
  concurrency: number;
  secrets: number | null;
  ttfb: Pick<Summary, 'p50' | 'p95' | 'p99'>;
  ttft?: Pick<Summary, 'p50' | 'p95' | 'p99'>;
  /** Time to each timed marker (tool-call scenario), p50 ms; `added_<mark>_P50Ms` against direct. */
  marksP50?: Record<string, number>;
  /** p50 latency minus direct's p50 in the same run, with a bootstrap 95 % interval. */
  addedP50Ms?: number;
  addedP50Ci95?: [number, number];
  addedSignificant?: boolean;
  ratioP50?: number;
  addedTtfbP50Ms?: number;
  addedTtftP50Ms?: number;
  reqPerSec: number;
  /** CPU time of the proxy process per request (absent for direct). */
  cpuMsPerReq?: number;
  /** KiB the proxy process allocated per request (V8 heap and Buffer contents; alloc-probe.ts), and its GC pause time per request. */
  allocKBPerReq?: number;
  gcMsPerReq?: number;
  /** Largest RSS of the proxy seen after a batch. */
  rssMB?: number;
  errors: number;
  /** What the verification request showed (for other proxies, whose behaviour is not assumed). */
  verified: { leaks: number; restored: boolean };
}

export interface HarnessOptions {
  mode: BenchMode;
  /** `bin/ficta` of the build to measure. */
  fictaBin: string;
  /** Other proxies: shell commands with {UPSTREAM}, {PORT} and optionally {ENV_FILE}, each with its label. */
  others?: Array<{ cmd: string; label: string }>;
  /** Also start the memory checks' ficta with this many secrets now, so it has long been idle when they run. */
  memorySecrets?: number;
  workDir: string;
  log: (line: string) => void;
}

/** Everything the harness started, for the memory checks and for shutdown. */
export interface Harness {
  upstream: Child;
  upstreamUrl: string;
  targets: Target[];
  secrets: string[];
  planted: string[];
  placeholders: string[];
  /** The memory checks' ficta, when asked for. */
  memoryTarget: Target | undefined;
  /** Starts one more ficta with the first `n` corpus secrets. */
  startFicta(label: string, n: number, config?: { watermark: boolean; detect?: boolean }): Promise<Target>;
  close(): Promise<void>;
}

/** Starts the mock upstream and every target of the plan. */
export async function startHarness(options: HarnessOptions, plan: E2ePlan): Promise<Harness> {
  mkdirSync(options.workDir, { recursive: true });
  const secrets = Object.values(makeSecrets(CORPUS_SECRETS));
  const planted = PLANTED_INDICES.map((i) => secrets[i] as string);
  const placeholders = planted.map((v) => derivePlaceholder(BENCH_PLACEHOLDER_KEY, v));

  const upstreamConfig: MockUpstreamConfig = { plant: placeholders, watch: planted, ...plan.stream };
  const upstreamConfigPath = join(options.workDir, 'upstream.json');
  writeFileSync(upstreamConfigPath, JSON.stringify(upstreamConfig));
  // FICTA_DEV=1 (run the sources through tsx, not the build) reaches the proxies this run starts.
  const baseEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: options.workDir, ...(process.env.FICTA_DEV === undefined ? {} : { FICTA_DEV: process.env.FICTA_DEV }) };
  const { child: upstream, match: upstreamPort } = await spawnChild({
    label: 'upstream',
    command: process.execPath,
    args: [...ownScriptArgs('mock-upstream-process'), upstreamConfigPath],
    env: baseEnv,
    logDir: options.workDir,
    ready: { stdout: /mock upstream listening on (\d+)/ },
  });
  const upstreamUrl = `http://127.0.0.1:${upstreamPort}`;

  const envFile = (n: number): string => {
    const path = join(options.workDir, `secrets-${n}.env`);
    writeFileSync(path, secrets.slice(0, n).map((v, i) => `SECRET_${i}=${dotenvQuote(v)}\n`).join(''), { mode: 0o600 });
    return path;
  };

  const started: Target[] = [];
  const startFicta = async (label: string, n: number, config: { watermark: boolean; detect?: boolean } = { watermark: true }): Promise<Target> => {
    const home = join(options.workDir, `home-${label}`);
    const allocFile = join(options.workDir, `alloc-${label}.json`);
    mkdirSync(home, { recursive: true, mode: 0o700 });
    // A fixed placeholder key, so the mock can plant the placeholders this ficta will restore.
    writeFileSync(join(home, 'placeholder.key'), `${BENCH_PLACEHOLDER_KEY.toString('hex')}\n`, { mode: 0o600 });
    if (!config.watermark) writeFileSync(join(home, 'config.toml'), '[watermark]\nenabled = false\n');
    const { child, match } = await spawnChild({
      label,
      command: options.fictaBin,
      args: ['serve', '--host', '127.0.0.1', '--port', '0', '--env-file', envFile(n), '--anthropic-upstream', upstreamUrl, '--openai-upstream', upstreamUrl],
      // Detection off by an environment variable, which builds without detection ignore.
      env: { ...baseEnv, FICTA_HOME: home, FICTA_BENCH_ALLOC: allocFile, ...(config.detect === false ? { FICTA_DETECT: 'off' } : {}) },
      logDir: options.workDir,
      ready: { stdout: /ficta listening on (http:\/\/\S+)/ },
    });
    const t: Target = { name: label, secrets: n, url: match, child, pools: new Map(), readyAt: performance.now(), allocFile };
    started.push(t);
    return t;
  };

  const targets: Target[] = [{ name: 'direct', secrets: undefined, url: upstreamUrl, child: undefined, pools: new Map(), readyAt: performance.now() }];
  let memoryTarget: Target | undefined;
  try {
    const memoryStart = options.memorySecrets === undefined ? undefined : startFicta(`ficta-memory-${countLabel(options.memorySecrets)}`, options.memorySecrets);
    const fictas = await Promise.all([
      // The plumbing alone: no secrets, no watermark stage, no detection (DESIGN §6's no-op variant).
      startFicta('ficta-passthrough', 0, { watermark: false, detect: false }),
      ...(plan.watermarkOnly ? [startFicta('ficta-watermark', 0, { watermark: true, detect: false })] : []),
      // As shipped: the default config, watermark stage included.
      ...plan.redactCounts.map((n) => startFicta(`ficta-redact-${countLabel(n)}`, n)),
    ]);
    targets.push(...fictas);
    memoryTarget = await memoryStart;
    for (const other of options.others ?? []) {
      const port = await freePort();
      const allocFile = join(options.workDir, `alloc-${other.label.replace(/[^\w.-]+/g, '_')}.json`);
      const cmd = other.cmd
        .replaceAll('{UPSTREAM}', upstreamUrl)
        .replaceAll('{PORT}', String(port))
        .replaceAll('{ENV_FILE}', envFile(Math.max(1_000, ...plan.redactCounts)))
        .replaceAll('{ALLOC_FILE}', `'${allocFile}'`);
      const { child } = await spawnChild({ label: other.label, command: '/bin/sh', args: ['-c', cmd], env: { ...process.env }, logDir: options.workDir, ready: { port } });
      const t: Target = { name: other.label, secrets: undefined, url: `http://127.0.0.1:${port}`, child, pools: new Map(), readyAt: performance.now(), ...(other.cmd.includes('{ALLOC_FILE}') ? { allocFile } : {}) };
      started.push(t);
      targets.push(t);
    }
  } catch (e) {
    await Promise.all([...started.map((t) => t.child?.stop()), upstream.stop()]);
    throw e;
  }

  return {
    upstream,
    upstreamUrl,
    targets,
    secrets,
    planted,
    placeholders,
    memoryTarget,
    startFicta,
    async close() {
      const all = new Set([...targets, ...started]);
      await Promise.all([...all].flatMap((t) => [...t.pools.values()].map((p) => p.destroy().catch(() => undefined))));
      for (const t of all) t.pools.clear();
      await Promise.all([...started.map((t) => t.child?.stop()), upstream.stop()]);
    },
  };
}

/** The pool a target uses at a concurrency (created on first use). */
export function poolFor(t: Target, concurrency: number): Pool {
  let p = t.pools.get(concurrency);
  if (p === undefined) t.pools.set(concurrency, (p = createPool(t.url, concurrency)));
  return p;
}

/** The request of a scenario: a Messages body of `size` with the planted values, asking for `format`. */
export function scenarioRequest(h: Harness, format: 'json' | 'sse', size: SizeName): RequestSpec {
  return {
    path: '/v1/messages',
    headers: {
      'content-type': 'application/json',
      'anthropic-version': '2023-06-01',
      'x-api-key': 'sk-ant-bench-not-a-key',
      [REPLY_HEADER]: `${format}:${SIZES[size]}`,
    },
    body: makeMessagesBody(SIZES[size], { plant: h.planted, stream: format === 'sse' }),
    sse: format === 'sse',
  };
}

/** Sends one checked request through `t` and verifies what a target of its kind must do. */
export async function verifyTarget(h: Harness, t: Target, spec: RequestSpec): Promise<{ leaks: number; restored: boolean }> {
  const r = await send(poolFor(t, 1), spec, { keepBody: true, headers: { [CHECK_HEADER]: '1' } });
  const body = r.body ?? Buffer.alloc(0);
  const what = `bench: ${t.name} ${spec.sse ? 'sse' : 'json'}`;
  if (r.status !== 200) throw new FictaError('FICTA_BENCH_FAILED', `${what}: status ${r.status}: ${body.toString('utf8').slice(0, 300)}`);
  const leaks = Number(r.headers[LEAKS_HEADER] ?? Number.NaN);
  const text = spec.sse ? streamedText(body) : body.toString('utf8');
  const restored = h.planted.every((v) => text.includes(v)) && !text.includes('~ficta_');
  const raw = h.placeholders.every((p) => text.includes(p));
  const redacting = t.secrets !== undefined && t.secrets > 0;
  if (t.secrets !== undefined || t.name === 'direct') {
    if (redacting && leaks !== 0) throw new FictaError('FICTA_BENCH_FAILED', `${what}: ${leaks} planted value(s) reached the upstream`);
    if (!redacting && leaks !== h.planted.length) throw new FictaError('FICTA_BENCH_FAILED', `${what}: the upstream saw ${leaks} of ${h.planted.length} planted values`);
    if (redacting && !restored) throw new FictaError('FICTA_BENCH_FAILED', `${what}: placeholders were not restored`);
    if (!redacting && !raw) throw new FictaError('FICTA_BENCH_FAILED', `${what}: the response did not arrive unchanged`);
  }
  return { leaks, restored };
}

/** Runs every scenario of the plan over every target and returns one result per scenario × target. */
export async function runScenarios(h: Harness, plan: E2ePlan, log: (line: string) => void): Promise<E2eResult[]> {
  const results: E2eResult[] = [];
  for (const format of plan.formats) {
    for (const size of plan.sizes) {
      const spec = scenarioRequest(h, format, size);
      const verified = new Map<string, { leaks: number; restored: boolean }>();
      for (const t of h.targets) verified.set(t.name, await verifyTarget(h, t, spec));
      for (const concurrency of plan.concurrency) {
        const scenario = `e2e/${format}/${size}/c${concurrency}`;
        if (plan.filter !== undefined && !scenario.includes(plan.filter)) continue;
        results.push(...(await measure(h, plan, { scenario, format, size, concurrency, spec, verified }, log)));
      }
    }
  }
  if (plan.toolCalls === true) {
    // Text, a call without placeholders, then a call with one: only that call may wait (DESIGN §10).
    const size = plan.sizes[0] as SizeName;
    const scenario = `e2e/sse-tool/${size}/c1`;
    if (plan.filter === undefined || scenario.includes(plan.filter)) {
      const spec = toolScenarioRequest(h, size);
      const verified = new Map<string, { leaks: number; restored: boolean }>();
      for (const t of h.targets) verified.set(t.name, await verifyTarget(h, t, spec));
      results.push(...(await measure(h, plan, { scenario, format: 'sse', size, concurrency: 1, spec, verified }, log)));
    }
  }
  return results;
}

/** The tool-call scenario's request: the SSE request, answered with text and two tool calls, its markers timed. */
export function toolScenarioRequest(h: Harness, size: SizeName): RequestSpec {
  const spec = scenarioRequest(h, 'sse', size);
  const marks = Object.fromEntries(Object.entries(TOOL_MARKS).map(([k, v]) => [k, Buffer.from(v)]));
  return { ...spec, headers: { ...spec.headers, [REPLY_HEADER]: `sse-tool:${SIZES[size]}` }, marks };
}

interface Scenario {
  scenario: string;
  format: 'json' | 'sse';
  size: SizeName;
  concurrency: number;
  spec: RequestSpec;
  verified: Map<string, { leaks: number; restored: boolean }>;
}

/** Measures one scenario over every target in interleaved rounds. */
async function measure(h: Harness, plan: E2ePlan, sc: Scenario, log: (line: string) => void): Promise<E2eResult[]> {
  const { scenario, format, size, concurrency, spec, verified } = sc;
  const results: E2eResult[] = [];
  // 500 KiB requests take ~5x as long as 50 KiB ones: a quarter of the samples keeps runs bounded.
  const total = Math.ceil((concurrency === 1 ? plan.samples[format].one : plan.samples[format].many) * (size === '500KiB' ? 0.25 : 1));
  const perRound = Math.max(concurrency, Math.ceil(total / plan.rounds));
  log(`${scenario}: ${h.targets.length} targets × ${plan.rounds} rounds × ${perRound} requests`);
  for (const t of h.targets) await runBatch(poolFor(t, concurrency), spec, plan.warmup[format], concurrency, plan.batchMaxMs);

  const acc = new Map<string, { timings: Timing[]; cpuMs: number; cpuKnown: boolean; allocBytes: number; gcMs: number; allocKnown: boolean; wallMs: number; errors: number; rss: number; firstError?: string }>();
  for (const t of h.targets) acc.set(t.name, { timings: [], cpuMs: 0, cpuKnown: true, allocBytes: 0, gcMs: 0, allocKnown: t.allocFile !== undefined, wallMs: 0, errors: 0, rss: 0 });
  for (let r = 0; r < plan.rounds; r++) {
    for (let k = 0; k < h.targets.length; k++) {
      const t = h.targets[(k + r) % h.targets.length] as Target;
      const a = acc.get(t.name)!;
      const pids = t.child?.pids ?? [];
      // The probe's window is opened before and closed after the batch, outside the CPU reading.
      if (a.allocKnown && (await closeAllocWindow(t.allocFile as string)) === undefined) a.allocKnown = false;
      const c0 = pids.length > 0 ? cpuTimeMs(pids) : undefined;
      const b = await runBatch(poolFor(t, concurrency), spec, perRound, concurrency, plan.batchMaxMs);
      const c1 = pids.length > 0 ? cpuTimeMs(pids) : undefined;
      if (a.allocKnown) {
        const w = await closeAllocWindow(t.allocFile as string);
        if (w === undefined) a.allocKnown = false;
        else {
          a.allocBytes += w.allocatedBytes;
          a.gcMs += w.gcMs;
        }
      }
      for (const x of b.timings) a.timings.push(x);
      a.wallMs += b.wallMs;
      a.errors += b.errors;
      if (b.firstError !== undefined) a.firstError ??= b.firstError;
      if (c0 !== undefined && c1 !== undefined) a.cpuMs += c1 - c0;
      else a.cpuKnown = false;
      if (pids.length > 0) a.rss = Math.max(a.rss, memory(pids)?.rssMB ?? 0);
    }
  }

  const direct = acc.get('direct')!;
  const directTotal = direct.timings.map((x) => x.total);
  const directTtfb = direct.timings.map((x) => x.ttfb);
  const directTtft = direct.timings.map((x) => x.ttft);
  const markNames = Object.keys(spec.marks ?? {});
  const markP50 = (timings: Timing[], k: string): number => summarize(timings.map((x) => x.marks?.[k] ?? Number.NaN)).p50;
  for (const t of h.targets) {
    const a = acc.get(t.name)!;
    if (a.timings.length === 0) throw new FictaError('FICTA_BENCH_FAILED', `bench: ${scenario}/${t.name}: every request failed (${a.firstError ?? 'no response'})`);
    const totals = a.timings.map((x) => x.total);
    const s = summarize(totals);
    const ttfb = summarize(a.timings.map((x) => x.ttfb));
    const ttft = format === 'sse' ? summarize(a.timings.map((x) => x.ttft)) : undefined;
    const result: E2eResult = {
      name: `${scenario}/${t.name}`,
      unit: 'ms',
      scenario,
      target: t.name,
      format,
      size,
      concurrency,
      secrets: t.secrets ?? null,
      ...s,
      ttfb: pick(ttfb),
      ...(ttft === undefined ? {} : { ttft: pick(ttft) }),
      ...(markNames.length === 0 ? {} : { marksP50: Object.fromEntries(markNames.map((k) => [k, markP50(a.timings, k)])) }),
      reqPerSec: (a.timings.length / a.wallMs) * 1000,
      errors: a.errors,
      verified: verified.get(t.name)!,
    };
    if (t.name !== 'direct') {
      const d = diffOfMedians(totals, directTotal);
      result.addedP50Ms = d.delta;
      result.addedP50Ci95 = d.ci95;
      result.addedSignificant = d.significant;
      result.ratioP50 = s.p50 / summarize(directTotal).p50;
      result.addedTtfbP50Ms = ttfb.p50 - summarize(directTtfb).p50;
      if (ttft !== undefined) result.addedTtftP50Ms = ttft.p50 - summarize(directTtft).p50;
      for (const k of markNames) (result as unknown as Record<string, number>)[`added_${k}_P50Ms`] = markP50(a.timings, k) - markP50(direct.timings, k);
      if (t.child !== undefined && a.cpuKnown) result.cpuMsPerReq = a.cpuMs / (a.timings.length + a.errors);
      if (a.allocKnown) {
        result.allocKBPerReq = a.allocBytes / 1024 / (a.timings.length + a.errors);
        result.gcMsPerReq = a.gcMs / (a.timings.length + a.errors);
      }
      if (t.child !== undefined) result.rssMB = a.rss;
    }
    results.push(result);
    const marks = markNames.map((k) => ` ${k} ${markP50(a.timings, k).toFixed(3)}`).join('');
    log(`  ${t.name.padEnd(20)} p50 ${s.p50.toFixed(3)} ms${result.addedP50Ms === undefined ? '' : ` (+${result.addedP50Ms.toFixed(3)})`}${ttft === undefined ? '' : `, ttft ${ttft.p50.toFixed(3)}`}${marks}${result.cpuMsPerReq === undefined ? '' : `, cpu ${result.cpuMsPerReq.toFixed(3)} ms/req`}${result.allocKBPerReq === undefined ? '' : `, alloc ${result.allocKBPerReq.toFixed(1)} KiB/req`}${a.errors > 0 ? `, ${a.errors} errors (${a.firstError})` : ''}`);
  }
  return results;
}

function pick(s: Summary): Pick<Summary, 'p50' | 'p95' | 'p99'> {
  return { p50: s.p50, p95: s.p95, p99: s.p99 };
}

/** A dotenv double-quoted value (the parser's escapes: \\ \" \n \r \$). */
function dotenvQuote(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\$/g, '\\$')}"`;
}
