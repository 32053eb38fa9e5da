// Gemini CLI (@google/gemini-cli 0.61.0, a pinned devDependency) runs headless through `ficta gemini`
// against the mock Gemini upstream: the text it streams (placeholders split across alt=sse events) and its
// write_file tool get the exact secrets, on disk too (one needs JSON escaping, one is the user's own
// Gemini key, registered and still authenticating), the mock sees only placeholders, and no connection
// leaves 127.0.0.1 — Gemini CLI's own side traffic ends at ficta.

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { geminiCliModel, writePrompt } from '../helpers/agent-models.ts';
import { BIN, SOURCES_ENV } from '../helpers/cli.ts';
import { createEgressRecorder, type EgressRecorder } from '../helpers/egress-recorder.ts';
import { dotenvQuote } from '../helpers/ficta-server.ts';
import { createMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';

const GEMINI_KEY = 'AIzaSyFAKE-user-gemini-key-0000000000000';
const WEIRD = 'pa"ss\\wörd-G1';
const GEMINI = join(import.meta.dirname, '../../node_modules/.bin/gemini');

let up: MockUpstream;
let egress: EgressRecorder;
let dir: string;

beforeAll(async () => {
  up = await createMockUpstream({ secrets: [GEMINI_KEY, WEIRD], script: geminiCliModel() });
  egress = await createEgressRecorder();
  dir = mkdtempSync(join(tmpdir(), 'ficta-gemini-'));
});
afterAll(async () => {
  await up.close();
  await egress.close();
  rmSync(dir, { recursive: true, force: true });
});

function run(args: string[], env: Record<string, string>, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, args, { cwd, env: { PATH: process.env.PATH, ...SOURCES_ENV, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('Gemini CLI through ficta gemini', () => {
  it('writes the exact secrets with write_file, authenticates with the registered key, and opens no outside connection', async () => {
    const home = join(dir, 'home');
    const work = join(dir, 'work');
    const fictaHome = join(dir, 'ficta');
    mkdirSync(join(home, '.gemini'), { recursive: true });
    mkdirSync(work);
    // Headless Gemini CLI 0.61 needs an auth type in its settings (see docs/agents.md: GOOGLE_GEMINI_BASE_URL alone selects "gateway", which it refuses).
    writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }));
    const envFile = join(dir, 'app.env');
    writeFileSync(envFile, `DB_PASSWORD=${dotenvQuote(WEIRD)}\nGEMINI_API_KEY=${GEMINI_KEY}\n`);
    const target = join(work, 'out.txt');
    const content = `password=${WEIRD} key=${GEMINI_KEY}`;

    const r = await run(
      ['gemini', '--env-file', envFile, '--', '-m', 'gemini-x', '-p', writePrompt(target, content), '--yolo', '--skip-trust', '--output-format', 'stream-json'],
      { ...egress.env, HOME: home, FICTA_HOME: fictaHome, FICTA_GEMINI_UPSTREAM: up.url, FICTA_GEMINI_BIN: GEMINI, GEMINI_API_KEY: GEMINI_KEY },
      work,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('has no auth type');
    // stream-json: the assistant's text as it streamed (placeholders split across events, restored once), then the call.
    const events = r.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
    const said = events.filter((e) => e.type === 'message' && e.role === 'assistant').map((e) => e.content as string);
    expect(said.join('')).toBe(`Writing ${content}Done: the file is written.`);
    expect(events.find((e) => e.type === 'tool_use')?.parameters).toEqual({ file_path: target, content });
    expect(events.at(-1)).toMatchObject({ type: 'result', status: 'success' });
    expect(readFileSync(target, 'utf8')).toBe(content);

    expect(up.leaks).toEqual([]);
    const calls = up.requests.filter((q) => q.url.includes(':streamGenerateContent?alt=sse'));
    expect(calls.length).toBe(2);
    for (const q of up.requests) expect(q.headers['x-goog-api-key']).toBe(GEMINI_KEY);
    expect(JSON.stringify(calls[0]!.json)).toMatch(/password=~ficta_[a-z2-7]{20} key=~ficta_[a-z2-7]{20}/);

    // Nothing reached the outside; what Gemini CLI tried on its own ended at ficta (usage statistics).
    expect(egress.attempts).toEqual([]);
    const refused = readFileSync(join(fictaHome, 'run.log'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"egress_refused"'))
      .map((l) => JSON.parse(l).route as string);
    for (const t of refused) expect(['play.googleapis.com:443', 'registry.npmjs.org:443']).toContain(t);
  });

  it('with only GEMINI_API_KEY and no settings.json, says in one line what to set (Gemini CLI refuses "gateway" headless: 41)', async () => {
    const home = join(dir, 'bare-home');
    const work = join(dir, 'bare-work');
    mkdirSync(home);
    mkdirSync(work);
    const envFile = join(dir, 'bare.env');
    writeFileSync(envFile, `GEMINI_API_KEY=${GEMINI_KEY}\n`);
    const env = { ...egress.env, HOME: home, FICTA_HOME: join(dir, 'bare-ficta'), FICTA_GEMINI_UPSTREAM: up.url, FICTA_GEMINI_BIN: GEMINI, GEMINI_API_KEY: GEMINI_KEY };
    const before = up.requests.length;
    const r = await run(['gemini', '--env-file', envFile, '--', '-m', 'gemini-x', '-p', 'hello', '--skip-trust'], env, work);
    // Gemini CLI's own refusal, unchanged; ficta's one line before it names the file and the setting.
    expect(r.code).toBe(41);
    expect(r.stderr).toContain('Invalid auth method selected.');
    const hints = r.stderr.split('\n').filter((l) => l.includes('has no auth type'));
    expect(hints).toEqual([
      `ficta: warning: gemini: Gemini CLI has no auth type in ${join(home, '.gemini', 'settings.json')}, so GOOGLE_GEMINI_BASE_URL makes it pick "gateway", which it refuses in a headless run (exit 41): set "security": {"auth": {"selectedType": "gemini-api-key"}} there (or run gemini once and choose "Use Gemini API key")`,
    ]);
    expect(up.requests.length).toBe(before);
    // Doing what the line says makes the same run work (the settings file is the test's, in its own HOME).
    mkdirSync(join(home, '.gemini'), { recursive: true });
    writeFileSync(join(home, '.gemini', 'settings.json'), '{\n  // as the line says\n  "security": {"auth": {"selectedType": "gemini-api-key"}}\n}\n');
    const again = await run(['gemini', '--env-file', envFile, '--', '-m', 'gemini-x', '-p', 'hello', '--skip-trust', '--output-format', 'json'], env, work);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('has no auth type');
    expect(up.requests.length).toBeGreaterThan(before);
    expect(up.leaks).toEqual([]);
  });
});
