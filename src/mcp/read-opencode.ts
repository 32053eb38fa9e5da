// opencode's MCP servers: the `mcp` table of its config, merged per server in its order — global
// (~/.config/opencode/config.json, opencode.json, opencode.jsonc), $OPENCODE_CONFIG, the project's
// opencode.json[c] and .opencode/opencode.json[c] from the repository root down to the working directory,
// then $OPENCODE_CONFIG_CONTENT. `type: "remote"` has a `url` (Streamable HTTP, SSE as fallback),
// `type: "local"` a `command`; `enabled: false` is off.

import { homedir } from 'node:os';
import { join } from 'node:path';
import { dirsDownTo, gitRoot, objectOf, readJsonFile, stripJsonComments } from './agent-files.ts';
import type { FoundServer, FoundServers } from './found.ts';
import { localServer, remoteServer } from './servers.ts';

export function readOpencodeMcp(options: { env: NodeJS.ProcessEnv; cwd: string }): FoundServers {
  const { env, cwd } = options;
  const problems: string[] = [];
  const xdg = env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : join(env.HOME ?? homedir(), '.config');
  const files = [join(xdg, 'opencode', 'config.json'), join(xdg, 'opencode', 'opencode.json'), join(xdg, 'opencode', 'opencode.jsonc')];
  if (env.OPENCODE_CONFIG !== undefined && env.OPENCODE_CONFIG !== '') files.push(env.OPENCODE_CONFIG);
  for (const dir of dirsDownTo(cwd, gitRoot(cwd))) files.push(join(dir, 'opencode.json'), join(dir, 'opencode.jsonc'), join(dir, '.opencode', 'opencode.json'), join(dir, '.opencode', 'opencode.jsonc'));
  const docs: Array<{ doc: Record<string, unknown>; source: string }> = [];
  for (const file of files) {
    const doc = readJsonFile(file, problems);
    if (doc !== undefined) docs.push({ doc, source: file });
  }
  const inline = env.OPENCODE_CONFIG_CONTENT;
  if (inline !== undefined && inline.trim() !== '') {
    try {
      const doc = objectOf(JSON.parse(stripJsonComments(inline)));
      if (doc !== undefined) docs.push({ doc, source: 'OPENCODE_CONFIG_CONTENT' });
    } catch {
      problems.push('OPENCODE_CONFIG_CONTENT: not valid JSON');
    }
  }
  const merged = new Map<string, { entry: Record<string, unknown>; file: string }>();
  for (const { doc, source } of docs) {
    for (const [name, raw] of Object.entries(objectOf(doc.mcp) ?? {})) {
      const entry = objectOf(raw);
      if (entry !== undefined) merged.set(name, { entry: { ...(merged.get(name)?.entry ?? {}), ...entry }, file: source });
    }
  }
  const servers: FoundServer[] = [];
  for (const [name, { entry, file }] of merged) {
    if (entry.enabled === false) continue;
    if (entry.type === 'remote' && typeof entry.url === 'string') {
      const server = remoteServer(name, entry.url, { transport: 'http', authHeaders: Object.keys(objectOf(entry.headers) ?? {}), source: file });
      if (server !== undefined) servers.push({ server, entry, approved: true });
    } else if (entry.type === 'local' || Array.isArray(entry.command)) servers.push({ server: localServer(name, file), entry, approved: true });
  }
  return { servers, problems };
}
