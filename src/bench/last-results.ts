// Where `ficta bench --json`/`--html` keep their last measured results (FICTA_HOME/bench/last.json), for the
// dashboard's Benchmarks page. Smoke runs and reports read back with --from are not kept.

import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeAtomic } from '../util/atomic-file.ts';
import type { BenchReport } from './run.ts';

/** The file the last results are kept in. */
export function lastResultsFile(home: string): string {
  return join(home, 'bench', 'last.json');
}

/** Keeps `report` as the last results; false when the file cannot be written (the run's output is unaffected). */
export function keepLastResults(home: string, report: BenchReport): boolean {
  const file = lastResultsFile(home);
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeAtomic(file, `${JSON.stringify(report)}\n`);
    return true;
  } catch {
    return false;
  }
}
