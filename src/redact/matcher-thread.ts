// Builds a matcher in a worker thread (src/redact/matcher-worker.ts) and drives a secret set's build
// around it, pausing every few milliseconds, so a reload of thousands of secrets leaves requests in flight
// on this thread running (issue 21: a reload of 10,000 secrets moves p99 by ≤ 10 ms).

import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { COMPILED, ownScriptPath } from '../util/own-script.ts';
import { createMatcher, matcherFromTables, type Matcher } from './matcher.ts';
import type { PatternFamily } from './matcher-build.ts';
import type { MatcherReply, MatcherRequest } from './matcher-worker.ts';
import { PAUSE, secretSetSteps, type Detection, type SecretInput, type SecretSet, type TenantScheme } from './secret-set.ts';

/** Longest stretch of build work on this thread before it yields to requests. */
const SLICE_MS = 4;

let fallbacks = 0;
/** Builds that fell back to this thread because the worker failed (for tests and diagnostics). */
export function matcherWorkerFallbacks(): number {
  return fallbacks;
}

/** Builds the set like buildSecretSet, with the automaton in a worker and the rest in short slices. */
export async function buildSecretSetOffThread(entries: readonly SecretInput[], placeholderKey: Uint8Array, detection?: Detection, scheme?: TenantScheme): Promise<SecretSet> {
  const steps = secretSetSteps(entries, placeholderKey, detection, scheme);
  let sliceStart = performance.now();
  let next = steps.next();
  while (next.done !== true) {
    if (next.value === PAUSE) {
      if (performance.now() - sliceStart > SLICE_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
      next = steps.next(undefined);
      continue;
    }
    const matcher = await buildMatcherInWorker(next.value.patterns, next.value.families);
    sliceStart = performance.now();
    next = steps.next(matcher);
  }
  return next.value;
}

/** The automaton built in a fresh worker (ended after); in this thread when a worker cannot be started. */
export async function buildMatcherInWorker(patterns: readonly Uint8Array[], families: readonly PatternFamily[]): Promise<Matcher> {
  let total = 0;
  for (const p of patterns) total += p.length;
  const bytes = new Uint8Array(total);
  const lengths = new Int32Array(patterns.length);
  let at = 0;
  patterns.forEach((p, i) => {
    bytes.set(p, at);
    at += p.length;
    lengths[i] = p.length;
  });
  let worker: Worker;
  try {
    worker = startMatcherWorker();
  } catch {
    fallbacks++;
    return createMatcher(patterns, families);
  }
  try {
    const reply = await new Promise<MatcherReply>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`matcher worker exited with code ${code}`)));
      const request: MatcherRequest = { bytes, lengths, families: families.map((f) => ({ base: f.base, follows: f.follows })) };
      worker.postMessage(request, [bytes.buffer]);
    });
    if (!reply.ok) throw new Error(reply.message);
    return matcherFromTables(reply.built);
  } catch {
    // The worker failed (it could not load, ran out of memory): the same tables, built here.
    fallbacks++;
    return createMatcher(patterns, families);
  } finally {
    await worker.terminate();
  }
}

/** As the Argon2id worker is started (src/vault/kdf.ts): the compiled file, or the source through tsx. */
function startMatcherWorker(): Worker {
  const workerUrl = pathToFileURL(ownScriptPath('matcher-worker')).href;
  const tsxApi = COMPILED ? undefined : import.meta.resolve('tsx/esm/api');
  const source =
    tsxApi === undefined
      ? `import(${JSON.stringify(workerUrl)});`
      : `import(${JSON.stringify(tsxApi)}).then((tsx) => tsx.tsImport(${JSON.stringify(workerUrl)}, ${JSON.stringify(workerUrl)}));`;
  return new Worker(source, { eval: true });
}
