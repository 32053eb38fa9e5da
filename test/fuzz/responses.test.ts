// The response half of the differential fuzz suite: generated provider responses in every wire format,
// chunked every way, fetched through a real ficta on loopback, and judged by the independent oracle
// (test/fuzz/oracle). Sizing and replay: test/fuzz/fuzz-config.ts and "Fuzzing" in docs/development.md.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFuzzRun, suiteTimeoutMs } from './fuzz-config.ts';
import { startFuzzProxy, type FuzzProxy } from './harness/fuzz-proxy.ts';
import { closeClient } from './harness/http-client.ts';
import { createRecorder, type Recorder } from './harness/recorder.ts';
import { runClasses } from './harness/runner.ts';
import { KNOWN_RESPONSE } from './known.ts';
import { RESPONSE_CLASS_NAMES, responseClasses } from './response-classes.ts';

const run = readFuzzRun();
/** A replay of the other suite's class runs nothing here. */
const skip = run.replay !== undefined && !RESPONSE_CLASS_NAMES.includes(run.replay.klass);
let recorder: Recorder;
let proxy: FuzzProxy;

beforeAll(async () => {
  if (skip) return;
  recorder = await createRecorder();
  proxy = await startFuzzProxy(recorder.url);
});
afterAll(async () => {
  closeClient();
  await proxy?.close();
  await recorder?.close();
});

describe('response fuzz', () => {
  it.skipIf(skip)(
    'gives the client exactly what the provider sent with every value restored',
    async () => {
      const classes = responseClasses({ proxy, recorder });
      const summary = await runClasses('responses', classes, run, KNOWN_RESPONSE);
      console.log(summary.lines.join('\n'));
      expect(summary.cases, 'the fuzz run executed no case').toBeGreaterThan(0);
      expect(summary.failures.map((f) => `${f.klass}/${f.seed}: ${f.problems[0]}`)).toEqual([]);
    },
    suiteTimeoutMs(run),
  );
});
