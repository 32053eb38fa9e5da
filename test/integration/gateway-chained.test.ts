// A developer's own ficta in front of the organisation's gateway (issue 21 item 9): the local proxy's
// upstreams are the gateway's `/t/<token>/…` routes. Personal secrets are redacted locally, organisation
// secrets at the gateway; the provider sees neither; each proxy restores its own on the way back.

import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../helpers/cli.ts';
import { ALL_SECRET_VALUES } from '../helpers/ficta-server.ts';
import { addTenant, startGateway, writeGatewayDir, type GatewayProcess } from '../helpers/gateway.ts';
import { createMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';

const PERSONAL = 'personal-laptop-token-Zx81Qw';
const ORG = 'org-warehouse-password-Hq27Lm';
const PLACEHOLDER = /~ficta_[a-z2-7]{20}/g;
ALL_SECRET_VALUES.add(PERSONAL);
ALL_SECRET_VALUES.add(ORG);

let work: string;
let up: MockUpstream;
let gateway: GatewayProcess;
let local: ServeProcess;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'ficta-gw-chain-'));
  up = await createMockUpstream({ secrets: [PERSONAL, ORG] });
  writeFileSync(join(work, 'org.env'), `WAREHOUSE_PASSWORD=${ORG}\n`);
  const gw = writeGatewayDir(
    join(work, 'gw'),
    { adminPort: 0, drainDelay: '0s' },
    `host = "127.0.0.1"\nport = 0\n[upstreams]\nanthropic = "${up.url}"\nopenai = "${up.url}"\n[[sources]]\nname = "org"\ntype = "dotenv"\npath = ${JSON.stringify(join(work, 'org.env'))}\ngroups = ["eng"]\n`,
  );
  const token = await addTenant(gw.config, 'dana', ['eng'], work);
  gateway = await startGateway(gw.config, { cwd: work });
  // The developer's ficta: personal secrets from a dotenv file, upstreams at the gateway with the token.
  writeFileSync(join(work, 'personal.env'), `MY_TOKEN=${PERSONAL}\n`);
  local = await startServe(
    ['--port', '0', '--no-discover', '--env-file', join(work, 'personal.env'), '--anthropic-upstream', `${gateway.url}/t/${token}/anthropic`, '--openai-upstream', `${gateway.url}/t/${token}/openai`],
    { HOME: work, FICTA_HOME: join(work, 'home') },
  );
}, 60_000);

afterAll(async () => {
  local?.child.kill('SIGKILL');
  gateway?.child.kill('SIGKILL');
  await up?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('a local ficta chained to the gateway', () => {
  it('redacts personal secrets locally and organisation secrets at the gateway, and each restores its own (Anthropic, streamed)', async () => {
    const client = new Anthropic({ apiKey: 'sk-test', baseURL: `${local.url}/anthropic`, maxRetries: 0 });
    const stream = client.messages.stream({ model: 'm', max_tokens: 64, messages: [{ role: 'user', content: `mine ${PERSONAL} and the org's ${ORG}` }] });
    const message = await stream.finalMessage();
    expect(message.content[0]).toMatchObject({ type: 'text', text: `ECHO: mine ${PERSONAL} and the org's ${ORG}` });
    expect(up.leaks).toEqual([]);
    // The provider saw two placeholders: the local ficta's (personal) and the gateway's (organisation).
    const seen = JSON.stringify(up.requests.at(-1)!.json);
    const placeholders = seen.match(PLACEHOLDER) ?? [];
    expect(new Set(placeholders).size).toBe(2);
    expect(seen).not.toContain(PERSONAL);
    expect(seen).not.toContain(ORG);
  });

  it('does the same for OpenAI Chat Completions through the SDK', async () => {
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${local.url}/openai/v1`, maxRetries: 0 });
    const done = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: `${ORG} then ${PERSONAL}` }] });
    expect(done.choices[0]!.message.content).toBe(`ECHO: ${ORG} then ${PERSONAL}`);
    expect(up.leaks).toEqual([]);
  });

  it('audits each request at the gateway with the tenant and its groups, and logs no value anywhere', async () => {
    // Request lines go to stdout asynchronously: wait (bounded) for both.
    const ok200 = () => gateway.stdoutLines().map((l) => JSON.parse(l)).filter((l) => l.status === 200);
    for (let i = 0; i < 40 && ok200().length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    const audit = ok200();
    expect(audit.length).toBeGreaterThanOrEqual(2);
    for (const line of audit) expect(line).toMatchObject({ tenant: 'dana', groups: ['eng'] });
    const everything = gateway.stdoutLines().join('\n') + gateway.stderr() + local.stderr();
    expect(everything).not.toContain(PERSONAL);
    expect(everything).not.toContain(ORG);
  });
});
