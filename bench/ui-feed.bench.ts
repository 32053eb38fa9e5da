// What the dashboard adds to each request's path: the run totals' record (as before) plus one push of the
// summary onto the ring, and for a proxied request the start record (the user-agent reduced to a name, two
// clock reads, one push). Measured against the same record without a dashboard. Each case is checked first.
// Run: node --import tsx bench/ui-feed.bench.ts

import { cpus } from 'node:os';
import { Bench } from 'tinybench';
import { clientName } from '../src/server/client-name.ts';
import { createRunStats, type RequestStart, type RequestSummary } from '../src/server/stats.ts';
import { createRequestFeed } from '../src/ui/feed.ts';

const summary = (): RequestSummary => ({
  outcome: 'ok',
  status: 200,
  redactions: { GITHUB_TOKEN: 2, 'detected:github-classic-pat': 1 },
  restores: { GITHUB_TOKEN: 2 },
  restoreMisses: 0,
  blocked: [],
  id: 'abc123-1f',
  method: 'POST',
  route: '/v1/messages',
  provider: 'anthropic',
  client: 'claude-code',
  at: Date.now(),
  ms: 12.5,
  upstreamHeadersMs: 10.1,
  beforeUpstreamMs: 0.8,
});
const UA = 'claude-cli/2.1.197 (external, cli)';

const without = createRunStats();
const feed = createRequestFeed();
const withUi = createRunStats(feed.end, feed.start);
withUi.record(summary());
withUi.start?.({ id: 'x', method: 'POST', route: '/v1/messages', provider: 'anthropic', client: clientName(UA), at: Date.now() });
if (feed.last() !== 2 || without.snapshot().requests !== 0) throw new Error('bench: the feed did not record');

const s = summary();
const bench = new Bench({ time: 500, warmupTime: 150 });
bench.add('record (no dashboard)', () => {
  without.record(s);
});
bench.add('record + ring push (dashboard)', () => {
  withUi.record(s);
});
bench.add('start record: clientName + Date.now + push', () => {
  const start: RequestStart = { id: 'abc123-1f', method: 'POST', route: '/v1/messages', provider: 'anthropic', client: clientName(UA), at: Date.now() };
  withUi.start?.(start);
});
await bench.run();
console.log(`node ${process.version}, ${cpus()[0]?.model ?? 'cpu'} × ${cpus().length}; ring of ${feed.capacity} events`);
console.table(bench.tasks.map((t) => {
  const r = t.result;
  if (r === undefined || r.state !== 'completed') throw new Error(`bench: ${t.name} did not complete`);
  return { case: t.name, 'p50 ns': ((r.latency.p50 ?? 0) * 1e6).toFixed(0), 'mean ns': (r.latency.mean * 1e6).toFixed(0), 'p99 ns': ((r.latency.p99 ?? 0) * 1e6).toFixed(0), samples: r.latency.samplesCount };
}));
