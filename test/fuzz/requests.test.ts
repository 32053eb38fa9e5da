// The request half of the differential fuzz suite: generated requests of every body kind and surface,
// sent through a real ficta on loopback to a recording mock provider, judged by the independent oracle
// (test/fuzz/oracle). Sizing and replay: test/fuzz/fuzz-config.ts and "Fuzzing" in docs/development.md.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFuzzRun, suiteTimeoutMs } from './fuzz-config.ts';
import { startFuzzProxy, type FuzzProxy } from './harness/fuzz-proxy.ts';
import { closeClient } from './harness/http-client.ts';
import { createRecorder, type Recorder } from './harness/recorder.ts';
import { runClasses } from './harness/runner.ts';
import { KNOWN_REQUEST } from './known.ts';
import { REQUEST_CLASS_NAMES, requestClasses } from './request-classes.ts';

const run = readFuzzRun();
/** A replay of the other suite's class runs nothing here. */
const skip = run.replay !== undefined && !REQUEST_CLASS_NAMES.includes(run.replay.klass);
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

describe('request fuzz', () => {
  it.skipIf(skip)(
    'never lets a registered value reach the provider, and forwards every other byte as sent',
    async () => {
      const classes = requestClasses({ proxy, recorder });
      const summary = await runClasses('requests', classes, run, KNOWN_REQUEST);
      console.log(summary.lines.join('\n'));
      expect(summary.cases, 'the fuzz run executed no case').toBeGreaterThan(0);
      expect(summary.failures.map((f) => `${f.klass}/${f.seed}: ${f.problems[0]}`)).toEqual([]);
    },
    suiteTimeoutMs(run),
  );
});
