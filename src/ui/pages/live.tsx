/** @jsxImportSource hono/jsx */
// The Live page: every request as it happens, from the proxy's ring of request summaries, pushed by
// server-sent events (the script builds the rows); filters, a pause, and an empty state that says what to do.

import type { FC } from 'hono/jsx';
import { Empty } from './layout.tsx';

const OUTCOMES: ReadonlyArray<[string, string]> = [
  ['all', 'All requests'],
  ['problems', 'Problems (blocked, withheld, failed)'],
  ['withheld', 'With withheld restores'],
  ['in-flight', 'In flight'],
  ['ok', 'ok'],
  ['blocked', 'blocked'],
  ['unauthorized', 'unauthorized'],
  ['not_found', 'not_found'],
  ['upstream_unreachable', 'upstream_unreachable'],
  ['client_aborted', 'client_aborted'],
];

const COLUMNS = ['Time', 'Client', 'Request', 'Status', 'Outcome', 'Redacted', 'Detected', 'Restored', 'Withheld', 'Blocked', 'Latency'];

export const LivePage: FC<{ base: string | undefined; mode: string }> = ({ base, mode }) => (
  <>
    <h1>Live</h1>
    <div class="toolbar" role="search">
      <label>
        <span class="muted">Filter </span>
        <input id="filter-text" type="search" placeholder="secret, host, route, client  ( / )" aria-label="Filter requests" autocomplete="off" />
      </label>
      <label>
        <span class="muted">Show </span>
        <select id="filter-outcome" aria-label="Which requests">
          {OUTCOMES.map(([v, label]) => (
            <option value={v}>{label}</option>
          ))}
        </select>
      </label>
      <button type="button" id="pause" aria-pressed="false" title="Pause the list (p)">
        Pause
      </button>
      <span id="live-status" class="muted" role="status" aria-live="polite">
        Connecting…
      </span>
    </div>
    <noscript>
      <div class="notice">The live list needs JavaScript (the one script this proxy serves). The same data: <a href="/_ficta/api/requests">/_ficta/api/requests</a>.</div>
    </noscript>
    <Empty title="No requests yet." id="live-empty">
      {base === undefined ? (
        <p>Point your agent at this proxy with the base URL ficta printed when it started (it carries the access token), or run an agent through ficta: <code>ficta claude</code>, <code>ficta codex</code>, <code>ficta run -- CMD</code>.</p>
      ) : (
        <p>
          Point your agent at this proxy — <code>{`ANTHROPIC_BASE_URL=${base}`}</code>, <code>{`OPENAI_BASE_URL=${base}/openai/v1`}</code>,{' '}
          <code>{`GOOGLE_GEMINI_BASE_URL=${base}/gemini`}</code> — or run one through ficta: <code>ficta claude</code>, <code>ficta codex</code>, <code>ficta run -- CMD</code>.
          {mode === 'serve' ? '' : ' This proxy was started for one command: its requests appear here as it makes them.'}
        </p>
      )}
      <p class="muted">Each request shows here as it starts (streams while in flight) and again when it ends: which secrets were redacted, credentials detected, restores withheld from tool calls, and blocks.</p>
    </Empty>
    <div class="table-wrap">
      <table id="live" class="live stack" hidden aria-busy="true">
        <caption class="skip">Requests through this proxy, newest first</caption>
        <thead>
          <tr>
            {COLUMNS.map((c) => (
              <th scope="col">{c}</th>
            ))}
          </tr>
        </thead>
        <tbody></tbody>
      </table>
    </div>
  </>
);
