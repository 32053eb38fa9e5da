// Builds a gateway reload's secret set with its tables (automaton included) made in a worker thread
// (src/redact/matcher-worker.ts): this thread only gathers the values into one string beforehand and
// assembles the set from the transferred tables afterwards, so a reload of 10,000 secrets leaves requests
// in flight running (issue 21: it moves p99 by ≤ 10 ms).

import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { COMPILED, ownScriptPath } from '../util/own-script.ts';
import type { SetTablesReply } from './matcher-worker.ts';
import { nextTask, runStepsSliced } from '../util/steps.ts';
import { anchorTables, assembleSecretSetSteps, setTablesInputSteps, type Detection, type SecretInput, type SecretSet, type TenantScheme } from './secret-set.ts';
import { buildSetTables, type SetTables, type TablesInput } from './set-tables.ts';

/** Longest stretch of this thread's part of a build before it gives the event loop back. */
const SLICE_MS = 4;

let fallbacks = 0;
/** Builds that fell back to this thread because the worker failed (for tests and diagnostics). */
export function matcherWorkerFallbacks(): number {
  return fallbacks;
}

/** Builds the set like buildSecretSet, with everything but the assembly in a worker (the automaton compiled). */
export async function buildSecretSetOffThread(entries: readonly SecretInput[], placeholderKey: Uint8Array, detection?: Detection, scheme?: TenantScheme): Promise<SecretSet> {
  const anchors = detection === undefined ? undefined : anchorTables(detection.detector);
  const input = await runStepsSliced(setTablesInputSteps(entries, placeholderKey, scheme), SLICE_MS);
  input.automaton = { anchors: anchors?.plain ?? [], families: anchors?.families ?? [] };
  await nextTask();
  const tables = await buildTablesInWorker(input);
  await nextTask();
  return runStepsSliced(assembleSecretSetSteps(entries, tables, placeholderKey, detection, scheme), SLICE_MS);
}

/** The tables built in a fresh worker (ended after); in this thread when a worker cannot do it. */
export async function buildTablesInWorker(input: TablesInput): Promise<SetTables> {
  let worker: Worker;
  try {
    worker = startWorker();
  } catch {
    fallbacks++;
    return buildSetTables(input);
  }
  try {
    const reply = await new Promise<SetTablesReply>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`set-build worker exited with code ${code}`)));
      worker.postMessage(input);
    });
    if (!reply.ok) throw new Error(reply.message);
    return reply.tables;
  } catch {
    // The worker failed (it could not load, ran out of memory): the same tables, built here.
    fallbacks++;
    return buildSetTables(input);
  } finally {
    void worker.terminate();
  }
}

/** As the Argon2id worker is started (src/vault/kdf.ts): the compiled file, or the source through tsx. */
function startWorker(): Worker {
  const workerUrl = pathToFileURL(ownScriptPath('matcher-worker')).href;
  const tsxApi = COMPILED ? undefined : import.meta.resolve('tsx/esm/api');
  const source =
    tsxApi === undefined
      ? `import(${JSON.stringify(workerUrl)});`
      : `import(${JSON.stringify(tsxApi)}).then((tsx) => tsx.tsImport(${JSON.stringify(workerUrl)}, ${JSON.stringify(workerUrl)}));`;
  return new Worker(source, { eval: true });
}
