// Reading each agent's MCP servers from files shaped as its documentation shows them, at every scope, with
// the agent's precedence, and the overlays that point the remote ones at ficta (the user's files untouched).

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { opencodeConfig } from '../../src/cli/agent-opencode.ts';
import { agentPlan } from '../../src/cli/agents.ts';
import { readAgentMcp } from '../../src/mcp/agent-servers.ts';
import type { FoundServers } from '../../src/mcp/found.ts';
import { baseUrls } from '../../src/server/access.ts';

let root: string;
let home: string;
let work: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'ficta-mcp-readers-'));
  home = join(root, 'home');
  work = join(root, 'repo', 'pkg');
  mkdirSync(home, { recursive: true });
  mkdirSync(work, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const put = (path: string, text: string): void => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
};
const summary = (found: FoundServers) =>
  Object.fromEntries(found.servers.map((f) => [f.server.name, { kind: f.server.kind, host: f.server.host, transport: f.server.transport, approved: f.approved, headers: f.server.authHeaders }]));

describe('Claude Code: ~/.claude.json (user, local) and .mcp.json (project)', () => {
  beforeEach(() => {
    put(join(home, '.claude.json'), JSON.stringify({
      mcpServers: { sentry: { type: 'http', url: 'https://mcp.sentry.dev/mcp' }, shared: { type: 'sse', url: 'https://user.example/sse' } },
      projects: { [work]: { mcpServers: { shared: { type: 'http', url: 'https://local.example/mcp', headers: { Authorization: 'Bearer ${API_KEY}' } } }, enabledMcpjsonServers: ['approved'], disabledMcpjsonServers: ['rejected'] } },
    }));
    // `claude mcp add --scope project` writes this shape; `${VAR:-default}` is expanded.
    put(join(root, 'repo', '.mcp.json'), JSON.stringify({ mcpServers: { approved: { type: 'http', url: 'https://outer.example/mcp' }, filesystem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem'] } } }));
    put(join(work, '.mcp.json'), JSON.stringify({ mcpServers: { approved: { type: 'http', url: 'https://${TRACKER_HOST:-fallback.example}/mcp' }, pending: { type: 'http', url: 'https://pending.example/mcp' }, rejected: { type: 'http', url: 'https://rejected.example/mcp' } } }));
  });

  test('local beats project beats user; the deeper .mcp.json wins; disabled servers are off', () => {
    const found = readAgentMcp('claude', { HOME: home }, work, ['-p', 'x']);
    expect(summary(found)).toEqual({
      sentry: { kind: 'remote', host: 'mcp.sentry.dev', transport: 'http', approved: true, headers: [] },
      shared: { kind: 'remote', host: 'local.example', transport: 'http', approved: true, headers: ['authorization'] },
      approved: { kind: 'remote', host: 'fallback.example', transport: 'http', approved: true, headers: [] },
      filesystem: { kind: 'local', host: undefined, transport: undefined, approved: true, headers: [] },
      pending: { kind: 'remote', host: 'pending.example', transport: 'http', approved: true, headers: [] },
    });
    expect(found.problems).toEqual([]);
  });

  test('a project server not yet approved is used only in -p runs; ${VAR} comes from the environment', () => {
    const found = readAgentMcp('claude', { HOME: home, TRACKER_HOST: 'tracker.example' }, work);
    expect(summary(found).pending?.approved).toBe(false);
    expect(summary(found).approved).toMatchObject({ host: 'tracker.example', approved: true });
  });

  test('--mcp-config servers win (known, not carried); --strict-mcp-config leaves only them', () => {
    put(join(root, 'extra.json'), JSON.stringify({ mcpServers: { shared: { type: 'http', url: 'https://flag.example/mcp' } } }));
    const inline = JSON.stringify({ mcpServers: { inline: { type: 'sse', url: 'https://inline.example/sse' } } });
    const found = readAgentMcp('claude', { HOME: home }, work, ['--mcp-config', join(root, 'extra.json'), inline, '-p', 'x']);
    expect(summary(found).shared).toMatchObject({ host: 'flag.example', approved: false });
    expect(summary(found).inline).toMatchObject({ host: 'inline.example', transport: 'sse', approved: false });
    expect(summary(found).sentry).toMatchObject({ approved: true });
    const strict = readAgentMcp('claude', { HOME: home }, work, [`--mcp-config=${join(root, 'extra.json')}`, '--strict-mcp-config', '-p']);
    expect(Object.keys(summary(strict))).toEqual(['shared']);
    expect(agentPlan('claude', '/bin/claude', ['--strict-mcp-config'], baseUrls('http://127.0.0.1:5000', 'tok'), {}, strict.servers).args).toEqual(['--strict-mcp-config']);
  });

  test('CLAUDE_CONFIG_DIR moves the global file; an unreadable file is a problem, not a crash', () => {
    put(join(root, 'cfg', '.claude.json'), '{ not json');
    const found = readAgentMcp('claude', { HOME: home, CLAUDE_CONFIG_DIR: join(root, 'cfg') }, work, ['-p']);
    expect(found.problems).toEqual([`${join(root, 'cfg', '.claude.json')}: not valid JSON`]);
    expect(Object.keys(summary(found)).sort()).toEqual(['approved', 'filesystem', 'pending', 'rejected']);
  });

  test('the overlay: a private --mcp-config of the same names pointing at /mcp/<name>, removed afterwards; .mcp.json untouched', () => {
    const before = readFileSync(join(work, '.mcp.json'), 'utf8');
    const found = readAgentMcp('claude', { HOME: home, API_KEY: 'k' }, work, ['-p']);
    const urls = baseUrls('http://127.0.0.1:5000', 'tok');
    const plan = agentPlan('claude', '/bin/claude', ['-p', 'hi'], urls, {}, found.servers);
    const flag = plan.args[0] as string;
    expect(flag.startsWith('--mcp-config=')).toBe(true);
    expect(plan.args.slice(1)).toEqual(['-p', 'hi']);
    const file = flag.slice('--mcp-config='.length);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const overlay = JSON.parse(readFileSync(file, 'utf8'));
    expect(overlay.mcpServers.shared).toEqual({ type: 'http', url: 'http://127.0.0.1:5000/t/tok/mcp/shared', headers: { Authorization: 'Bearer ${API_KEY}' } });
    expect(Object.keys(overlay.mcpServers).sort()).toEqual(['approved', 'pending', 'sentry', 'shared']);
    plan.cleanup?.();
    expect(existsSync(file)).toBe(false);
    expect(readFileSync(join(work, '.mcp.json'), 'utf8')).toBe(before);
  });
});

describe('Codex: [mcp_servers] in config.toml (CODEX_HOME, then .codex/config.toml of the project)', () => {
  test('user and project scopes, Streamable HTTP credentials, enabled = false', () => {
    put(join(home, '.codex', 'config.toml'), [
      '[mcp_servers.docs]', 'url = "https://docs.example/mcp"', 'bearer_token_env_var = "DOCS_TOKEN"', '',
      '[mcp_servers.context7]', 'command = "npx"', 'args = ["-y", "@upstash/context7-mcp"]', '',
      '[mcp_servers.figma]', 'url = "https://figma.example/mcp"', 'http_headers = { "X-Figma-Region" = "us-east-1" }', 'env_http_headers = { "X-Figma-Key" = "FIGMA_KEY" }', '',
      '[mcp_servers.off]', 'url = "https://off.example/mcp"', 'enabled = false', '',
    ].join('\n'));
    mkdirSync(join(root, 'repo', '.git'));
    put(join(root, 'repo', '.codex', 'config.toml'), '[mcp_servers.docs]\nurl = "https://project-docs.example/mcp"\n');
    const found = readAgentMcp('codex', { HOME: home }, work);
    expect(summary(found)).toEqual({
      docs: { kind: 'remote', host: 'project-docs.example', transport: 'http', approved: true, headers: ['authorization'] },
      context7: { kind: 'local', host: undefined, transport: undefined, approved: true, headers: [] },
      figma: { kind: 'remote', host: 'figma.example', transport: 'http', approved: true, headers: ['x-figma-region', 'x-figma-key'] },
    });
    const plan = agentPlan('codex', '/bin/codex', ['exec', 'x'], baseUrls('http://127.0.0.1:5000', 'tok'), { HOME: home, OPENAI_API_KEY: 'k' }, found.servers);
    const i = plan.args.indexOf('mcp_servers.docs.url="http://127.0.0.1:5000/t/tok/mcp/docs"');
    expect(plan.args[i - 1]).toBe('-c');
    expect(plan.args.filter((a) => a.startsWith('mcp_servers.'))).toEqual(['mcp_servers.docs.url="http://127.0.0.1:5000/t/tok/mcp/docs"', 'mcp_servers.figma.url="http://127.0.0.1:5000/t/tok/mcp/figma"']);
    expect(plan.args.slice(-2)).toEqual(['exec', 'x']);
  });
  test('CODEX_HOME, and invalid TOML named as a problem', () => {
    put(join(root, 'ch', 'config.toml'), '[mcp_servers.x\n');
    const found = readAgentMcp('codex', { HOME: home, CODEX_HOME: join(root, 'ch') }, work);
    expect(found.problems).toEqual([`${join(root, 'ch', 'config.toml')}: not valid TOML`]);
  });
});

describe('Gemini CLI: mcpServers in settings.json (user, then workspace), merged by name', () => {
  test('httpUrl is Streamable HTTP, url is SSE unless type "http", command is local; comments allowed', () => {
    put(join(home, '.gemini', 'settings.json'), `{
      // user settings
      "mcpServers": {
        "github": { "httpUrl": "https://api.githubcopilot.com/mcp/", "headers": { "Authorization": "Bearer $GITHUB_PAT" } },
        "events": { "url": "https://events.example/sse" },
        "pythonTools": { "command": "python", "args": ["-m", "my_mcp_server"] },
        "typed": { "url": "https://typed.example/mcp", "type": "http" },
      },
      "security": { "auth": { "selectedType": "gemini-api-key" } }
    }`);
    put(join(work, '.gemini', 'settings.json'), JSON.stringify({ mcpServers: { events: { url: 'https://workspace-events.example/sse' } } }));
    const found = readAgentMcp('gemini', { HOME: home }, work);
    expect(summary(found)).toEqual({
      github: { kind: 'remote', host: 'api.githubcopilot.com', transport: 'http', approved: true, headers: ['authorization'] },
      events: { kind: 'remote', host: 'workspace-events.example', transport: 'sse', approved: true, headers: [] },
      pythonTools: { kind: 'local', host: undefined, transport: undefined, approved: true, headers: [] },
      typed: { kind: 'remote', host: 'typed.example', transport: 'http', approved: true, headers: [] },
    });
  });
});

describe('opencode: the mcp table (global config, project opencode.json[c], OPENCODE_CONFIG_CONTENT)', () => {
  test('remote and local entries, later scopes win per key, enabled: false is off; the overlay merges into OPENCODE_CONFIG_CONTENT', () => {
    put(join(home, '.config', 'opencode', 'opencode.json'), JSON.stringify({
      $schema: 'https://opencode.ai/config.json',
      mcp: { jira: { type: 'remote', url: 'https://jira.example/mcp', headers: { Authorization: 'Bearer {env:JIRA_TOKEN}' } }, everything: { type: 'local', command: ['npx', '-y', '@modelcontextprotocol/server-everything'] }, old: { type: 'remote', url: 'https://old.example/mcp' } },
    }));
    mkdirSync(join(root, 'repo', '.git'));
    put(join(root, 'repo', 'opencode.jsonc'), '{ /* project */ "mcp": { "old": { "enabled": false }, "jira": { "url": "https://jira-project.example/mcp" } } }');
    const env = { HOME: home, OPENCODE_CONFIG_CONTENT: JSON.stringify({ mcp: { inline: { type: 'remote', url: 'https://inline.example/mcp' } } }) };
    const found = readAgentMcp('opencode', env, work);
    expect(summary(found)).toEqual({
      jira: { kind: 'remote', host: 'jira-project.example', transport: 'http', approved: true, headers: ['authorization'] },
      everything: { kind: 'local', host: undefined, transport: undefined, approved: true, headers: [] },
      inline: { kind: 'remote', host: 'inline.example', transport: 'http', approved: true, headers: [] },
    });
    const urls = baseUrls('http://127.0.0.1:5000', 'tok');
    const plan = agentPlan('opencode', '/bin/opencode', ['run', 'x'], urls, env, found.servers);
    const content = JSON.parse(plan.env.OPENCODE_CONFIG_CONTENT as string);
    expect(content.mcp.jira).toMatchObject({ type: 'remote', url: 'http://127.0.0.1:5000/t/tok/mcp/jira', headers: { Authorization: 'Bearer {env:JIRA_TOKEN}' } });
    expect(content.mcp.inline.url).toBe('http://127.0.0.1:5000/t/tok/mcp/inline');
    expect(content.mcp.everything).toBeUndefined();
    expect(content.provider.anthropic.options.baseURL).toBe('http://127.0.0.1:5000/t/tok/anthropic/v1');
    expect(JSON.parse(opencodeConfig(urls, undefined)).mcp).toBeUndefined();
  });
});
