// Starts `ficta gateway` as a child process (this checkout's sources), waits for its `gateway_listening`
// line, and writes gateway directories (config, key, token file) for tests.

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, runCli, SOURCES_ENV } from './cli.ts';

export interface GatewayProcess {
  child: ChildProcessWithoutNullStreams;
  url: string;
  adminUrl: string;
  /** Lines on stdout (the audit trail: one JSON request line each). */
  stdoutLines(): string[];
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `ficta gateway --config FILE ARGS…` in `cwd` with its own HOME and FICTA_HOME. */
export async function startGateway(configFile: string, options: { args?: string[]; env?: NodeJS.ProcessEnv; cwd: string }): Promise<GatewayProcess> {
  const child = spawn(BIN, ['gateway', '--config', configFile, ...(options.args ?? [])], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH, ...SOURCES_ENV, HOME: options.cwd, FICTA_HOME: join(options.cwd, 'home'), ...options.env },
    stdio: 'pipe',
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  const listening = await new Promise<{ url: string; admin: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start: ${stderr}`)), 30_000);
    child.stderr.on('data', (d) => {
      stderr += d.toString();
      for (const line of stderr.split('\n')) {
        if (!line.includes('"event":"gateway_listening"')) continue;
        clearTimeout(timer);
        const rec = JSON.parse(line) as { url: string; admin: string };
        resolve({ url: rec.url, admin: rec.admin });
        return;
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`gateway exited before listening: ${stderr}`));
    });
  });
  return {
    child,
    url: listening.url.replace('0.0.0.0', '127.0.0.1'),
    adminUrl: listening.admin,
    stdoutLines: () => stdout.split('\n').filter((l) => l !== ''),
    stderr: () => stderr,
    exited,
  };
}

export interface GatewayDir {
  dir: string;
  config: string;
  tokensFile: string;
  keyFile: string;
}

/** Writes a gateway directory: a key, an empty token file and `gateway.toml` with `extraToml` (top-level keys, other tables) then `[gateway]`. */
export function writeGatewayDir(dir: string, gateway: Record<string, string | number | boolean>, extraToml = ''): GatewayDir {
  mkdirSync(dir, { recursive: true });
  const keyFile = join(dir, 'gateway.key');
  const tokensFile = join(dir, 'tokens.json');
  writeFileSync(keyFile, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  writeFileSync(tokensFile, '{"version":1,"tokens":[]}\n', { mode: 0o600 });
  const lines = ['[gateway]', `keyFile = ${JSON.stringify(keyFile)}`, `tokensFile = ${JSON.stringify(tokensFile)}`];
  for (const [k, v] of Object.entries(gateway)) lines.push(`${k} = ${JSON.stringify(v)}`);
  const config = join(dir, 'gateway.toml');
  // Top-level keys and other tables first: in TOML, whatever follows `[gateway]` belongs to it.
  writeFileSync(config, `${extraToml}\n${lines.join('\n')}\n`);
  return { dir, config, tokensFile, keyFile };
}

/** `ficta gateway token add NAME --group G…`: the token it printed. */
export async function addTenant(configFile: string, name: string, groups: readonly string[], cwd: string): Promise<string> {
  const r = await runCli(['gateway', 'token', 'add', name, ...groups.flatMap((g) => ['--group', g]), '--config', configFile], { env: { HOME: cwd, FICTA_HOME: join(cwd, 'home') } });
  if (r.code !== 0) throw new Error(`token add failed: ${r.stderr}`);
  return r.stdout.trim();
}
