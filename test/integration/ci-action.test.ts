// Plays action.yml (the composite GitHub Action) as a runner would: its inputs' defaults merged with the
// workflow's `with:`, each step's `if:` evaluated, `${{ inputs.* }}` substituted into `env:`, each `run:`
// with `bash -eo pipefail` in order, `$GITHUB_ENV` lines exported to later steps. A job is: the action
// with mode start (install: false, this checkout's bin/ on PATH), an official SDK as the agent, the action
// with mode stop. The provider is the mock.

import OpenAI from 'openai';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { SOURCES_ENV } from '../helpers/cli.ts';
import { createMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';

const ROOT = join(import.meta.dirname, '../..');
const APP_TOKEN = 'action-secret-4d2b8e61f0a7';
const DEPLOY_KEY = 'action-deploy-key-71c9e03a5b';
const ACCOUNT = '98765432109876';

interface ActionStep {
  name: string;
  id?: string;
  if?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
}
const action = parseYaml(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { default?: string }>;
  runs: { using: string; steps: ActionStep[] };
};

/** The subset of GitHub's expression language action.yml uses: `inputs.X ==|!= 'v'` joined by `&&`. */
function evaluate(condition: string, inputs: Record<string, string>): boolean {
  return condition.split('&&').every((clause) => {
    const m = /^\s*inputs\.([\w-]+)\s*(==|!=)\s*'([^']*)'\s*$/.exec(clause);
    if (m === null) throw new Error(`ci-action.test: cannot evaluate "${clause}"`);
    const value = inputs[m[1] as string];
    if (value === undefined) throw new Error(`ci-action.test: no input ${m[1]}`);
    return m[2] === '==' ? value === m[3] : value !== m[3];
  });
}

const substitute = (text: string, inputs: Record<string, string>): string =>
  text.replace(/\$\{\{\s*inputs\.([\w-]+)\s*\}\}/g, (_, name: string) => {
    if (inputs[name] === undefined) throw new Error(`ci-action.test: no input ${name}`);
    return inputs[name] as string;
  });

/** Runs a step in `cwd` (the job's own directory: no .env of this checkout is ever near ficta). */
function bash(script: string, env: NodeJS.ProcessEnv, cwd: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { env, cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

let up: MockUpstream;
let dir: string;

beforeAll(async () => {
  up = await createMockUpstream({ secrets: [APP_TOKEN, DEPLOY_KEY, ACCOUNT] });
  dir = mkdtempSync(join(tmpdir(), 'ficta-action-'));
});
afterAll(async () => {
  await up.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A runner for one job: its temp dir, $GITHUB_ENV, outputs and summary files, and the job's env. */
function createJob(name: string, jobEnv: Record<string, string> = {}) {
  const temp = join(dir, name);
  mkdirSync(temp, { recursive: true });
  const files = { env: join(temp, 'github_env'), output: join(temp, 'github_output'), summary: join(temp, 'step_summary') };
  for (const f of Object.values(files)) writeFileSync(f, '');
  const exported = (): Record<string, string> =>
    Object.fromEntries(
      readFileSync(files.env, 'utf8')
        .split('\n')
        .filter((l) => l.includes('='))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
  /** Runs the action's steps for `with`; stops at the first failing step, as a runner does. */
  async function use(withInputs: Record<string, string>) {
    const inputs = { ...Object.fromEntries(Object.entries(action.inputs).map(([k, v]) => [k, v.default ?? ''])), ...withInputs };
    const ran: Array<{ name: string; status: number | null; stdout: string; stderr: string }> = [];
    for (const step of action.runs.steps) {
      if (step.if !== undefined && !evaluate(step.if, inputs)) continue;
      if (step.uses !== undefined) throw new Error(`ci-action.test: step "${step.name}" uses ${step.uses}, which this test cannot play`);
      const stepEnv = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, substitute(v, inputs)]));
      const r = await bash(step.run ?? '', {
        PATH: `${join(ROOT, 'bin')}:${process.env.PATH}`,
        HOME: temp,
        FICTA_HOME: join(temp, 'ficta-home'),
        ...SOURCES_ENV,
        FICTA_OPENAI_UPSTREAM: up.url,
        FICTA_ANTHROPIC_UPSTREAM: up.url,
        RUNNER_TEMP: temp,
        GITHUB_ACTIONS: 'true',
        GITHUB_ACTION_PATH: ROOT,
        GITHUB_ENV: files.env,
        GITHUB_OUTPUT: files.output,
        GITHUB_STEP_SUMMARY: files.summary,
        ...jobEnv,
        ...exported(),
        ...stepEnv,
      }, temp);
      ran.push({ name: step.name, ...r });
      if (r.status !== 0) break;
    }
    return ran;
  }
  return { temp, files, exported, use };
}

describe('action.yml (composite action: mode start, the job, mode stop)', () => {
  it('registers the secrets given and named, exports masked base URLs, restores, and reports on stop', async () => {
    const job = createJob('ok', { DEPLOY_KEY });
    const start = await job.use({ install: 'false', secrets: `APP_TOKEN=${APP_TOKEN}\n`, 'secret-env': 'DEPLOY_KEY' });
    expect(start.map((s) => s.name)).toEqual(['Start ficta']);
    expect(start[0]?.status, start[0]?.stderr).toBe(0);
    const env = job.exported();
    expect(Object.keys(env).sort()).toEqual(['ANTHROPIC_BASE_URL', 'FICTA_URL', 'GOOGLE_GEMINI_BASE_URL', 'OPENAI_BASE_URL']);
    const token = /\/t\/([^/]+)/.exec(env.FICTA_URL as string)?.[1] as string;
    expect(token.length).toBeGreaterThan(16);
    expect(start[0]?.stdout).toContain(`::add-mask::${token}`);
    expect(readFileSync(job.files.output, 'utf8')).toContain(`openai-base-url=${env.OPENAI_BASE_URL}\n`);

    // The agent job: an official SDK reading OPENAI_BASE_URL as a later step would.
    const client = new OpenAI({ baseURL: env.OPENAI_BASE_URL, apiKey: 'k', maxRetries: 0 });
    const res = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: `use ${APP_TOKEN} and ${DEPLOY_KEY}` }] });
    expect(res.choices[0]?.message.content).toBe(`ECHO: use ${APP_TOKEN} and ${DEPLOY_KEY}`);
    expect(up.leaks).toEqual([]);

    const stop = await job.use({ mode: 'stop', 'fail-on-block': 'true', 'fail-on-withhold': 'true' });
    expect(stop.map((s) => [s.name, s.status])).toEqual([['Stop ficta and print the run report', 0]]);
    expect(stop[0]?.stdout).toMatch(/redactions\s+APP_TOKEN 1, DEPLOY_KEY 1|redactions\s+DEPLOY_KEY 1, APP_TOKEN 1/);
    expect(stop[0]?.stdout).toMatch(/blocked\s+0/);
    expect(readFileSync(job.files.summary, 'utf8')).toMatch(/^### ficta run report\n\n```\nrequests/);
    // The dotenv file with the values is gone; the log never had them.
    expect(existsSync(join(job.temp, 'ficta/secrets.env'))).toBe(false);
    const log = readFileSync(join(job.temp, 'ficta/log'), 'utf8');
    for (const v of [APP_TOKEN, DEPLOY_KEY, token]) expect(log).not.toContain(v);
  }, 60_000);

  it('fail-on-block: a blocked request fails the stop step with exit 3', async () => {
    const job = createJob('block');
    const start = await job.use({ install: 'false', secrets: `ACCOUNT=${ACCOUNT}\n` });
    expect(start[0]?.status, start[0]?.stderr).toBe(0);
    const r = await fetch(`${job.exported().OPENAI_BASE_URL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: `{"model":"x","n":${ACCOUNT},"messages":[]}`,
    });
    expect(r.status).toBe(403);
    await r.arrayBuffer();
    const stop = await job.use({ mode: 'stop', 'fail-on-block': 'true' });
    expect(stop[0]?.status).toBe(3);
    expect(stop[0]?.stdout).toMatch(/blocked\s+1 \(ACCOUNT 1\)/);
    expect(stop[0]?.stderr).toContain('ficta: report: 1 request(s) blocked (ACCOUNT ×1)');
    expect(up.leaks).toEqual([]);
  }, 60_000);

  it('without fail-on-block the same run only reports; an unknown mode fails at once', async () => {
    const job = createJob('report-only');
    expect((await job.use({ install: 'false', secrets: `ACCOUNT=${ACCOUNT}\n` }))[0]?.status).toBe(0);
    const r = await fetch(`${job.exported().OPENAI_BASE_URL}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"n":${ACCOUNT}}` });
    expect(r.status).toBe(403);
    await r.arrayBuffer();
    const stop = await job.use({ mode: 'stop' });
    expect(stop[0]?.status).toBe(0);
    expect(stop[0]?.stdout).toMatch(/blocked\s+1 \(ACCOUNT 1\)/);
    const bad = await job.use({ mode: 'restart' });
    expect(bad.map((s) => [s.name, s.status])).toEqual([['Check the mode', 2]]);
    expect(bad[0]?.stderr).toContain('ficta: mode must be start or stop, not "restart"');
  }, 60_000);
});

describe('the GitLab CI job in docs/ci.md', () => {
  it('before_script + script in one shell, after_script in another: restores, reports, stops once', async () => {
    const doc = readFileSync(join(ROOT, 'docs/ci.md'), 'utf8');
    const yaml = /## GitLab CI[\s\S]*?```yaml\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(yaml).toBeDefined();
    const job = (parseYaml(yaml as string) as Record<string, any>).agent;
    const temp = join(dir, 'gitlab');
    mkdirSync(temp, { recursive: true });
    const stateDir = join(temp, 'ficta');
    // This checkout stands in for the clone and its install; the agent is a real SDK client.
    const client = join(temp, 'client.mjs');
    writeFileSync(
      client,
      `import OpenAI from ${JSON.stringify(join(ROOT, 'node_modules/openai/index.mjs'))};\n` +
        `const c = new OpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: 'k', maxRetries: 0 });\n` +
        `const r = await c.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'use ' + process.env.DEPLOY_KEY }] });\n` +
        `console.log(r.choices[0].message.content);\n`,
    );
    const adapt = (lines: string[]): string =>
      lines
        .filter((l) => !/git clone|install\.sh/.test(l))
        .map((l) => l.replaceAll('/opt/ficta', ROOT).replaceAll('/tmp/ficta', stateDir).replace('node scripts/agent-job.mjs', `node ${JSON.stringify(client)}`))
        .join('\n');
    const variables = Object.entries(job.variables as Record<string, string>)
      .map(([k, v]) => `export ${k}=${JSON.stringify(String(v).replaceAll('/tmp/ficta', stateDir))}`)
      .join('\n');
    const env = {
      PATH: process.env.PATH,
      HOME: temp,
      FICTA_HOME: join(temp, 'ficta-home'),
      ...SOURCES_ENV,
      FICTA_OPENAI_UPSTREAM: up.url,
      CI_DOTENV: `APP_TOKEN=${APP_TOKEN}\n`,
      DEPLOY_KEY,
    };
    const main = await bash(`${variables}\n${adapt(job.before_script)}\n${adapt(job.script)}`, env, temp);
    expect(main.status, main.stderr).toBe(0);
    expect(main.stdout).toContain(`ECHO: use ${DEPLOY_KEY}`);
    expect(main.stdout).toMatch(/redactions\s+DEPLOY_KEY 1/);
    expect(main.stdout).not.toContain('::add-mask::');
    const after = await bash(`${variables}\n${adapt(job.after_script)}`, env, temp);
    expect(after.status, after.stderr).toBe(0);
    expect(after.stdout + after.stderr).toBe(''); // already stopped in script: nothing left to do
    expect(up.leaks).toEqual([]);
  }, 60_000);
});
