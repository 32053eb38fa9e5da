/** @jsxImportSource hono/jsx */
// The Withheld page: restores withheld from tool calls, by secret and destination, each with one action —
// allow this host for this secret — and the actions taken, each with its undo. Plain forms (POST + CSRF).

import type { FC } from 'hono/jsx';
import type { HostGrant } from '../host-grants.ts';
import type { WithheldView } from '../views.ts';
import { formatAgo, formatTime } from './format.ts';
import { Empty } from './layout.tsx';

const PLACE_WORDS: Record<string, string> = {
  vault: 'the vault record',
  'secrets.hosts': "this proxy's [secrets.hosts]",
  'restore.allowHosts': "this proxy's restore.allowHosts",
};

const Csrf: FC<{ csrf: string }> = ({ csrf }) => <input type="hidden" name="csrf" value={csrf} />;

export const WithheldPage: FC<{ view: WithheldView; csrf: string; notice?: { kind: 'ok' | 'bad'; text: string } | undefined }> = ({ view, csrf, notice }) => (
  <>
    <h1>Withheld restores</h1>
    {notice === undefined ? '' : (
      <div class={`notice${notice.kind === 'bad' ? ' bad' : ''}`} role="status">
        {notice.text}
      </div>
    )}
    <p class="muted">
      A placeholder in a tool call that would send it to a host not allowed stays a placeholder (restore.toolCalls = <code>{view.toolCalls}</code>). If the destination is
      yours, allow it for that secret: the next request restores it, no restart. A withheld restore can be an attack (a prompt-injected tool call sending your secret away): allow only a
      host you trust to receive it.
    </p>
    {view.groups.length === 0 ? (
      <Empty title="Nothing withheld.">
        <p>
          When a model asks for a tool call that would carry a secret to a host outside its allowed hosts (a <code>curl https://…</code> with a token), ficta hands the agent the placeholder instead and it shows
          here, grouped by secret and destination.
        </p>
      </Empty>
    ) : (
      <div class="table-wrap card">
        <table class="stack">
          <thead>
            <tr>
              <th scope="col">Secret</th>
              <th scope="col">Destination / reason</th>
              <th scope="col">Withheld</th>
              <th scope="col">Last</th>
              <th scope="col">Action</th>
            </tr>
          </thead>
          <tbody>
            {view.groups.map((g) => (
              <tr data-secret={g.secret} data-host={g.host ?? ''}>
                <td class="mono" data-label="Secret">{g.secret}</td>
                <td data-label="Destination">{g.host === undefined ? <span class="chip">{g.reason}</span> : <span class="chip bad">{g.host}</span>}</td>
                <td data-label="Withheld">{g.count}×</td>
                <td data-label="Last">{formatAgo(g.last)}</td>
                <td data-label="Action">
                  {g.host === undefined ? (
                    <span class="muted">{g.reason === 'mode:never' ? 'restore.toolCalls is "never"' : 'no host to allow: name the destination literally'}</span>
                  ) : g.grant !== undefined ? (
                    <form class="inline" method="post" action="/_ficta/withheld/undo">
                      <Csrf csrf={csrf} />
                      <input type="hidden" name="id" value={String(g.grant)} />
                      <span class="chip ok">allowed</span> <button type="submit">Undo</button>
                    </form>
                  ) : (
                    <form class="inline" method="post" action="/_ficta/withheld/allow">
                      <Csrf csrf={csrf} />
                      <input type="hidden" name="secret" value={g.secret} />
                      <input type="hidden" name="host" value={g.host} />
                      <button type="submit" class="primary">{`Allow ${g.host} for ${g.secret}`}</button>
                      <div class="muted">written to {g.place}</div>
                    </form>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    )}
    <h2>Actions</h2>
    {view.grants.length === 0 ? (
      <p class="muted">No host allowed from this page yet. Each action is written to ficta's log (event ui_action: who, what, when) and can be undone here.</p>
    ) : (
      <div class="table-wrap card">
        <table class="stack">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">What</th>
              <th scope="col">Where</th>
              <th scope="col">By</th>
              <th scope="col"></th>
            </tr>
          </thead>
          <tbody>
            {view.grants.map((g: HostGrant) => (
              <tr>
                <td data-label="When">{formatTime(g.at)}</td>
                <td data-label="What">
                  allowed <span class="chip">{g.host}</span> for <span class="mono">{g.secret}</span>
                  {g.parts.every((p) => !p.added) ? <span class="muted"> (was already allowed)</span> : ''}
                </td>
                <td data-label="Where">{[...new Set(g.parts.map((p) => PLACE_WORDS[p.place] ?? p.place))].join(', ')}</td>
                <td class="mono" data-label="By">{`session ${g.by}`}</td>
                <td data-label="">
                  {g.undone !== undefined ? (
                    <span class="muted">undone {formatAgo(g.undone.at)}</span>
                  ) : (
                    <form class="inline" method="post" action="/_ficta/withheld/undo">
                      <Csrf csrf={csrf} />
                      <input type="hidden" name="id" value={String(g.id)} />
                      <button type="submit">Undo</button>
                    </form>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    )}
  </>
);
