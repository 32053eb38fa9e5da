/** @jsxImportSource hono/jsx */
// The Benchmarks page: the last `ficta bench --json`/`--html` results kept in FICTA_HOME/bench/last.json —
// the end-to-end figures as a table and the plots `--html` draws (in a sandboxed frame), or what to run.

import type { FC } from 'hono/jsx';
import type { BenchReport } from '../../bench/run.ts';
import type { E2eResult } from '../../bench/e2e.ts';
import { Empty } from './layout.tsx';

const fmt = (n: number | undefined): string => (n === undefined || n === null ? '—' : n < 10 ? n.toFixed(2) : n.toFixed(1));

export const BenchmarksPage: FC<{ report: BenchReport | undefined; file: string; problem?: string | undefined }> = ({ report, file, problem }) => {
  if (report === undefined) {
    return (
      <>
        <h1>Benchmarks</h1>
        <Empty title={problem === undefined ? 'No benchmark results yet.' : 'The last results cannot be read.'}>
          <p>
            {problem === undefined ? '' : `${problem}. `}Run <code>ficta bench --quick --json</code> (about a minute) or <code>ficta bench --html report.html</code>: the last results are kept in <code>{file}</code> and shown here with
            their plots.
          </p>
        </Empty>
      </>
    );
  }
  const e2e = report.results.filter((r): r is E2eResult => r.name.startsWith('e2e/'));
  const m = report.machine;
  return (
    <>
      <h1>Benchmarks</h1>
      <div class="card">
        <dl class="kv">
          <dt>Run</dt>
          <dd>
            <code>{report.mode}</code>, {m.date}, {(report.durationMs / 1000).toFixed(0)} s
          </dd>
          <dt>Machine</dt>
          <dd>{`Node ${m.node} · ${m.cpu} × ${m.cpus} · ${m.os}`}</dd>
          <dt>Measured</dt>
          <dd class="mono">{report.measured.gitSha}</dd>
        </dl>
      </div>
      {e2e.length === 0 ? (
        ''
      ) : (
        <div class="table-wrap card">
          <table>
            <thead>
              <tr>
                <th scope="col">Scenario</th>
                <th scope="col">Target</th>
                <th scope="col">p50 ms</th>
                <th scope="col">p95 ms</th>
                <th scope="col">p99 ms</th>
                <th scope="col">Added p50 ms</th>
                <th scope="col">CPU ms/req</th>
              </tr>
            </thead>
            <tbody>
              {e2e.map((r) => (
                <tr>
                  <td class="mono">{r.scenario}</td>
                  <td>{r.target}</td>
                  <td>{fmt(r.p50)}</td>
                  <td>{fmt(r.p95)}</td>
                  <td>{fmt(r.p99)}</td>
                  <td>{fmt(r.addedP50Ms)}</td>
                  <td>{fmt(r.cpuMsPerReq)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2>Plots</h2>
      <iframe class="bench" src="/_ficta/benchmarks/report" sandbox="" title="ficta bench report (plots)" loading="lazy"></iframe>
    </>
  );
};
