// Gemini CLI's MCP servers: `mcpServers` of its settings, merged by server name (SHALLOW_MERGE in gemini-cli
// 0.61 settingsSchema) in its order — system defaults (/etc/gemini-cli/system-defaults.json), user
// ($GEMINI_CLI_HOME or ~ /.gemini/settings.json), workspace (.gemini/settings.json in the working directory),
// system (/etc/gemini-cli/settings.json) — later wins. `httpUrl` is Streamable HTTP; `url` is HTTP+SSE
// unless `type: "http"`; `command` is a stdio server.

import { homedir } from 'node:os';
import { join } from 'node:path';
import { objectOf, readJsonFile } from './agent-files.ts';
import type { FoundServer, FoundServers } from './found.ts';
import { localServer, remoteServer } from './servers.ts';

export function readGeminiMcp(options: { env: NodeJS.ProcessEnv; cwd: string }): FoundServers {
  const { env, cwd } = options;
  const problems: string[] = [];
  const home = env.GEMINI_CLI_HOME !== undefined && env.GEMINI_CLI_HOME !== '' ? env.GEMINI_CLI_HOME : (env.HOME ?? homedir());
  const files = [
    env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH ?? '/etc/gemini-cli/system-defaults.json',
    join(home, '.gemini', 'settings.json'),
    join(cwd, '.gemini', 'settings.json'),
    env.GEMINI_CLI_SYSTEM_SETTINGS_PATH ?? '/etc/gemini-cli/settings.json',
  ];
  const merged = new Map<string, { entry: Record<string, unknown>; file: string }>();
  for (const file of files) {
    for (const [name, raw] of Object.entries(objectOf(readJsonFile(file, problems)?.mcpServers) ?? {})) {
      const entry = objectOf(raw);
      if (entry !== undefined) merged.set(name, { entry, file });
    }
  }
  const servers: FoundServer[] = [];
  for (const [name, { entry, file }] of merged) {
    const headers = Object.keys(objectOf(entry.headers) ?? {});
    const http = typeof entry.httpUrl === 'string' ? entry.httpUrl : entry.type === 'http' && typeof entry.url === 'string' ? entry.url : undefined;
    const url = http ?? (typeof entry.url === 'string' ? entry.url : undefined);
    if (url !== undefined) {
      const server = remoteServer(name, url, { transport: http === undefined ? 'sse' : 'http', authHeaders: headers, source: file });
      if (server !== undefined) servers.push({ server, entry, approved: true });
    } else if (typeof entry.command === 'string') servers.push({ server: localServer(name, file), entry, approved: true });
  }
  return { servers, problems };
}
