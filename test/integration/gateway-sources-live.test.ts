// `ficta gateway` (a real process on loopback, a mock provider) applying `[[sources]]` edits of its config
// file without a restart: an added source is redacted and restored to its groups; changed groups move the
// restores; a source with a bad path is logged, counted and named while the instance keeps serving; a
// removed source's value stays redacted and restored to the group it had for `retain`, then is not.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_LOG_LINES, ALL_SECRET_VALUES } from '../helpers/ficta-server.ts';
import { addTenant, startGateway, writeGatewayDir, type GatewayProcess } from '../helpers/gateway.ts';
import { createMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';

const A_VAL = 'alpha-org-secret-7Hk2Lm9Qx';
const B_VAL = 'billing-live-secret-4Rt8Wp3Zv';
for (const v of [A_VAL, B_VAL]) ALL_SECRET_VALUES.add(v);

let up: MockUpstream;
let work: string;
let p: GatewayProcess;
let configFile: string;
const tokens: Record<string, string> = {};

const source = (name: string, path: string, groups: string[], extra = ''): string =>
  `[[sources]]\nname = ${JSON.stringify(name)}\ntype = "dotenv"\npath = ${JSON.stringify(path)}\ngroups = ${JSON.stringify(groups)}\n${extra}`;
let head = '';
let gatewayTable = '';
/** Rewrites the config with these `[[sources]]` and waits until the instance has applied it. */
async function setSources(...sources: string[]): Promise<Record<string, unknown>> {
  const before = changes().length;
  writeFileSync(configFile, `${head}${sources.join('\n')}\n${gatewayTable}`);
  await until(() => changes().length > before, 20_000);
  return changes().at(-1)!;
}
function changes(): Array<Record<string, unknown>> {
  return p
    .stderr()
    .split('\n')
    .filter((l) => l.includes('"event":"gateway_config_changed"'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}
/** One chat completion as `tenant`; the echoed reply and what the provider received. */
async function say(tenant: string, text: string): Promise<{ status: number; reply: string; sent: string }> {
  const res = await fetch(`${p.url}/t/${tokens[tenant]}/openai/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: text }] }),
  });
  const body = (await res.json()) as { choices?: Array<{ message: { content: string } }> };
  const sent = (up.requests.at(-1)?.json as { messages?: Array<{ content: string }> } | undefined)?.messages?.at(-1)?.content ?? '';
  return { status: res.status, reply: body.choices?.[0]?.message.content ?? '', sent };
}
async function metrics(): Promise<string> {
  return (await fetch(`${p.adminUrl}/metrics`)).text();
}

beforeAll(async () => {
  up = await createMockUpstream({ secrets: [A_VAL, B_VAL] });
  work = mkdtempSync(join(tmpdir(), 'ficta-gw-live-'));
  writeFileSync(join(work, 'a.env'), `A_KEY=${A_VAL}\n`);
  writeFileSync(join(work, 'b.env'), `B_KEY=${B_VAL}\n`);
  const gw = writeGatewayDir(join(work, 'gw'), { adminPort: 0, drainDelay: '0s', tokensPoll: '200ms' }, `port = 0\n[upstreams]\nopenai = ${JSON.stringify(up.url)}\n${source('alpha', join(work, 'a.env'), ['ga'])}`);
  configFile = gw.config;
  const text = readFileSync(configFile, 'utf8');
  const at = text.indexOf('[[sources]]');
  head = text.slice(0, at);
  gatewayTable = text.slice(text.indexOf('[gateway]'));
  for (const [name, groups] of [['alice', ['ga']], ['bob', ['gb']], ['carol', ['gc']]] as const) tokens[name] = await addTenant(configFile, name, groups, work);
  p = await startGateway(configFile, { cwd: work });
});
afterAll(async () => {
  if (p !== undefined) {
    // The log guard (test/setup/log-guard.ts) checks every line for every form of the values.
    ALL_LOG_LINES.push(...p.stdoutLines(), ...p.stderr().split('\n'));
    const everything = p.stdoutLines().join('\n') + p.stderr();
    for (const t of Object.values(tokens)) expect(everything).not.toContain(t);
    p.child.kill('SIGTERM');
    await p.exited;
  }
  await up?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('ficta gateway applies [[sources]] edits without a restart', () => {
  it('an added source: redacted for everyone, restored to its group; metrics follow the set in use', async () => {
    expect((await say('alice', `a ${A_VAL}`)).reply).toBe(`ECHO: a ${A_VAL}`);
    const pid = p.child.pid;
    const change = await setSources(source('alpha', join(work, 'a.env'), ['ga']), source('billing', join(work, 'b.env'), ['gb'], 'retain = "2s"\n'));
    expect(change).toMatchObject({ trigger: 'file', applied: ['sources'], sources: { added: ['billing'], removed: [], changed: [], pending: [] }, restartNeeded: [] });
    const bob = await say('bob', `x ${B_VAL} y`);
    expect(bob).toMatchObject({ status: 200, reply: `ECHO: x ${B_VAL} y` });
    expect(bob.sent).not.toContain(B_VAL);
    const alice = await say('alice', `x ${B_VAL} y`);
    expect(alice.status).toBe(200);
    expect(alice.reply).not.toContain(B_VAL);
    expect(up.leaks).toEqual([]);
    expect(p.child.pid).toBe(pid);
    const m = await metrics();
    expect(m).toContain('ficta_source_version{source="billing",type="dotenv"} 1');
    expect(m).toContain('ficta_source_values{source="billing",type="dotenv"} 1');
    expect(m).toContain('ficta_source_last_load_ok{source="billing",type="dotenv"} 1');
  });

  it('changed groups: restores follow the new groups at once', async () => {
    const change = await setSources(source('alpha', join(work, 'a.env'), ['ga']), source('billing', join(work, 'b.env'), ['gc'], 'retain = "2s"\n'));
    expect(change).toMatchObject({ applied: ['sources'], sources: { changed: ['billing'] } });
    expect((await say('carol', `x ${B_VAL} y`)).reply).toBe(`ECHO: x ${B_VAL} y`);
    const bob = await say('bob', `x ${B_VAL} y`);
    expect(bob.status).toBe(200);
    expect(bob.reply).not.toContain(B_VAL);
    expect(up.leaks).toEqual([]);
  });

  it('a source with a bad path: logged and counted, named by /readyz, and the instance keeps serving', async () => {
    const missing = join(work, 'nowhere', 'c.env');
    const change = await setSources(source('alpha', join(work, 'a.env'), ['ga']), source('billing', join(work, 'b.env'), ['gc'], 'retain = "2s"\n'), source('broken', missing, ['ga']));
    expect(change).toMatchObject({ applied: ['sources'], sources: { added: ['broken'], pending: ['broken'] } });
    const failed = p.stderr().split('\n').filter((l) => l.includes('"event":"source_load_failed"')).map((l) => JSON.parse(l));
    expect(failed.at(-1)).toMatchObject({ source: 'broken', code: 'FICTA_SECRETS_UNREADABLE', error: expect.stringContaining('c.env: ENOENT') });
    const ready = await fetch(`${p.adminUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', pendingSources: ['broken'] });
    expect((await say('alice', `a ${A_VAL}`)).reply).toBe(`ECHO: a ${A_VAL}`);
    expect((await say('carol', `x ${B_VAL} y`)).reply).toBe(`ECHO: x ${B_VAL} y`);
    const m = await metrics();
    expect(m).toMatch(/ficta_source_load_failures_total\{source="broken",type="dotenv"\} [1-9]/);
    expect(m).toContain('ficta_source_last_load_ok{source="broken",type="dotenv"} 0');
    expect(m).toContain('ficta_source_version{source="broken",type="dotenv"} 0');
    expect(m).toContain('ficta_ready 1');
    expect(up.leaks).toEqual([]);
  });

  it('a removed source: still redacted and restored to the group it had until `retain` passes, then not restored', async () => {
    // Carol's placeholder for the value, as the provider saw it.
    const seen = await say('carol', `x ${B_VAL} y`);
    const placeholder = seen.sent.slice(2, -2);
    expect(placeholder).not.toContain(B_VAL);
    expect(placeholder.length).toBeGreaterThan(10);
    const change = await setSources(source('alpha', join(work, 'a.env'), ['ga']));
    expect(change).toMatchObject({ applied: ['sources'], sources: { removed: ['billing', 'broken'] } });
    const removedAt = Date.now();
    const carol = await say('carol', `x ${B_VAL} y`);
    expect(carol).toMatchObject({ status: 200, reply: `ECHO: x ${B_VAL} y` });
    expect(carol.sent).toBe(`x ${placeholder} y`);
    const bob = await say('bob', `x ${B_VAL} y`);
    expect(bob.reply).not.toContain(B_VAL);
    expect(up.leaks).toEqual([]);
    expect(Date.now() - removedAt).toBeLessThan(2000); // still inside `retain`
    // After `retain` (2s; swept at least every 2s) the value is gone from the set: its placeholder is not restored.
    await until(async () => !(await say('carol', `p ${placeholder}`)).reply.includes(B_VAL), 15_000);
    expect((await say('carol', `p ${placeholder}`)).reply).toBe(`ECHO: p ${placeholder}`);
    // The per-source gauges no longer list it (its redaction and restore counters stay, as counters do).
    expect(await metrics()).not.toMatch(/^ficta_source_\w+\{source="billing"/m);
  });

  it('SIGHUP alone applies an added source (the file poll off): once its version is in use, it is protected', async () => {
    const dir = writeGatewayDir(join(work, 'hup'), { adminPort: 0, drainDelay: '0s', tokensPoll: '1h' }, `port = 0\n[upstreams]\nopenai = ${JSON.stringify(up.url)}\n${source('alpha', join(work, 'a.env'), ['ga'])}`);
    const bobToken = await addTenant(dir.config, 'bob', ['gb'], work);
    const hup = await startGateway(dir.config, { cwd: work });
    try {
      const text = readFileSync(dir.config, 'utf8');
      const at = text.indexOf('[gateway]');
      writeFileSync(dir.config, `${text.slice(0, at)}${source('billing', join(work, 'b.env'), ['gb'])}\n${text.slice(at)}`);
      hup.child.kill('SIGHUP');
      await until(async () => (await (await fetch(`${hup.adminUrl}/metrics`)).text()).includes('ficta_source_version{source="billing",type="dotenv"} 1'));
      const changed = hup.stderr().split('\n').filter((l) => l.includes('"event":"gateway_config_changed"')).map((l) => JSON.parse(l));
      expect(changed).toEqual([expect.objectContaining({ trigger: 'signal', applied: ['sources'], sources: { added: ['billing'], removed: [], changed: [] } })]);
      const res = await fetch(`${hup.url}/t/${bobToken}/openai/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: `x ${B_VAL} y` }] }) });
      expect(((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe(`ECHO: x ${B_VAL} y`);
      expect(JSON.stringify(up.requests.at(-1)!.json)).not.toContain(B_VAL);
      expect(up.leaks).toEqual([]);
    } finally {
      ALL_LOG_LINES.push(...hup.stdoutLines(), ...hup.stderr().split('\n'));
      expect(hup.stdoutLines().join('\n') + hup.stderr()).not.toContain(bobToken);
      hup.child.kill('SIGTERM');
      await hup.exited;
    }
  });
});
