/** @jsxImportSource hono/jsx */
// The Health page: the upstreams and their last answer, the secret set's version and size, detection mode,
// restore policy and uptime.

import type { FC } from 'hono/jsx';
import type { HealthView } from '../views.ts';
import { formatAgo, formatUptime } from './format.ts';

export const HealthPage: FC<{ view: HealthView }> = ({ view }) => (
  <>
    <h1>Health</h1>
    <div class="grid">
      <div class="card stat">
        <b class={view.secrets.state === 'ready' ? 'outcome-ok' : 'outcome-bad'}>{view.secrets.state}</b>
        secrets: {view.secrets.size} value(s), set version {view.secrets.version}
        {view.secrets.error === undefined ? '' : <div class="outcome-bad">{view.secrets.error}: requests fail closed until the secrets load again</div>}
      </div>
      <div class="card stat">
        <b>{formatUptime(view.uptimeMs)}</b>uptime · ficta {view.version} · pid {view.pid}
      </div>
      <div class="card stat">
        <b>{view.detectMode}</b>detection mode
      </div>
      <div class="card stat">
        <b>{view.restore.toolCalls}</b>restore into tool calls{view.restore.allowHosts.length === 0 ? '' : ` · allowed hosts: ${view.restore.allowHosts.join(', ')}`}
      </div>
      <div class="card stat">
        <b>{view.requests}</b>requests · {view.upstreamErrors} upstream error(s)
      </div>
    </div>
    <h2>Upstreams</h2>
    <div class="table-wrap card">
      <table class="stack">
        <thead>
          <tr>
            <th scope="col">Route</th>
            <th scope="col">Upstream</th>
            <th scope="col">Last status</th>
            <th scope="col">Last outcome</th>
            <th scope="col">When</th>
          </tr>
        </thead>
        <tbody>
          {view.upstreams.map((u) => (
            <tr>
              <td class="mono" data-label="Route">{`/${u.name}`}</td>
              <td class="mono" data-label="Upstream">{u.origin}</td>
              <td data-label="Last status">{u.lastStatus === undefined ? <span class="muted">—</span> : u.lastStatus}</td>
              <td data-label="Last outcome">{u.lastOutcome === undefined ? <span class="muted">no request yet</span> : <span class={u.lastOutcome === 'ok' ? 'outcome-ok' : 'outcome-warn'}>{u.lastOutcome}{u.error === undefined ? '' : ` (${u.error})`}</span>}</td>
              <td data-label="When">{u.lastAt === undefined ? '' : formatAgo(u.lastAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
    <p class="muted">One proxy and its own secrets. (A <code>ficta gateway</code> serves no dashboard: its per-source load state and tenants are in its metrics, docs/gateway.md.)</p>
  </>
);
