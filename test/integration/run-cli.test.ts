// `ficta run`, `ficta claude`, `ficta codex` and `ficta report` as a user runs them: child processes on
// loopback against the mock provider, with the per-run token, exit codes, signals and untouched stdio.

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli, SOURCES_ENV } from '../helpers/cli.ts';
import { runMain } from '../helpers/cli-io.ts';
import { badJsonLines } from '../helpers/json-lines.ts';
import { createMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';

const SECRET = 'run-secret-Zm9vYmFyYmF6';
let up: MockUpstream;
let home: string;
let envFile: string;
const FAKE = join(import.meta.dirname, '../helpers/fake-agent.mjs');

beforeAll(async () => {
  up = await createMockUpstream({ secrets: [SECRET] });
  home = mkdtempSync(join(tmpdir(), 'ficta-run-'));
  envFile = join(home, 'app.env');
  writeFileSync(envFile, `APP_SECRET=${SECRET}\n`);
});
afterAll(async () => {
  await up.close();
  rmSync(home, { recursive: true, force: true });
});

function baseEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { FICTA_HOME: home, FICTA_ANTHROPIC_UPSTREAM: up.url, FICTA_OPENAI_UPSTREAM: up.url, ...extra };
}

const SDK_SCRIPT = join(import.meta.dirname, '../helpers/sdk-script.mjs');

describe('ficta run', () => {
  it('runs an SDK script behind the proxy: redacted upstream, restored output, token enforced, exit code passed on', async () => {
    const before = up.requests.length;
    const r = await runCli(['run', '--env-file', envFile, '--', process.execPath, SDK_SCRIPT], { env: { ...baseEnv(), PROMPT: `my secret is ${SECRET}`, EXIT_CODE: '7' } });
    expect(r.stdout).toBe(`ECHO: my secret is ${SECRET}\nwithout token: 401\n`);
    expect(r.code).toBe(7);
    // One summary block after the command ends: counts by name and outcome, and where the log is; no value.
    expect(r.stderr).toBe(
      [
        'ficta: summary of this run:',
        '  requests        2 (ok 1, unauthorized 1)',
        '  redactions      APP_SECRET 1',
        '  restores        APP_SECRET 1',
        '  blocked         0',
        '  restore misses  0',
        '  upstream errors 0',
        '  withheld        0',
        `  log             ${join(home, 'run.log')}`,
        '',
      ].join('\n'),
    );
    expect(up.requests.length).toBe(before + 1);
    expect(JSON.parse(up.requests.at(-1)!.body.toString()).messages[0].content).toMatch(/^my secret is ~ficta_/);
    expect(up.leaks).toEqual([]);
  });

  it('leaves the command stdout and stderr untouched and keeps ficta logs in FICTA_HOME/run.log', async () => {
    const r = await runCli(['run', '--quiet', '--env-file', envFile, process.execPath, '-e', 'console.log("out"); console.error("err")'], { env: baseEnv() });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('out\n');
    expect(r.stderr).toBe('err\n');
  });

  it('forwards SIGTERM (and SIGINT without a terminal) to the command and exits with its code', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const child = spawn(BIN, ['run', process.execPath, '-e', `process.on('${signal}', () => { console.log('got ${signal}'); process.exit(42); }); console.log('ready'); setInterval(() => {}, 1000);`], {
        cwd: home,
        env: { PATH: process.env.PATH, ...SOURCES_ENV, HOME: home, ...baseEnv() },
      });
      let out = '';
      await new Promise<void>((resolve) => child.stdout.on('data', (d) => ((out += d), out.includes('ready') && resolve())));
      child.kill(signal);
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(out).toContain(`got ${signal}`);
      expect(code).toBe(42);
    }
  });

  it('exits 128+n when the command dies of a signal, and 127 when it does not exist', async () => {
    const killed = await runCli(['run', '-q', '--env-file', envFile, process.execPath, '-e', 'process.kill(process.pid, "SIGKILL")'], { env: baseEnv() });
    expect(killed.code).toBe(137);
    const missing = await runCli(['run', '-q', '--env-file', envFile, 'no-such-command-xyz'], { env: baseEnv() });
    expect(missing.code).toBe(127);
    expect(missing.stderr).toBe('ficta: run: command not found: no-such-command-xyz\n');
  });

  it('writes a report and fails with --fail-on-block when a request was blocked', async () => {
    const reportFile = join(home, 'report.json');
    const script = `const r = await fetch(process.env.OPENAI_BASE_URL + '/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"n": ${JSON.stringify('x')} , "m": "${SECRET}", "k": 12345678901234}' }); console.log(r.status);`;
    writeFileSync(join(home, 'a.mjs'), script);
    writeFileSync(join(home, 'num.env'), `APP_SECRET=${SECRET}\nACCOUNT=12345678901234\n`);
    const r = await runCli(['run', '--env-file', join(home, 'num.env'), '--report-file', reportFile, '--fail-on-block', '--', process.execPath, join(home, 'a.mjs')], { env: baseEnv() });
    expect(r.stdout).toBe('403\n');
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('  blocked         1 (ACCOUNT 1)\n');
    const rep = await runCli(['report', reportFile], { env: baseEnv() });
    expect(rep.stdout).toContain('blocked         1 (ACCOUNT 1)');
    expect(rep.code).toBe(0);
    const fail = await runCli(['report', reportFile, '--fail-on-block'], { env: baseEnv() });
    expect(fail.code).toBe(3);
    expect(JSON.stringify(readFileSync(reportFile, 'utf8'))).not.toContain(SECRET);
  });
});

describe('ficta claude / ficta codex', () => {
  it('claude: sets ANTHROPIC_BASE_URL with the token path and turns off non-essential traffic; args pass through', async () => {
    const out = join(home, 'claude.json');
    const r = await runCli(['claude', '--env-file', envFile, '--', '-p', 'hello', '--output-format', 'json'], {
      env: baseEnv({ FICTA_CLAUDE_BIN: FAKE, FAKE_AGENT_OUT: out, FAKE_AGENT_PROMPT: `key ${SECRET}`, FAKE_AGENT_EXIT: '5', FICTA_VAULT_PASSPHRASE: 'do-not-pass-me' }),
    });
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('agent stdout\n');
    const seen = JSON.parse(readFileSync(out, 'utf8'));
    expect(seen.args).toEqual(['-p', 'hello', '--output-format', 'json']);
    expect(seen.env.ANTHROPIC_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/t\/[A-Za-z0-9_-]{32}\/anthropic$/);
    expect(seen.env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC).toBe('1');
    expect(seen.env.FICTA_VAULT_PASSPHRASE).toBeUndefined();
    expect(seen.status).toBe(200);
    expect(JSON.parse(seen.reply).content[0].text).toBe(`ECHO: key ${SECRET}`);
    expect(up.leaks).toEqual([]);
  });

  it('codex: adds the model-provider overrides (base_url with token, responses, no websockets, analytics off)', async () => {
    const out = join(home, 'codex.json');
    const r = await runCli(['codex', '--env-file', envFile, '--', 'exec', '--skip-git-repo-check', 'do it'], { env: baseEnv({ FICTA_CODEX_BIN: FAKE, FAKE_AGENT_OUT: out, FAKE_AGENT_PROMPT: SECRET }) });
    expect(r.code).toBe(0);
    const seen = JSON.parse(readFileSync(out, 'utf8'));
    const overrides = seen.args.filter((_: string, i: number) => seen.args[i - 1] === '-c');
    expect(overrides).toEqual([
      'model_provider="ficta"',
      'model_providers.ficta.name="ficta"',
      expect.stringMatching(/^model_providers\.ficta\.base_url="http:\/\/127\.0\.0\.1:\d+\/t\/[A-Za-z0-9_-]{32}\/openai\/v1"$/),
      'model_providers.ficta.wire_api="responses"',
      'model_providers.ficta.env_key="OPENAI_API_KEY"',
      'model_providers.ficta.supports_websockets=false',
      'analytics.enabled=false',
      'features.plugins=false',
    ]);
    expect(seen.args.slice(-3)).toEqual(['exec', '--skip-git-repo-check', 'do it']);
    expect(seen.status).toBe(200);
    expect(JSON.parse(seen.reply).output[0].content[0].text).toBe(`ECHO: ${SECRET}`);
  });

  it('says so when the agent is not installed', async () => {
    const r = await runCli(['claude', '-p', 'x'], { env: { ...baseEnv(), PATH: '/nonexistent', FICTA_NODE: process.execPath } });
    expect(r.code).toBe(127);
    expect(r.stderr).toContain('ficta: claude: not found on PATH');
  });
});

describe('problems under ficta run', () => {
  const THREE = `for (let i = 0; i < 3; i++) { const r = await fetch(process.env.OPENAI_BASE_URL + '/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"messages":[]}' }); console.log(r.status); }`;

  it('a dead upstream is visible at once (one line, however many retries), in run.log as warnings, and in the summary', async () => {
    const own = mkdtempSync(join(tmpdir(), 'ficta-dead-'));
    const r = await runCli(['run', '--env-file', envFile, '--openai-upstream', 'http://127.0.0.1:1', '--', process.execPath, '--input-type=module', '-e', THREE], { env: { FICTA_HOME: own } });
    expect([r.code, r.stdout]).toEqual([0, '502\n502\n502\n']);
    const lines = r.stderr.split('\n');
    expect(lines.filter((l) => l.includes('upstream http://127.0.0.1:1'))).toEqual([`ficta: warning: upstream http://127.0.0.1:1 is unreachable (ECONNREFUSED): requests to it get 502; details in ${join(own, 'run.log')}`]);
    expect(r.stderr).toContain('  requests        3 (upstream_unreachable 3)\n');
    expect(r.stderr).toContain('  upstream errors 3\n');
    const log = readFileSync(join(own, 'run.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(log.filter((l) => l.event === 'request').map((l) => [l.level, l.outcome, l.upstream, l.error])).toEqual(Array(3).fill(['warn', 'upstream_unreachable', 'http://127.0.0.1:1', 'ECONNREFUSED']));
    rmSync(own, { recursive: true, force: true });
  });

  it('--quiet drops the summary; --log-format json makes every ficta stderr line JSON', async () => {
    const quiet = await runCli(['run', '-q', '--env-file', envFile, '--openai-upstream', 'http://127.0.0.1:1', '--', process.execPath, '--input-type=module', '-e', THREE], { env: baseEnv() });
    expect(quiet.stderr).not.toContain('summary');
    expect(quiet.stderr.split('\n').filter((l) => l !== '')).toHaveLength(1);
    const json = await runCli(['run', '--log-format', 'json', '--env-file', envFile, '--openai-upstream', 'http://127.0.0.1:1', '--', process.execPath, '--input-type=module', '-e', THREE], { env: baseEnv() });
    expect(badJsonLines(json.stderr)).toEqual([]);
    const lines = json.stderr.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.level, l.event])).toEqual([['warn', 'upstream_failed'], ['warn', 'summary']]);
    expect(lines[1]).toMatchObject({ requests: 3, upstreamErrors: 3, byOutcome: { upstream_unreachable: 3 }, log: join(home, 'run.log') });
    const usage = await runMain(['run', '--log-format', 'json', '--bogus', 'x'], baseEnv());
    expect(usage.code).toBe(125);
    expect(JSON.parse(usage.stderr)).toMatchObject({ level: 'error', code: 'FICTA_USAGE' });
  });

  it('uses 125 for its own failures before the command starts, so they cannot pass for the command’s', async () => {
    // In this process: each fails before anything would be started.
    for (const argv of [['--bogus', 'x'], ['--port', '1', 'x'], [], ['--env-file', join(home, 'missing.env'), process.execPath], ['--log-level', 'loud', process.execPath]]) {
      const r = await runMain(['run', ...argv], baseEnv({ FICTA_LOG_LEVEL: 'silent' }));
      expect([argv, r.code]).toEqual([argv, 125]);
      expect(r.stderr).toMatch(/^ficta: /);
    }
    const agent = await runMain(['codex', '--bogus', '--', 'exec'], baseEnv({ FICTA_CODEX_BIN: FAKE }));
    expect([agent.code, agent.stderr]).toEqual([125, 'ficta: usage: codex: unknown option --bogus; see ficta codex --help\n']);
    const help = await runMain(['run', '--help'], baseEnv());
    expect([help.code, help.stdout.startsWith('usage: ficta run [options] [--] CMD [ARGS…]')]).toEqual([0, true]);
  });
});
