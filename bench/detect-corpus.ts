// Detection measured on data nobody here wrote: the shared corpus of other scanners' published test
// strings (read at run time from ../shared/detect-corpus/corpus.jsonl, never copied into this
// repository). Each case goes through a real ficta (detection on, nothing registered) to a recording
// upstream as the text of a chat message; a `detect` case counts as caught when its secret does not reach
// the upstream, an `ignore` case must arrive byte-exact and unblocked. Prints ids and kinds, never values.
// Run: node --import tsx bench/detect-corpus.ts [--corpus PATH] [--misses]

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config/load.ts';
import { createFicta } from '../src/index.ts';
import { AI_KINDS } from '../src/detect/kinds/ai.ts';
import { BUSINESS_KINDS } from '../src/detect/kinds/business.ts';
import { CLOUD_KINDS } from '../src/detect/kinds/cloud.ts';
import { KEY_KINDS } from '../src/detect/kinds/keys.ts';
import { SOURCE_CONTROL_KINDS } from '../src/detect/kinds/source-control.ts';
import { WEBHOOK_KINDS } from '../src/detect/kinds/webhooks.ts';
import { createLogger } from '../src/log/logger.ts';

// Kind families as src/detect/kinds/ groups them; a corpus kind belongs to the family of the ficta kind of
// the same name, or sharing its first word (`github-token` → `github-*`), or to the look-alike bucket
// (hashes, UUIDs, blobs and generic rules no family claims).
const FAMILIES: ReadonlyArray<[string, ReadonlyArray<{ name: string }>]> = [
  ['source control, CI, registries', SOURCE_CONTROL_KINDS],
  ['cloud and infrastructure', CLOUD_KINDS],
  ['AI providers', AI_KINDS],
  ['SaaS, payments, messaging', [...BUSINESS_KINDS, ...WEBHOOK_KINDS]],
  ['keys, JWTs, URL passwords', KEY_KINDS],
];
const LOOK_ALIKES = 'look-alikes (no family)';
const ALIASES: Record<string, string> = { artifactory: 'jfrog', db: 'url', sendinblue: 'brevo', 'basic': 'url', curl: 'url' };
function familyOf(corpusKind: string): string {
  const first = corpusKind.split('-')[0]!;
  const want = ALIASES[first] ?? ALIASES[corpusKind] ?? first;
  for (const [family, kinds] of FAMILIES) if (kinds.some((k) => k.name === corpusKind)) return family;
  for (const [family, kinds] of FAMILIES) if (kinds.some((k) => k.name.split('-')[0] === want)) return family;
  return LOOK_ALIKES;
}

interface Case {
  id: string;
  kind: string;
  text: string;
  secret: string | null;
  expect: 'detect' | 'ignore' | 'context';
}

const { values } = parseArgs({ options: { corpus: { type: 'string' }, misses: { type: 'boolean' } }, strict: true });
const repo = resolve(import.meta.dirname, '..');
const candidates = [values.corpus, join(repo, '..', 'shared', 'detect-corpus', 'corpus.jsonl'), join(repo, '..', '..', 'shared', 'detect-corpus', 'corpus.jsonl')].filter((p): p is string => p !== undefined);
const path = candidates.find((p) => existsSync(p));
if (path === undefined) {
  process.stderr.write(`detect-corpus: no corpus at ${candidates.join(' or ')} (pass --corpus PATH)\n`);
  process.exit(2);
}
const cases = readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Case);

// The recording upstream: keeps the last body, answers a minimal Chat Completions response.
let lastBody = Buffer.alloc(0);
const upstream = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    lastBody = Buffer.concat(chunks);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}');
  });
});
await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;

const home = mkdtempSync(join(tmpdir(), 'ficta-detect-corpus-'));
const loaded = loadConfig({ env: { FICTA_HOME: home }, flags: { port: 0, upstreams: { anthropic: upstreamUrl, openai: upstreamUrl }, secrets: { vault: 'off' }, watermark: { enabled: false } } });
if (!loaded.ok) throw loaded.error;
const ficta = await createFicta({ config: loaded.value, env: {}, logger: createLogger({ level: 'silent' }) });
const running = await ficta.listen();

const perKind = new Map<string, { caught: number; total: number }>();
const perFamily = new Map<string, { caught: number; total: number; negatives: number; falsePositives: number }>();
const family = (kind: string): { caught: number; total: number; negatives: number; falsePositives: number } => {
  const name = familyOf(kind);
  let f = perFamily.get(name);
  if (f === undefined) perFamily.set(name, (f = { caught: 0, total: 0, negatives: 0, falsePositives: 0 }));
  return f;
};
const missed: string[] = [];
const changed: string[] = [];
let caught = 0;
let detectTotal = 0;
let ignoreTotal = 0;
let contextCaught = 0;
let contextTotal = 0;
for (const c of cases) {
  const body = JSON.stringify({ model: 'gpt-x', messages: [{ role: 'user', content: c.text }] });
  lastBody = Buffer.alloc(0);
  const res = await fetch(`${running.url}/openai/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  await res.arrayBuffer();
  const arrived = lastBody.length === 0 ? undefined : (JSON.parse(lastBody.toString('utf8')).messages[0].content as string);
  if (c.expect === 'ignore') {
    ignoreTotal++;
    const f = family(c.kind);
    f.negatives++;
    if (res.status !== 200 || lastBody.toString('utf8') !== body) {
      changed.push(`${c.id} (${c.kind}): ${res.status === 200 ? 'changed' : `status ${res.status}`}`);
      f.falsePositives++;
    }
    continue;
  }
  // Caught: refused (nothing forwarded) or forwarded without the secret.
  const kept = res.status !== 200 || (arrived !== undefined && c.secret !== null && !arrived.includes(c.secret));
  if (c.expect === 'context') {
    contextTotal++;
    if (kept) contextCaught++;
    continue;
  }
  detectTotal++;
  const k = perKind.get(c.kind) ?? { caught: 0, total: 0 };
  const f = family(c.kind);
  k.total++;
  f.total++;
  if (kept) {
    caught++;
    k.caught++;
    f.caught++;
  } else missed.push(`${c.id} (${c.kind})`);
  perKind.set(c.kind, k);
}
await ficta.close();
await new Promise<void>((r) => upstream.close(() => r()));
rmSync(home, { recursive: true, force: true });

const pct = (a: number, b: number): string => `${((100 * a) / b).toFixed(1)} %`;
const out = (s = ''): void => void process.stdout.write(`${s}\n`);
out(`shared corpus ${path}: ${cases.length} cases through ficta (detection on, nothing registered)`);
out(`detect:  ${caught} of ${detectTotal} kept from the upstream (recall ${pct(caught, detectTotal)}), ${perKind.size} kinds`);
out(`ignore:  ${ignoreTotal - changed.length} of ${ignoreTotal} forwarded byte-exact and unblocked (${changed.length} changed or blocked)`);
out(`context: ${contextCaught} of ${contextTotal} caught (recognisable only from surrounding names; not counted)`);
out('\nper kind family:                  recall            hard negatives (false positives)');
for (const [name] of [...FAMILIES, [LOOK_ALIKES]] as const) {
  const f = perFamily.get(name);
  if (f === undefined) continue;
  const recall = f.total === 0 ? '-' : `${f.caught} / ${f.total} ${pct(f.caught, f.total)}`;
  out(`  ${name.padEnd(32)} ${recall.padEnd(17)} ${f.negatives - f.falsePositives} / ${f.negatives} forwarded (${f.falsePositives})`);
}
out('\nrecall per kind:');
for (const [kind, k] of [...perKind].sort((a, b) => a[1].caught / a[1].total - b[1].caught / b[1].total || a[0].localeCompare(b[0]))) {
  out(`  ${kind.padEnd(34)} ${String(k.caught).padStart(3)} / ${String(k.total).padEnd(3)} ${pct(k.caught, k.total).padStart(8)}`);
}
for (const c of changed) out(`  negative ${c}`);
if (values.misses === true) for (const m of missed) out(`  missed ${m}`);
