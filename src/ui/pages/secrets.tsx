/** @jsxImportSource hono/jsx */
// The Secrets page: every registered name with its source and allowed hosts, when it was last redacted,
// restored and withheld; the detection kinds seen; the allow lists. Names and hosts only.

import type { FC } from 'hono/jsx';
import type { SecretsView } from '../views.ts';
import { formatAgo, formatSource } from './format.ts';
import { Empty } from './layout.tsx';

export const SecretsPage: FC<{ view: SecretsView }> = ({ view }) => (
  <>
    <h1>Secrets</h1>
    {view.secrets.length === 0 ? (
      <Empty title="No secret is registered.">
        <p>
          ficta redacts only what it knows{view.detectMode === 'off' ? '' : ' and the credentials detection recognises'}. Register secrets with <code>ficta vault add NAME</code>, an env file (
          <code>--env-file .env</code>), <code>--secret-env NAME</code>, or let discovery read <code>.env</code> in the working directory.
        </p>
      </Empty>
    ) : (
      <div class="table-wrap card">
        <table class="stack">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Source</th>
              <th scope="col">May be restored towards</th>
              <th scope="col">Redacted</th>
              <th scope="col">Restored</th>
              <th scope="col">Withheld</th>
            </tr>
          </thead>
          <tbody>
            {view.secrets.map((s) => (
              <tr>
                <td class="mono" data-label="Name">{s.name}</td>
                <td data-label="Source">{formatSource(s.source)}</td>
                <td data-label="Hosts">{s.hosts.length === 0 ? <span class="muted">no host of its own</span> : s.hosts.map((h) => <span class="chip">{h}</span>)}</td>
                <td data-label="Redacted">
                  {s.redactions > 0 ? `${s.redactions}× · ` : ''}
                  {formatAgo(s.lastRedacted)}
                </td>
                <td data-label="Restored">
                  {s.restores > 0 ? `${s.restores}× · ` : ''}
                  {formatAgo(s.lastRestored)}
                </td>
                <td data-label="Withheld">{formatAgo(s.lastWithheld)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    )}
    <h2>Detected credentials</h2>
    {view.detectMode === 'off' ? (
      <Empty title="Detection is off.">
        <p>Credentials nobody registered pass unredacted. Turn it on with <code>--detect redact</code> (the default).</p>
      </Empty>
    ) : view.detections.length === 0 ? (
      <Empty title="No credential detected yet.">
        <p>Detection is <code>{view.detectMode}</code>: a credential in a known format (GitHub, AWS, Stripe, …) that nobody registered shows here by kind when a request carries one.</p>
      </Empty>
    ) : (
      <div class="card">
        {view.detections.map((d) => (
          <span class="chip warn">
            {d.kind} ×{d.count} · {formatAgo(d.last)}
          </span>
        ))}
      </div>
    )}
    <h2>Allow lists</h2>
    <div class="card">
      <dl class="kv">
        <dt>Hosts every secret may reach (restore.allowHosts)</dt>
        <dd>{view.allowHosts.length === 0 ? <span class="muted">none</span> : view.allowHosts.map((h) => <span class="chip">{h}</span>)}</dd>
        <dt>Detection leaves alone (detect.allow)</dt>
        <dd>
          {view.detectAllowKinds.length === 0 && view.detectAllowValues === 0 ? <span class="muted">nothing</span> : view.detectAllowKinds.map((k) => <span class="chip">{k}</span>)}
          {view.detectAllowValues > 0 ? <span class="muted"> and {view.detectAllowValues} exact value(s), not shown</span> : ''}
        </dd>
      </dl>
    </div>
  </>
);
