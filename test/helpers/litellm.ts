// Runs the real LiteLLM proxy (PyPI litellm, installed by .ci/deps.d/litellm.sh into a cached venv) on
// loopback with a config the test writes, and keeps its log (with --detailed_debug it prints the bodies it
// receives and sends, which is what shows where a secret would be seen).

import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '../..');
export const LITELLM_MASTER_KEY = 'sk-litellm-master-test-0000';

/** The `litellm` command: FICTA_TEST_LITELLM_BIN, else the venv .ci/deps.d/litellm.sh builds. */
export function litellmBin(): string {
  const fromEnv = process.env.FICTA_TEST_LITELLM_BIN;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const hash = createHash('sha256').update(readFileSync(join(ROOT, '.ci/litellm-requirements.txt'))).digest('hex').slice(0, 12);
  const venv = process.env.FICTA_LITELLM_VENV ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'ficta', `litellm-${hash}`);
  return join(venv, 'bin/litellm');
}

export function litellmInstalled(): boolean {
  return existsSync(litellmBin());
}

/** A port free on loopback now (LiteLLM takes a fixed --port). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface LiteLlmModel {
  /** What clients ask for. */
  name: string;
  /** LiteLLM's provider/model, e.g. `openai/gpt-x` or `anthropic/claude-x`. */
  model: string;
  apiBase: string;
  apiKey: string;
}

export interface LiteLlm {
  url: string;
  /** Everything LiteLLM printed so far (stdout and stderr). */
  log(): string;
  close(): Promise<void>;
}

/** Starts `litellm --config … --port P --detailed_debug` and waits until it answers. */
export async function startLiteLlm(models: LiteLlmModel[], port?: number): Promise<LiteLlm> {
  const dir = mkdtempSync(join(tmpdir(), 'ficta-litellm-'));
  const p = port ?? (await freePort());
  const yaml = [
    'model_list:',
    ...models.flatMap((m) => [
      `  - model_name: ${m.name}`,
      '    litellm_params:',
      `      model: ${m.model}`,
      `      api_base: ${JSON.stringify(m.apiBase)}`,
      `      api_key: ${JSON.stringify(m.apiKey)}`,
    ]),
    'litellm_settings:',
    '  telemetry: false',
    '  num_retries: 0',
    'general_settings:',
    `  master_key: ${LITELLM_MASTER_KEY}`,
    '',
  ].join('\n');
  writeFileSync(join(dir, 'config.yaml'), yaml);
  let out = '';
  const child: ChildProcess = spawn(litellmBin(), ['--config', join(dir, 'config.yaml'), '--host', '127.0.0.1', '--port', String(p), '--detailed_debug'], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      HOME: dir,
      // The bundled price list, not a download; no usage reporting.
      LITELLM_LOCAL_MODEL_COST_MAP: 'True',
      LITELLM_TELEMETRY: 'False',
      NO_PROXY: '127.0.0.1,localhost',
      PYTHONUNBUFFERED: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (out += d.toString()));
  child.stderr!.on('data', (d) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const url = `http://127.0.0.1:${p}`;
  const end = Date.now() + 90_000;
  let gone = false;
  void exited.then(() => (gone = true));
  for (;;) {
    if (gone) throw new Error(`litellm exited before it answered:\n${out.slice(-4000)}`);
    const ok = await fetch(`${url}/health/liveliness`).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > end) {
      child.kill('SIGKILL');
      throw new Error(`litellm did not answer within 90 s:\n${out.slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url,
    log: () => out,
    async close() {
      if (!gone) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
