// The classifier against fixtures/sinks/tool-calls.json: real-shaped tool calls of Claude Code, Codex,
// Gemini CLI, MCP servers and SDK apps, each labelled restore or withhold (with the reason) per placeholder.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { PLACEHOLDER_FIRST_BYTE, probePlaceholder } from '../../src/redact/placeholder.ts';
import { classifyToolCall, type ToolCallInput } from '../../src/sinks/classify.ts';
import { parseHostPattern } from '../../src/sinks/hosts.ts';
import { createRestorePolicy, type ToolCallMode } from '../../src/sinks/policy.ts';
import { testSet } from '../helpers/secret-set.ts';
import { McpConfigSchema, mcpDirectoryFor } from '../../src/mcp/config.ts';

interface Row {
  id: string;
  source: string;
  format: string;
  tool: string;
  args?: unknown;
  text?: string;
  allow?: { hosts?: string[]; secretHosts?: Record<string, string[]> };
  mode?: ToolCallMode;
  expect: string | string[];
  note?: string;
}

const table = JSON.parse(readFileSync(join(import.meta.dirname, '../../fixtures/sinks/tool-calls.json'), 'utf8')) as { sources: Record<string, string>; mcpServers: Record<string, unknown>; rows: Row[] };
/** The MCP servers the rows' tools belong to, declared as `[mcp.servers]` would. */
const mcp = mcpDirectoryFor(McpConfigSchema.parse({ servers: Object.fromEntries(Object.entries(table.mcpServers).filter(([k]) => k !== '_note')) }));
const NAMES = ['GH', 'OAI', 'DB', 'AWS', 'SLACK'] as const;
const set = testSet({ GH: 'ghp_table0000000000000000000000000000', OAI: 'sk-proj-table-0000000000000000', DB: 'db-password-table-0000', AWS: 'aws-secret-table-0000000000000000000000', SLACK: 'xoxb-table-0000000000' });
const indexOf = (name: string): number => set.names.indexOf(name);

/** Replaces every {{NAME}} in the strings of a value with NAME's placeholder. */
function fill(v: unknown): unknown {
  if (typeof v === 'string') return v.replace(/\{\{([A-Z]+)\}\}/g, (_, n: string) => set.placeholders[indexOf(n)] as string);
  if (Array.isArray(v)) return v.map(fill);
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [fill(k) as string, fill(x)]));
  return v;
}

/** The call the restorer would hand over: the bytes and every registered placeholder in them. */
function callOf(row: Row): ToolCallInput {
  const bytes = Buffer.from(row.text !== undefined ? (fill(row.text) as string) : JSON.stringify(fill(row.args)), 'utf8');
  const occurrences: Array<{ offset: number; secret: number }> = [];
  for (let i = bytes.indexOf(PLACEHOLDER_FIRST_BYTE); i !== -1; i = bytes.indexOf(PLACEHOLDER_FIRST_BYTE, i + 1)) {
    const p = probePlaceholder(bytes, i, bytes.length);
    if (p.kind === 'full' && set.secretForId(p.id) >= 0) occurrences.push({ offset: i, secret: set.secretForId(p.id) });
  }
  return { format: row.format, name: row.tool, input: row.text !== undefined ? 'text' : 'json', bytes, occurrences };
}

function policyOf(row: Row) {
  const norm = (hosts: string[]): string[] => hosts.map((h) => {
    const r = parseHostPattern(h);
    if (!r.ok) throw r.error;
    return r.value;
  });
  const secretHosts = set.names.map((n) => norm(row.allow?.secretHosts?.[n] ?? []));
  return createRestorePolicy({ mode: row.mode ?? 'guarded', allowHosts: norm(row.allow?.hosts ?? []), secretHosts, mcp });
}

describe('fixtures/sinks/tool-calls.json', () => {
  test('has at least 150 labelled calls, each citing a known source, covering every agent tool shape the issue names', () => {
    expect(table.rows.length).toBeGreaterThanOrEqual(150);
    expect(new Set(table.rows.map((r) => r.id)).size).toBe(table.rows.length);
    for (const r of table.rows) expect(table.sources[r.source], r.id).toBeTypeOf('string');
    const tools = new Set(table.rows.map((r) => r.tool));
    for (const t of ['Bash', 'Write', 'Edit', 'MultiEdit', 'WebFetch', 'exec_command', 'shell', 'apply_patch', 'run_shell_command', 'write_file', 'replace']) expect(tools, t).toContain(t);
    const withheld = table.rows.filter((r) => JSON.stringify(r.expect).includes('withhold')).length;
    expect(withheld).toBeGreaterThan(50);
    expect(table.rows.length - withheld).toBeGreaterThan(50);
  });

  test.each(table.rows.map((r) => [r.id, r] as const))('%s', (_id, row) => {
    const call = callOf(row);
    expect(call.occurrences.length, 'the row has placeholders').toBeGreaterThan(0);
    for (const n of NAMES) if (JSON.stringify(row.args ?? row.text).includes(`{{${n}}}`)) expect(call.occurrences.some((o) => o.secret === indexOf(n))).toBe(true);
    const got = classifyToolCall(call, policyOf(row)).map((d) => (d.restore ? 'restore' : `withhold ${d.reason}`));
    const want = Array.isArray(row.expect) ? row.expect : got.map(() => row.expect as string);
    expect(got).toEqual(want);
  });
});
