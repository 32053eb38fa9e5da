// Starts ficta in-process on 127.0.0.1:0 with secrets from a temporary env file and a temporary
// FICTA_HOME, capturing every log line so tests can check that no value is ever logged.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config/load.ts';
import { createFicta, type Ficta } from '../../src/index.ts';
import { createLogger } from '../../src/log/logger.ts';
import type { SecretSource } from '../../src/secrets/types.ts';
import type { Tenancy } from '../../src/gateway/tenant.ts';

/** Every log line written by any ficta started in this process (for the whole-suite log check). */
export const ALL_LOG_LINES: string[] = [];
/** Every secret value registered by any ficta started in this process. */
export const ALL_SECRET_VALUES = new Set<string>();

export interface TestFicta {
  url: string;
  ficta: Ficta;
  home: string;
  logs: string[];
  /** Parsed `request` log events. */
  requestLogs(): Array<Record<string, any>>;
  close(): Promise<void>;
}

export interface StartOptions {
  secrets?: Record<string, string>;
  upstream: string;
  /** Config overrides in the schema's shape. */
  config?: Record<string, unknown>;
  sources?: SecretSource[];
  home?: string;
  /** Gateway tenancy (issue 21). */
  tenancy?: Tenancy;
}

/** Quotes a value for a dotenv file (double quotes with escapes). */
export function dotenvQuote(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\$/g, '\\$')}"`;
}

/** Starts a proxy for a test. */
export async function startFicta(options: StartOptions): Promise<TestFicta> {
  const home = options.home ?? mkdtempSync(join(tmpdir(), 'ficta-test-'));
  const secrets = options.secrets ?? {};
  for (const v of Object.values(secrets)) ALL_SECRET_VALUES.add(v);
  const envFile = join(home, 'test.env');
  writeFileSync(envFile, Object.entries(secrets).map(([k, v]) => `${k}=${dotenvQuote(v)}`).join('\n') + '\n', { mode: 0o600 });
  const loaded = loadConfig({
    env: { FICTA_HOME: home },
    flags: {
      host: '127.0.0.1',
      port: 0,
      upstreams: { anthropic: options.upstream, openai: options.upstream },
      secrets: { envFiles: [envFile] },
      log: { level: 'debug' },
      ...(options.config ?? {}),
    },
  });
  if (!loaded.ok) throw loaded.error;
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line === '') continue;
        logs.push(line);
        ALL_LOG_LINES.push(line);
      }
      cb();
    },
  });
  const logger = createLogger({ level: 'debug', destination: sink });
  const ficta = await createFicta({ config: loaded.value, logger, env: {}, ...(options.sources ? { sources: options.sources } : {}), ...(options.tenancy ? { tenancy: options.tenancy } : {}) });
  const running = await ficta.listen();
  let closing: Promise<void> | undefined;
  return {
    url: running.url,
    ficta,
    home,
    logs,
    requestLogs: () => logs.map((l) => JSON.parse(l)).filter((l) => l.event === 'request'),
    close() {
      closing ??= (async () => {
        await ficta.close();
        if (options.home === undefined) rmSync(home, { recursive: true, force: true });
      })();
      return closing;
    },
  };
}
