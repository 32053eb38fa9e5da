// Plays the GitHub Actions steps of docs/ci.md with bash, as a runner would: each step's `run:` script in
// order, `$GITHUB_ENV` lines exported to later steps, `$GITHUB_PATH` prepended to PATH. The install step
// is replaced by this checkout and the agent job by a real SDK client; the provider is the mock.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SOURCES_ENV } from '../helpers/cli.ts';
import { createMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';

const ROOT = join(import.meta.dirname, '../..');
const SECRET = 'ci-secret-QWxhZGRpbjpvcGVu';

interface Step {
  name: string;
  run: string;
  env: Record<string, string>;
}

/** The steps of the workflow in docs/ci.md (its first yaml block). */
function readSteps(): Step[] {
  const doc = readFileSync(join(ROOT, 'docs/ci.md'), 'utf8');
  const yaml = /```yaml\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
  const steps: Step[] = [];
  const lines = yaml.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^(\s*)- name: (.*)$/.exec(lines[i] as string);
    if (m === null) continue;
    const indent = (m[1] as string).length + 2;
    const step: Step = { name: m[2] as string, run: '', env: {} };
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j] as string;
      if (/^\s*- /.test(line) && line.search(/\S/) < indent) break;
      const run = /^\s*run: (.*)$/.exec(line);
      if (run !== null && run[1] !== '|') step.run = run[1] as string;
      else if (run !== null) {
        const body: string[] = [];
        const base = (lines[j + 1] as string).search(/\S/);
        for (j = j + 1; j < lines.length && ((lines[j] as string).search(/\S/) >= base || (lines[j] as string).trim() === ''); j++) body.push((lines[j] as string).slice(base));
        j--;
        step.run = body.join('\n');
      }
      const env = /^\s{2,}([A-Z_]+): (.*)$/.exec(line);
      if (env !== null && lines.slice(i, j).some((l) => /^\s*env:/.test(l))) step.env[env[1] as string] = env[2] as string;
    }
    steps.push(step);
  }
  return steps;
}

function bash(script: string, env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

let up: MockUpstream;
let dir: string;

beforeAll(async () => {
  up = await createMockUpstream({ secrets: [SECRET] });
  dir = mkdtempSync(join(tmpdir(), 'ficta-ci-'));
});
afterAll(async () => {
  await up.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('docs/ci.md', () => {
  it('has the steps the test plays', () => {
    expect(readSteps().map((s) => s.name)).toEqual(['Install ficta', 'Start ficta', 'Run the agent job', 'Stop ficta and check the report']);
  });

  for (const blockScenario of [false, true]) {
    it(`start in background → wait ready → client job → stop → report${blockScenario ? ' (a blocked request fails the job)' : ''}`, async () => {
      const runnerTemp = join(dir, blockScenario ? 'block' : 'ok');
      mkdirSync(runnerTemp, { recursive: true });
      const githubEnv = join(runnerTemp, 'github_env');
      const githubPath = join(runnerTemp, 'github_path');
      writeFileSync(githubEnv, '');
      writeFileSync(githubPath, `${join(ROOT, 'bin')}\n`);
      const ciDotenv = blockScenario ? `APP_TOKEN=${SECRET}\nACCOUNT=98765432109876\n` : `APP_TOKEN=${SECRET}\n`;
      const clientBody = blockScenario ? `{"model":"x","n":98765432109876,"messages":[]}` : JSON.stringify({ model: 'x', messages: [{ role: 'user', content: `token ${SECRET}` }] });
      const client = join(runnerTemp, 'client.mjs');
      writeFileSync(
        client,
        `const r = await fetch(process.env.OPENAI_BASE_URL + '/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer k' }, body: ${JSON.stringify(clientBody)} });\nconsole.log(r.status, await r.text());\n`,
      );
      const results: Array<{ name: string; status: number | null; stdout: string; stderr: string }> = [];
      for (const step of readSteps()) {
        if (step.name === 'Install ficta') continue; // this checkout is the installed ficta
        const script = step.name === 'Run the agent job' ? `node ${JSON.stringify(client)}` : step.run;
        const exported = Object.fromEntries(
          readFileSync(githubEnv, 'utf8')
            .split('\n')
            .filter((l) => l.includes('='))
            .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
        );
        const path = `${readFileSync(githubPath, 'utf8').trim().split('\n').reverse().join(':')}:${process.env.PATH}`;
        const env = {
          PATH: path,
          HOME: runnerTemp,
          FICTA_HOME: join(runnerTemp, 'ficta-home'),
          FICTA_OPENAI_UPSTREAM: up.url,
          FICTA_ANTHROPIC_UPSTREAM: up.url,
          RUNNER_TEMP: runnerTemp,
          ...SOURCES_ENV,
          GITHUB_ENV: githubEnv,
          GITHUB_PATH: githubPath,
          ...exported,
          ...(step.env.CI_SECRETS !== undefined ? { CI_SECRETS: ciDotenv } : {}),
        };
        // Asynchronously: the mock provider lives in this process and must keep answering.
        const r = await bash(script, env);
        results.push({ name: step.name, status: r.status, stdout: r.stdout, stderr: r.stderr });
        if (r.status !== 0) break;
      }
      const [start, job, stop] = results;
      expect(start?.status, start?.stderr).toBe(0);
      expect(job?.status).toBe(0);
      expect(existsSync(join(runnerTemp, 'ficta.ready'))).toBe(false); // removed on exit
      expect(readFileSync(join(runnerTemp, 'ficta.out'), 'utf8')).toMatch(/^ficta listening on http:\/\/127\.0\.0\.1:\d+\n$/);
      const log = readFileSync(join(runnerTemp, 'ficta.log'), 'utf8');
      expect(log).not.toContain(SECRET);
      if (!blockScenario) {
        expect(job?.stdout).toContain(`ECHO: token ${SECRET}`);
        expect(stop?.status).toBe(0);
        expect(stop?.stdout).toContain('redactions      APP_TOKEN 1');
        expect(stop?.stdout).toContain('blocked         0');
      } else {
        expect(job?.stdout).toMatch(/^403 /);
        expect(stop?.status).toBe(3);
        expect(stop?.stdout).toContain('blocked         1 (ACCOUNT 1)');
        expect(stop?.stderr).toContain('ficta: report: 1 request(s) blocked (ACCOUNT ×1)');
      }
      expect(up.leaks).toEqual([]);
    });
  }
});
