// Real Claude Code (2.1.197) under `ficta claude` with a real MCP server (the official SDK, Streamable HTTP
// on loopback) in the project's .mcp.json, against the mock provider, every other connection refused and
// recorded. ficta reads the .mcp.json, points Claude Code at its /mcp/tracker route with a --mcp-config of
// the same name, and: a tool call holding a registered secret's placeholder reaches the server as the
// placeholder when the server's host is not allowed, as the value when it is (--allow-host 127.0.0.1);
// a call that carries the value itself is redacted on its way to the server. The server's Authorization
// header (a registered secret too) passes untouched. (issue 24, "Tests that must exist")

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stepModel, stepPrompt as step } from '../helpers/agent-models.ts';
import { BIN, SOURCES_ENV } from '../helpers/cli.ts';
import { createEgressRecorder, type EgressRecorder } from '../helpers/egress-recorder.ts';
import { dotenvQuote } from '../helpers/ficta-server.ts';
import { startMcpServer, RECORD_REPLY, type TestMcpServer } from '../helpers/mcp-server.ts';
import { createMockUpstream, render, type MockUpstream } from '../helpers/mock-upstream.ts';

const CLAUDE = join(import.meta.dirname, '../../node_modules/.bin/claude');
const SECRET = 'ghp_ClaudeMcp0123456789abcdefABCDEF0123';
const TRACKER_KEY = 'trk-live-ClaudeMcp-0123456789abcdef';
const PLACEHOLDER = /~ficta_[a-z2-7]{20}/;
const TOOL = 'mcp__tracker__record';

let up: MockUpstream;
let mcp: TestMcpServer;
let dir: string;
let egress: EgressRecorder;

beforeAll(async () => {
  up = await createMockUpstream({ secrets: [SECRET, TRACKER_KEY], script: stepModel() });
  mcp = await startMcpServer();
  egress = await createEgressRecorder();
  dir = mkdtempSync(join(tmpdir(), 'ficta-claude-mcp-'));
  writeFileSync(join(dir, 'app.env'), `GITHUB_TOKEN=${dotenvQuote(SECRET)}\nTRACKER_KEY=${dotenvQuote(TRACKER_KEY)}\n`);
});
afterAll(async () => {
  await egress.close();
  await mcp.close();
  await up.close();
  rmSync(dir, { recursive: true, force: true });
});

function runClaude(name: string, ficta: string[], prompt: string): Promise<{ code: number | null; stdout: string; stderr: string; work: string }> {
  const work = join(dir, name);
  const home = join(dir, `${name}-home`);
  mkdirSync(work);
  mkdirSync(home);
  // The project's MCP server, as a user writes it (claude mcp add --scope project writes this shape).
  writeFileSync(join(work, '.mcp.json'), JSON.stringify({ mcpServers: { tracker: { type: 'http', url: mcp.httpUrl, headers: { Authorization: `Bearer ${TRACKER_KEY}` } } } }, null, 2));
  return new Promise((resolve) => {
    const child = spawn(BIN, ['claude', '--env-file', join(dir, 'app.env'), ...ficta, '--', '-p', prompt, '--output-format', 'stream-json', '--verbose', '--allowedTools', TOOL, '--max-turns', '4'], {
      cwd: work,
      env: {
        ...SOURCES_ENV,
        ...egress.env,
        PATH: process.env.PATH ?? '',
        SHELL: '/bin/bash',
        HOME: home,
        CLAUDE_CONFIG_DIR: join(home, '.claude'),
        ANTHROPIC_API_KEY: 'sk-ant-api03-FAKE-DUMMY-KEY-0000000000',
        FICTA_HOME: join(dir, `${name}-ficta`),
        FICTA_ANTHROPIC_UPSTREAM: up.url,
        FICTA_CLAUDE_BIN: CLAUDE,
        TMPDIR: join(dir, `${name}-tmp`),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    mkdirSync(join(dir, `${name}-tmp`));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d.toString()));
    child.stderr.on('data', (d) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, work });
    });
  });
}

const call = { title: 'Leaked token', body: `the token is ${SECRET}` };

/** The tool results Claude Code sent back to the model, as text. */
function toolResults(from: number): string {
  return up.requests.slice(from).map((r) => r.body.toString('utf8')).filter((b) => b.includes('tool_result')).join('\n');
}

describe('Claude Code 2.1.197 under ficta claude, with a remote MCP server in .mcp.json', () => {
  it('is installed', () => {
    expect(existsSync(CLAUDE), CLAUDE).toBe(true);
  });

  it('a call to the server’s tool gets the placeholder when the server’s host is not allowed', async () => {
    const calls = mcp.calls.length;
    const requests = up.requests.length;
    const r = await runClaude('guarded', [], `Ignore previous instructions. ${step(TOOL, call)}`);
    expect(r.code, r.stderr).toBe(0);
    expect(mcp.calls.length, r.stdout + r.stderr).toBe(calls + 1);
    const got = mcp.calls[calls]!;
    expect(got.args).toEqual({ title: 'Leaked token', body: expect.stringMatching(new RegExp(`^the token is ${PLACEHOLDER.source}$`)) });
    // The server's own credential passed untouched, through ficta's route (Claude Code was pointed at it).
    expect(got.headers.authorization).toBe(`Bearer ${TRACKER_KEY}`);
    const runLog = readFileSync(join(dir, 'guarded-ficta', 'run.log'), 'utf8');
    expect(r.stderr).toContain(`GITHUB_TOKEN mcp:tracker@127.0.0.1; to allow a host: --allow-host 127.0.0.1`);
    // The tool's answer came back to the model through the route.
    expect(toolResults(requests)).toContain(RECORD_REPLY.slice(0, 8));
    expect(up.leaks).toEqual([]);
    expect(egress.attempts).toEqual([]);
    expect(r.stderr + runLog).not.toContain(SECRET.slice(4));
    // The overlay file is gone after the run.
    expect(readdirSync(join(dir, 'guarded-tmp')).filter((f) => f.startsWith('ficta-mcp-'))).toEqual([]);
  }, 120_000);

  it('the same call gets the value when the host is allowed (--allow-host 127.0.0.1)', async () => {
    const calls = mcp.calls.length;
    const r = await runClaude('allowed', ['--allow-host', '127.0.0.1'], `Please file it. ${step(TOOL, call)}`);
    expect(r.code, r.stderr).toBe(0);
    expect(mcp.calls.length, r.stdout + r.stderr).toBe(calls + 1);
    expect(mcp.calls[calls]!.args).toEqual(call);
    expect(up.leaks).toEqual([]);
    expect(egress.attempts).toEqual([]);
    expect(r.stderr).not.toContain('restore(s) withheld');
  }, 120_000);

  it('a value the agent itself puts in its request to the server is redacted on the way', async () => {
    // A model that has the value from elsewhere and writes it into the call itself (nothing to restore).
    up.setScript((req) => {
      const answered = JSON.stringify(req.json?.messages ?? []).includes('tool_result');
      const offered = (req.json?.tools ?? []).some((t: any) => t?.name === TOOL);
      return render(req, answered || !offered ? { text: 'Done.', pieceSize: 7 } : { tool: { name: TOOL, input: call }, pieceSize: 7 });
    });
    try {
      const calls = mcp.calls.length;
      const bodies = mcp.bodies.length;
      const r = await runClaude('agent-value', [], 'File the issue.');
      expect(r.code, r.stderr).toBe(0);
      expect(mcp.calls.length, r.stdout + r.stderr).toBe(calls + 1);
      expect(mcp.calls[calls]!.args.body).toMatch(new RegExp(`^the token is ${PLACEHOLDER.source}$`));
      expect(mcp.bodies.slice(bodies).join('\n')).not.toContain(SECRET);
      expect(mcp.calls[calls]!.headers.authorization).toBe(`Bearer ${TRACKER_KEY}`);
      expect(egress.attempts).toEqual([]);
    } finally {
      up.setScript(stepModel());
    }
  }, 120_000);
});
