// `ficta gateway init DIR`: a starter gateway in DIR — gateway.toml (the config, naming the two files
// below by absolute path), gateway.key (0600) and an empty tokens.json. Never writes over a file.

import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { FictaError } from '../errors.ts';
import { DEFAULT_ADMIN_PORT } from '../gateway/config.ts';
import { createGatewayKeyFile } from '../gateway/key.ts';
import { emptyTokenFile } from '../gateway/token-file.ts';
import { EXIT_OK } from './exit-codes.ts';
import type { CliIo } from './io.ts';

/** The starter config (TOML), with the paths it names. */
export function starterConfig(dir: string): string {
  return `# ficta gateway (issue 21; docs/gateway.md). Check it with: ficta gateway check --config ${join(dir, 'gateway.toml')}

[gateway]
keyFile = "${join(dir, 'gateway.key')}"       # shared by every instance (a Kubernetes Secret)
tokensFile = "${join(dir, 'tokens.json')}"    # hashes only: ficta gateway token add NAME --group G --config THIS
lastUsedFile = "${join(dir, 'last-used.json')}"
adminHost = "127.0.0.1"
adminPort = ${DEFAULT_ADMIN_PORT}
drainDelay = "5s"
drainTimeout = "60s"
maxConcurrent = 32
retain = "7d"

# Where organisation secrets come from, and which groups may have them restored. Kinds: dotenv, dir
# (a Kubernetes Secret volume), env (by prefix), command (stdout is dotenv or a flat JSON object).
# [[sources]]
# name = "platform"
# type = "dir"
# path = "/etc/ficta/secrets/platform"
# groups = ["platform", "sre"]
# refresh = "30s"

# [upstreams]
# anthropic = "https://api.anthropic.com"
# openai = "https://api.openai.com"
`;
}

/** Writes the three files; refuses when any of them exists. */
export function runInit(dirArg: string, io: CliIo): number {
  const dir = resolve(dirArg);
  const files = { config: join(dir, 'gateway.toml'), key: join(dir, 'gateway.key'), tokens: join(dir, 'tokens.json') };
  const existing = Object.values(files).filter((f) => existsSync(f));
  if (existing.length > 0) throw new FictaError('FICTA_GATEWAY_EXISTS', `gateway: ${existing.join(', ')} already exist(s); nothing was written`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  createGatewayKeyFile(files.key);
  writeFileSync(files.tokens, emptyTokenFile(), { mode: 0o600, flag: 'wx' });
  writeFileSync(files.config, starterConfig(dir), { mode: 0o644, flag: 'wx' });
  io.stdout.write(
    [
      `gateway: wrote ${files.config}, ${files.key} (0600) and ${files.tokens}`,
      `next: add [[sources]] to the config, then: ficta gateway token add NAME --group G --config ${files.config}`,
      `      ficta gateway check --config ${files.config} && ficta gateway --config ${files.config}`,
      '',
    ].join('\n'),
  );
  return EXIT_OK;
}
