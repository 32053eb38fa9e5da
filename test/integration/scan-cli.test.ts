// `ficta scan` as a user runs it, on a generated fixture tree: places, kinds, suggested names and keyed
// fingerprints but never values, .gitignore honoured, binary and huge files skipped and counted, --json,
// --env, --git history (with progress on a terminal), --add into a vault (asking first on a terminal), and
// exit codes (1 found, 0 clean, 2 usage).

import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleOf } from '../../fixtures/detect/tokens.ts';
import { kindByName } from '../../src/detect/kinds.ts';
import { mulberry32 } from '../../src/util/prng.ts';
import { BIN, type CliResult, SOURCES_ENV } from '../helpers/cli.ts';
import { runOnPty } from '../helpers/pty.ts';

const rnd = mulberry32(0x5ca9);
const token = (kind: string): string => sampleOf(kindByName(kind)!, rnd).secret;
const GITHUB = token('github-classic-pat');
const STRIPE = token('stripe-secret-key');
const SLACK = token('slack-bot-token');
const IGNORED = token('openai-project-key');
const HISTORIC = token('gitlab-pat');
const PASSWORD = 'Kq9wZr2mXv';
const VALUES = [GITHUB, STRIPE, SLACK, IGNORED, HISTORIC, PASSWORD];

let root: string;
let tree: string;
let home: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'ficta-scan-'));
  tree = join(root, 'project');
  home = join(root, 'home');
  mkdirSync(join(tree, 'config'), { recursive: true });
  mkdirSync(join(tree, 'ignored'), { recursive: true });
  mkdirSync(join(tree, 'node_modules', 'dep'), { recursive: true });
  writeFileSync(join(tree, '.gitignore'), 'ignored/\nnode_modules\n*.log\n');
  writeFileSync(join(tree, '.env'), `# local settings\nGITHUB_TOKEN=${GITHUB}\nDATABASE_URL=postgres://app:${PASSWORD}@db:5432/app\nPORT=3000\n`);
  writeFileSync(join(tree, 'config', 'settings.json'), JSON.stringify({ stripe: { secretKey: STRIPE }, region: 'eu' }, null, 2));
  writeFileSync(join(tree, 'ignored', 'notes.txt'), `token ${IGNORED}\n`);
  writeFileSync(join(tree, 'node_modules', 'dep', 'index.js'), `module.exports = "${IGNORED}";\n`);
  writeFileSync(join(tree, 'debug.log'), `${IGNORED}\n`);
  writeFileSync(join(tree, 'blob.bin'), Buffer.concat([Buffer.from([0, 1, 2, 0]), Buffer.from(IGNORED)]));
  writeFileSync(join(tree, 'huge.txt'), `${'x'.repeat(9000)}\n${IGNORED}\n`);
  writeFileSync(join(tree, 'README.md'), '# project\n\nNothing secret here: ghp_ prefixes, AKIA and sk-ant- in prose.\n');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function ficta(args: string[], options: { cwd?: string; env?: Record<string, string>; input?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, args, { cwd: options.cwd ?? root, env: { PATH: process.env.PATH, ...SOURCES_ENV, HOME: home, FICTA_HOME: home, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

function expectNoValues(r: CliResult): void {
  for (const v of VALUES) expect(r.stdout.includes(v) || r.stderr.includes(v), 'a value was printed').toBe(false);
}

describe('ficta scan', () => {
  it('prints place, kind, name and fingerprint of each credential, honours .gitignore, skips binary and huge files, exits 1', async () => {
    const r = await ficta(['scan', '--max-file-bytes', '8192', 'project']);
    expect(r.code, r.stderr).toBe(1);
    expectNoValues(r);
    const rows = r.stdout.trim().split('\n').map((l) => l.split(/\s{2,}/));
    expect(rows.map(([place, kind, name]) => [place, kind, name])).toEqual([
      ['project/.env:2:14', 'github-classic-pat', 'GITHUB_TOKEN'],
      ['project/.env:3:29', 'url-password', 'DATABASE_URL'],
      ['project/config/settings.json:3:19', 'stripe-secret-key', 'SECRET_KEY'],
    ]);
    for (const row of rows) expect(row[3]).toMatch(/^[0-9a-f]{12}$/);
    expect(r.stderr).toBe('ficta: scan: 3 credentials in 2 places; 4 files scanned, skipped 1 binary, 1 too large\n');
  });

  it('--json: the same findings as one document, with the skip counts, and a stable keyed fingerprint', async () => {
    const a = await ficta(['scan', '--json', '--max-file-bytes', '8192', 'project']);
    const b = await ficta(['scan', '--json', '--max-file-bytes', '8192', 'project']);
    expect(a.code).toBe(1);
    expectNoValues(a);
    const doc = JSON.parse(a.stdout);
    expect(doc.findings.map((f: any) => f.kind)).toEqual(['github-classic-pat', 'url-password', 'stripe-secret-key']);
    expect(doc.findings[0]).toMatchObject({ file: 'project/.env', line: 2, column: 14, name: 'GITHUB_TOKEN' });
    expect(doc.skipped).toMatchObject({ binary: 1, tooLarge: 1 });
    expect(doc.skipped.ignored).toBeGreaterThanOrEqual(3);
    expect(JSON.parse(b.stdout).findings.map((f: any) => f.fingerprint)).toEqual(doc.findings.map((f: any) => f.fingerprint));
  });

  it('shows the verdict: verified (checksum holds), unverified (fails it), format (no checksum)', async () => {
    const dir = join(root, 'verdicts');
    mkdirSync(dir, { recursive: true });
    // The same shape with its last character changed: a GitHub token whose CRC32 no longer holds.
    const broken = GITHUB.slice(0, -1) + (GITHUB.endsWith('A') ? 'B' : 'A');
    writeFileSync(join(dir, 'tokens.env'), `GITHUB_TOKEN=${GITHUB}\nFIXTURE_TOKEN=${broken}\nSLACK_TOKEN=${SLACK}\n`);
    const r = await ficta(['scan', 'verdicts']);
    expect(r.code).toBe(1);
    expect(r.stdout.includes(broken)).toBe(false);
    expectNoValues(r);
    const rows = r.stdout.trim().split('\n').map((l) => l.split(/\s{2,}/));
    expect(rows.map((row) => [row[1], row[2], row[4]])).toEqual([
      ['github-classic-pat', 'GITHUB_TOKEN', 'verified'],
      ['github-classic-pat', 'FIXTURE_TOKEN', 'unverified'],
      ['slack-bot-token', 'SLACK_TOKEN', 'format'],
    ]);
    expect(r.stderr).toBe('ficta: scan: 3 credentials (1 unverified) in 1 place; 1 files scanned\n');
    const doc = JSON.parse((await ficta(['scan', '--json', 'verdicts'])).stdout);
    expect(doc.findings.map((f: any) => f.verdict)).toEqual(['verified', 'unverified', 'format']);
  });

  it('exits 0 on a clean tree, 2 on usage errors', async () => {
    const clean = await ficta(['scan', 'project/README.md']);
    expect(clean.code).toBe(0);
    expect(clean.stdout).toBe('');
    const bad = await ficta(['scan', '--yes']);
    expect(bad.code).toBe(2);
    const noTty = await ficta(['scan', '--add', 'project']);
    expect(noTty.code).toBe(2);
    expect(noTty.stderr).toMatch(/--add asks before importing; without a terminal, pass --yes/);
  });

  it('--env scans the environment by variable name', async () => {
    const r = await ficta(['scan', '--env'], { env: { CI_SLACK: SLACK, EDITOR: 'vim' } });
    expect(r.code).toBe(1);
    expectNoValues(r);
    expect(r.stdout.split(/\s{2,}/).slice(0, 3)).toEqual(['env:CI_SLACK', 'slack-bot-token', 'CI_SLACK']);
  });

  it('--git finds a credential committed once and removed since', async () => {
    const repo = join(root, 'repo');
    mkdirSync(repo);
    const git = (...args: string[]): void => void execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', ...args], { cwd: repo, stdio: 'ignore' });
    git('init', '-q');
    writeFileSync(join(repo, 'deploy.sh'), `#!/bin/sh\nexport GITLAB_TOKEN=${HISTORIC}\n`);
    git('add', '.');
    git('commit', '-q', '-m', 'deploy script');
    writeFileSync(join(repo, 'deploy.sh'), '#!/bin/sh\nexport GITLAB_TOKEN="$(cat ~/.gitlab-token)"\n');
    git('commit', '-q', '-am', 'read the token from a file');
    const r = await ficta(['scan', '--git', '--json'], { cwd: repo });
    expect(r.code, r.stderr).toBe(1);
    expectNoValues(r);
    const doc = JSON.parse(r.stdout);
    expect(doc.findings.map((f: any) => [f.kind, f.file, f.line, f.name])).toEqual([['gitlab-pat', 'deploy.sh', 2, 'GITLAB_TOKEN']]);
    expect(doc.findings[0].commit).toMatch(/^[0-9a-f]{40}$/);
    expect(doc.scanned.commits).toBe(2);
  });

  it('--add --yes imports the findings into the vault once, by their suggested names', async () => {
    const keyFile = join(root, 'vault.key');
    const init = await ficta(['vault', 'init', '--key-file', keyFile]);
    expect(init.code, init.stderr).toBe(0);
    const first = await ficta(['scan', '--add', '--yes', '--key-file', keyFile, '--max-file-bytes', '8192', 'project']);
    expect(first.code, first.stderr).toBe(1);
    expectNoValues(first);
    expect(first.stdout).toContain('added     GITHUB_TOKEN\n');
    expect(first.stdout).toContain('added     DATABASE_URL\n');
    expect(first.stdout).toContain('added     SECRET_KEY\n');
    const list = await ficta(['vault', 'list', '--json', '--key-file', keyFile]);
    expect(JSON.parse(list.stdout).map((e: any) => e.name)).toEqual(['DATABASE_URL', 'GITHUB_TOKEN', 'SECRET_KEY']);
    const again = await ficta(['scan', '--add', '--yes', '--key-file', keyFile, '--max-file-bytes', '8192', 'project']);
    expect(again.stdout).toMatch(/^present {3}GITHUB_TOKEN \(/m);
    expect(again.stderr).toContain('0 added');
  });

  it('--git on a terminal shows how many commits it has read, then clears the line; without a terminal it does not', async () => {
    const repo = join(root, 'long-history');
    mkdirSync(repo);
    execFileSync('git', ['init', '-q'], { cwd: repo });
    // 120 commits in one git process: commit 7 adds a token, the others a harmless line each.
    const stream: string[] = [];
    for (let i = 1; i <= 120; i++) {
      const msg = `change ${i}`;
      const content = i === 7 ? `export GITLAB_TOKEN=${HISTORIC}\n` : `line ${i}\n`;
      stream.push(`commit refs/heads/main\nmark :${i}\ncommitter t <t@example.com> ${1_700_000_000 + i} +0000\ndata ${msg.length}\n${msg}\n`);
      if (i > 1) stream.push(`from :${i - 1}\n`);
      stream.push(`M 100644 inline notes-${i % 3}.sh\ndata ${Buffer.byteLength(content)}\n${content}\n`);
    }
    execFileSync('git', ['fast-import', '--quiet'], { cwd: repo, input: stream.join('') });
    const tty = await runOnPty(['scan', '--git'], { FICTA_HOME: home, HOME: home }, [], 15, repo);
    expect(tty.code, tty.output).toBe(1);
    expect(tty.output).not.toContain(HISTORIC);
    expect(tty.output).toContain('\rficta: scan: git history: 50 commits\rficta: scan: git history: 100 commits\r\u001b[K');
    expect(tty.output).toMatch(/:notes-1\.sh:1 +gitlab-pat +GITLAB_TOKEN +[0-9a-f]{12} +format\r\n/);
    expect(tty.output).toContain('ficta: scan: 1 credential in 1 place; 120 commits\r\n');
    const piped = await ficta(['scan', '--git'], { cwd: repo });
    expect(piped.code).toBe(1);
    expect(piped.stderr).toBe('ficta: scan: 1 credential in 1 place; 120 commits\n');
  });

  it('--add on a terminal asks first: n imports nothing, y imports the findings', async () => {
    const ttyHome = join(root, 'tty-home');
    const keyFile = join(root, 'tty-vault.key');
    const env = { FICTA_HOME: ttyHome, HOME: ttyHome };
    const init = await ficta(['vault', 'init', '--key-file', keyFile], { env });
    expect(init.code, init.stderr).toBe(0);
    const args = ['scan', '--add', '--key-file', keyFile, '--max-file-bytes', '8192', 'project'];
    const question = `add 3 credential(s) to the vault at ${join(ttyHome, 'vault.db')}? [y/N] `;
    const names = async (): Promise<string[]> => JSON.parse((await ficta(['vault', 'list', '--json', '--key-file', keyFile], { env })).stdout).map((e: any) => e.name);

    const no = await runOnPty(args, env, [{ expect: question }, { send: 'n\r' }], 15, root);
    expect(no.code, no.output).toBe(1);
    expect(no.output).toContain('ficta: scan: nothing added\r\n');
    expect(no.output).not.toContain('added     ');
    expect(await names()).toEqual([]);

    const yes = await runOnPty(args, env, [{ expect: question }, { send: 'y\r' }], 15, root);
    expect(yes.code, yes.output).toBe(1);
    expect(yes.output).toContain('added     GITHUB_TOKEN\r\n');
    expect(await names()).toEqual(['DATABASE_URL', 'GITHUB_TOKEN', 'SECRET_KEY']);
    for (const v of VALUES) expect(no.output.includes(v) || yes.output.includes(v), 'a value was printed').toBe(false);
  });
});
