// Codex's MCP servers: `[mcp_servers.<name>]` in config.toml — /etc/codex/config.toml, then
// $CODEX_HOME/config.toml (~/.codex), then each project's `.codex/config.toml` from the repository root down
// to the working directory (later wins, per server). `command` is a stdio server, `url` a Streamable HTTP
// one (credentials: `bearer_token_env_var`, `http_headers`, `env_http_headers`); `enabled = false` is off.

import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseToml } from '../config/toml.ts';
import { dirsDownTo, gitRoot, objectOf } from './agent-files.ts';
import type { FoundServer, FoundServers } from './found.ts';
import { localServer, remoteServer } from './servers.ts';

export function codexHome(env: NodeJS.ProcessEnv): string {
  return env.CODEX_HOME !== undefined && env.CODEX_HOME !== '' ? env.CODEX_HOME : join(env.HOME ?? homedir(), '.codex');
}

export function readCodexMcp(options: { env: NodeJS.ProcessEnv; cwd: string }): FoundServers {
  const problems: string[] = [];
  const root = gitRoot(options.cwd);
  const files = ['/etc/codex/config.toml', join(codexHome(options.env), 'config.toml'), ...dirsDownTo(options.cwd, root).map((d) => join(d, '.codex', 'config.toml'))];
  const merged = new Map<string, { entry: Record<string, unknown>; file: string }>();
  for (const file of [...new Set(files)]) {
    if (!existsSync(file)) continue;
    let doc: Record<string, unknown>;
    try {
      doc = parseToml(readFileSync(file, 'utf8'));
    } catch {
      problems.push(`${file}: not valid TOML`);
      continue;
    }
    for (const [name, raw] of Object.entries(objectOf(doc.mcp_servers) ?? {})) {
      const entry = objectOf(raw);
      if (entry === undefined) continue;
      merged.set(name, { entry: { ...(merged.get(name)?.entry ?? {}), ...entry }, file });
    }
  }
  const servers: FoundServer[] = [];
  for (const [name, { entry, file }] of merged) {
    if (entry.enabled === false) continue;
    if (typeof entry.url === 'string') {
      const headers = [...Object.keys(objectOf(entry.http_headers) ?? {}), ...Object.keys(objectOf(entry.env_http_headers) ?? {})];
      if (typeof entry.bearer_token_env_var === 'string') headers.push('authorization');
      const server = remoteServer(name, entry.url, { transport: 'http', authHeaders: headers, source: file });
      if (server !== undefined) servers.push({ server, entry, approved: true });
    } else if (typeof entry.command === 'string') servers.push({ server: localServer(name, file), entry, approved: true });
  }
  return { servers, problems };
}
