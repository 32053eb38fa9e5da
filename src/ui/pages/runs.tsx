/** @jsxImportSource hono/jsx */
// The Runs page: the command this proxy serves and its run report so far (what --report-file holds at exit):
// requests by outcome, redactions, restores, blocks and withheld restores by secret name.

import type { FC } from 'hono/jsx';
import type { RunView } from '../views.ts';
import { formatTime, formatUptime } from './format.ts';
import { Empty } from './layout.tsx';

const Counts: FC<{ title: string; counts: Record<string, number>; empty: string; cls?: string }> = ({ title, counts, empty, cls }) => {
  const rows = Object.entries(counts).sort((a, b) => b[1] - a[1]);
  return (
    <div class="card">
      <h2>{title}</h2>
      {rows.length === 0 ? <p class="muted">{empty}</p> : rows.map(([k, n]) => <span class={`chip${cls === undefined ? '' : ` ${cls}`}`}>{`${k} ×${n}`}</span>)}
    </div>
  );
};

export const RunsPage: FC<{ view: RunView }> = ({ view }) => {
  const { run, report } = view;
  const withheld: Record<string, number> = {};
  for (const [name, byReason] of Object.entries(report.withheldBySecret ?? {})) for (const [reason, n] of Object.entries(byReason)) withheld[`${name} ${reason}`] = n;
  return (
    <>
      <h1>Runs</h1>
      {run.mode === 'serve' ? (
        <Empty title="This proxy is ficta serve, not a run.">
          <p>
            <code>ficta run -- CMD</code> and the agent commands (<code>ficta claude</code>, <code>ficta codex</code>, …) start a private proxy for one command and report on it; open
            <code> ficta ui</code> while one runs to see its summary here. Below: this proxy's totals since it started.
          </p>
        </Empty>
      ) : (
        <div class="card">
          <dl class="kv">
            <dt>Command</dt>
            <dd>
              <code>{`ficta ${run.mode}`}</code>
              {run.command === undefined ? '' : <span> running <code>{run.command}</code></span>}
            </dd>
            <dt>Started</dt>
            <dd>
              {formatTime(view.startedAt)} ({formatUptime(Date.now() - view.startedAt)} ago)
            </dd>
            <dt>Process</dt>
            <dd>pid {run.pid}</dd>
            <dt>Report file</dt>
            <dd>{run.reportFile === undefined ? <span class="muted">none (--report-file FILE writes this report on exit)</span> : <code>{run.reportFile}</code>}</dd>
          </dl>
        </div>
      )}
      <div class="grid">
        <div class="card stat">
          <b>{report.requests}</b>requests
        </div>
        <div class="card stat">
          <b>{Object.values(report.redactions).reduce((a, b) => a + b, 0)}</b>redactions
        </div>
        <div class="card stat">
          <b>{Object.values(report.restores).reduce((a, b) => a + b, 0)}</b>restores
        </div>
        <div class="card stat">
          <b>{report.blocks}</b>blocked requests
        </div>
        <div class="card stat">
          <b>{report.withheld ?? 0}</b>withheld restores
        </div>
        <div class="card stat">
          <b>{report.upstreamErrors}</b>upstream errors
        </div>
      </div>
      <Counts title="Requests by outcome" counts={report.byOutcome} empty="No request yet." />
      <Counts title="Redactions by secret" counts={report.redactions} empty="Nothing redacted yet." />
      <Counts title="Restores by secret" counts={report.restores} empty="Nothing restored yet." />
      <Counts title="Blocked requests by secret" counts={report.blockedBySecret} empty="Nothing blocked." cls="bad" />
      <Counts title="Withheld restores by secret and reason" counts={withheld} empty="Nothing withheld." cls="bad" />
      <div class="card">
        <h2>Other</h2>
        <dl class="kv">
          <dt>Restore misses</dt>
          <dd>{report.restoreMisses}</dd>
          <dt>Detected values kept</dt>
          <dd>{report.detectedStore === undefined ? <span class="muted">detection is off</span> : `${report.detectedStore.entries} (${report.detectedStore.bytes} bytes; ${report.detectedStore.evicted} evicted)`}</dd>
        </dl>
      </div>
    </>
  );
};
