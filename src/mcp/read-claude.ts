// Claude Code's MCP servers, read as Claude Code 2.1.197 reads them (its `getClaudeCodeMcpConfigs`):
// user scope (`mcpServers` of ~/.claude.json, or $CLAUDE_CONFIG_DIR/.claude.json), project scope
// (`.mcp.json` in every directory from the root down to the working directory, the deeper one winning)
// and local scope (`projects[<dir>].mcpServers` of the same file); local beats project beats user.
// A project server is used only once approved (`enabledMcpjsonServers`, `enableAllProjectMcpServers`),
// or by itself in `-p` runs; `disabledMcpjsonServers` turns it off. `${VAR}` is expanded in URLs.

import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { dirsDownTo, expandVars, gitRoot, objectOf, readJsonFile } from './agent-files.ts';
import type { FoundServer, FoundServers } from './found.ts';
import { localServer, remoteServer } from './servers.ts';

export interface ClaudeReadOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Claude Code's arguments: `-p`/`--print` (project servers approved by themselves), `--mcp-config`, `--strict-mcp-config`. */
  args: readonly string[];
}

/** The global config file: $CLAUDE_CONFIG_DIR/.claude.json, else ~/.claude.json. */
export function claudeGlobalFile(env: NodeJS.ProcessEnv): string {
  const dir = env.CLAUDE_CONFIG_DIR;
  return dir !== undefined && dir !== '' ? join(dir, '.claude.json') : join(env.HOME ?? homedir(), '.claude.json');
}

export function readClaudeMcp(options: ClaudeReadOptions): FoundServers {
  const { env, cwd } = options;
  const print = options.args.includes('-p') || options.args.includes('--print');
  const problems: string[] = [];
  const given = mcpConfigArgs(options.args, cwd, problems);
  const globalFile = claudeGlobalFile(env);
  const global = readJsonFile(globalFile, problems) ?? {};
  const projects = objectOf(global.projects) ?? {};
  const here = resolve(cwd);
  const root = gitRoot(here);
  const project = objectOf(projects[here]) ?? (root === undefined ? undefined : objectOf(projects[root])) ?? {};
  const settings = settingsFiles(env, here, root).map((f) => readJsonFile(f, problems) ?? {});
  const listed = (key: string, name: string): boolean => [project, ...settings].some((s) => Array.isArray(s[key]) && (s[key] as unknown[]).includes(name));
  const allApproved = [project, ...settings].some((s) => s.enableAllProjectMcpServers === true);

  const byName = new Map<string, FoundServer>();
  const put = (servers: unknown, source: string, approved: (name: string) => boolean | undefined): void => {
    for (const [name, raw] of Object.entries(objectOf(servers) ?? {})) {
      const entry = objectOf(raw);
      if (entry === undefined) continue;
      const ok = approved(name);
      if (ok === undefined) continue;
      const found = toFound(name, entry, source, env, ok);
      if (found !== undefined) byName.set(name, found);
    }
  };
  put(global.mcpServers, `${globalFile} (user)`, () => true);
  const mcpJson: Record<string, { entry: unknown; file: string }> = {};
  for (const dir of dirsDownTo(here)) {
    const file = join(dir, '.mcp.json');
    const servers = objectOf(readJsonFile(file, problems)?.mcpServers);
    for (const [name, entry] of Object.entries(servers ?? {})) mcpJson[name] = { entry, file };
  }
  for (const [name, { entry, file }] of Object.entries(mcpJson)) {
    put({ [name]: entry }, `${file} (project)`, (n) => {
      if (listed('disabledMcpjsonServers', n)) return undefined;
      const approved = allApproved || listed('enabledMcpjsonServers', n);
      // A pending server of a name the user or local scope already has is skipped by Claude Code.
      if (!approved && byName.has(n) && !print) return undefined;
      return approved || print;
    });
  }
  put(project.mcpServers, `${globalFile} projects (local)`, () => true);
  // `--mcp-config` servers win over every scope; with `--strict-mcp-config` they are the only ones. ficta
  // does not carry them (which of two same-named --mcp-config servers wins is not its to decide), but
  // knows their hosts.
  if (options.args.includes('--strict-mcp-config')) byName.clear();
  for (const { servers, source } of given) put(servers, source, () => false);
  return { servers: [...byName.values()], problems };
}

/** The `mcpServers` of each `--mcp-config` argument (files or JSON strings; the option takes several values). */
function mcpConfigArgs(args: readonly string[], cwd: string, problems: string[]): Array<{ servers: unknown; source: string }> {
  const values: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a.startsWith('--mcp-config=')) values.push(a.slice('--mcp-config='.length));
    else if (a === '--mcp-config') while (i + 1 < args.length && !(args[i + 1] as string).startsWith('-')) values.push(args[++i] as string);
  }
  return values.map((v) => {
    const text = v.trim();
    if (text.startsWith('{')) {
      try {
        return { servers: objectOf(JSON.parse(text))?.mcpServers, source: '--mcp-config' };
      } catch {
        problems.push('--mcp-config: not valid JSON');
        return { servers: undefined, source: '--mcp-config' };
      }
    }
    const file = resolve(cwd, text);
    return { servers: readJsonFile(file, problems)?.mcpServers, source: `${file} (--mcp-config)` };
  });
}

/** Claude Code's settings files that may approve project servers (user, project, local). */
function settingsFiles(env: NodeJS.ProcessEnv, cwd: string, root: string | undefined): string[] {
  const configDir = env.CLAUDE_CONFIG_DIR !== undefined && env.CLAUDE_CONFIG_DIR !== '' ? env.CLAUDE_CONFIG_DIR : join(env.HOME ?? homedir(), '.claude');
  const base = root ?? cwd;
  return [join(configDir, 'settings.json'), join(base, '.claude', 'settings.json'), join(base, '.claude', 'settings.local.json')];
}

function toFound(name: string, entry: Record<string, unknown>, source: string, env: NodeJS.ProcessEnv, approved: boolean): FoundServer | undefined {
  const type = typeof entry.type === 'string' ? entry.type : undefined;
  if (type === 'sdk') return undefined;
  if (typeof entry.url === 'string' && (type === 'http' || type === 'sse' || type === undefined)) {
    const headers = Object.keys(objectOf(entry.headers) ?? {});
    const server = remoteServer(name, expandVars(entry.url, env), { transport: type === 'sse' ? 'sse' : 'http', authHeaders: headers, source });
    return server === undefined ? undefined : { server, entry, approved };
  }
  if (typeof entry.url === 'string') {
    // ws / ws-ide: remote, but not over HTTP; its host is still the destination.
    const server = remoteServer(name, expandVars(entry.url, env).replace(/^ws(s?):/, 'http$1:'), { source });
    if (server === undefined) return undefined;
    const { transport: _transport, ...rest } = server;
    return { server: rest, entry, approved: false };
  }
  if (typeof entry.command === 'string') return { server: localServer(name, source), entry, approved };
  return undefined;
}
