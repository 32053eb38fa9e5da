// Remote MCP traffic through ficta's `/mcp/<server>` route, with a real MCP server (the official SDK, on
// loopback) and the SDK's own client: Streamable HTTP and the older HTTP+SSE transport. A registered value
// in a tool call's arguments reaches the server as its placeholder unless the server's host is allowed
// for it (--allow-host, per-secret hosts); the server's credential headers pass untouched; its answers
// reach the client byte-exact; provider-hosted MCP calls (Responses `mcp_call`, Anthropic `mcp_tool_use`)
// are restored for the client only where the declared server's host is allowed.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFicta, type TestFicta } from '../helpers/ficta-server.ts';
import { RECORD_REPLY, startMcpServer, type TestMcpServer } from '../helpers/mcp-server.ts';
import { createMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';

const GITHUB = 'ghp_McpRoute0123456789abcdefABCDEF0123';
const TRACKER_KEY = 'trk-live-0123456789abcdef-McpRouteKey';
const PLACEHOLDER = /~ficta_[a-z2-7]{20}/;

let mcp: TestMcpServer;
let up: MockUpstream;
beforeAll(async () => {
  mcp = await startMcpServer();
  up = await createMockUpstream({ secrets: [GITHUB, TRACKER_KEY] });
});
afterAll(async () => {
  await mcp.close();
  await up.close();
});

async function withFicta<T>({ secretHosts, ...config }: Record<string, unknown>, run: (f: TestFicta) => Promise<T>): Promise<T> {
  const home = mkdtempSync(join(tmpdir(), 'ficta-mcp-route-'));
  // startFicta writes the secrets to <home>/test.env; a `secrets` table here replaces its own.
  if (secretHosts !== undefined) config.secrets = { envFiles: [join(home, 'test.env')], hosts: secretHosts };
  const f = await startFicta({
    home,
    upstream: up.url,
    secrets: { GITHUB_TOKEN: GITHUB, TRACKER_KEY },
    config: {
      mcp: { servers: { tracker: { url: mcp.httpUrl, authHeaders: ['x-tracker-key'] }, legacy: { url: mcp.sseUrl, transport: 'sse' } } },
      ...config,
    },
  });
  try {
    return await run(f);
  } finally {
    await f.close();
    rmSync(home, { recursive: true, force: true });
  }
}

const authHeaders = { authorization: `Bearer ${TRACKER_KEY}`, 'x-tracker-key': TRACKER_KEY };

async function callRecord(transport: StreamableHTTPClientTransport | SSEClientTransport, body: string): Promise<string> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const r = await client.callTool({ name: 'record', arguments: { title: 'Leak', body } });
    return (r.content as Array<{ text: string }>)[0]?.text ?? '';
  } finally {
    await client.close();
  }
}

describe('/mcp/<server> (Streamable HTTP)', () => {
  it('redacts a registered value on its way to a server whose host is not allowed; auth headers pass untouched; the answer arrives', async () => {
    await withFicta({}, async (f) => {
      const before = mcp.calls.length;
      const transport = new StreamableHTTPClientTransport(new URL(`${f.url}/mcp/tracker`), { requestInit: { headers: authHeaders } });
      const text = await callRecord(transport, `the token is ${GITHUB}`);
      expect(text).toBe(RECORD_REPLY);
      const call = mcp.calls[before]!;
      expect(call.args.body).toMatch(new RegExp(`^the token is ${PLACEHOLDER.source}$`));
      expect(JSON.stringify(mcp.calls.slice(before))).not.toContain(GITHUB);
      // The server's own credentials: untouched (the Authorization header and the header the config names).
      expect(call.headers.authorization).toBe(`Bearer ${TRACKER_KEY}`);
      expect(call.headers['x-tracker-key']).toBe(TRACKER_KEY);
      const logs = f.requestLogs().filter((l) => l.provider === 'mcp:tracker');
      expect(logs.length).toBeGreaterThan(1);
      expect(logs.some((l) => l.redactions?.GITHUB_TOKEN === 1)).toBe(true);
      expect(JSON.stringify(f.logs)).not.toContain(GITHUB);
    });
  }, 30_000);

  it('lets the value through where the host is allowed: --allow-host, or the secret’s own hosts', async () => {
    await withFicta({ restore: { allowHosts: ['127.0.0.1'] } }, async (f) => {
      const before = mcp.calls.length;
      await callRecord(new StreamableHTTPClientTransport(new URL(`${f.url}/mcp/tracker`)), `the token is ${GITHUB}`);
      expect(mcp.calls[before]!.args.body).toBe(`the token is ${GITHUB}`);
    });
    await withFicta({ secretHosts: { GITHUB_TOKEN: ['127.0.0.1'] } }, async (f) => {
      const before = mcp.calls.length;
      await callRecord(new StreamableHTTPClientTransport(new URL(`${f.url}/mcp/tracker`)), `${GITHUB} and ${TRACKER_KEY}`);
      expect(mcp.calls[before]!.args.body).toMatch(new RegExp(`^${GITHUB} and ${PLACEHOLDER.source}$`));
    });
  }, 30_000);

  it('passes the server’s answers byte-exact', async () => {
    const session = async (base: string): Promise<{ init: string; call: string; headers: Record<string, string> }> => {
      const h = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const init = await fetch(base, { method: 'POST', headers: h, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }) });
      const sid = init.headers.get('mcp-session-id') as string;
      const initText = await init.text();
      const sh = { ...h, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' };
      await (await fetch(base, { method: 'POST', headers: sh, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
      const call = await fetch(base, { method: 'POST', headers: sh, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'record', arguments: { title: 't', body: 'no secret here' } } }) });
      return { init: initText, call: await call.text(), headers: { 'content-type': call.headers.get('content-type') ?? '' } };
    };
    await withFicta({}, async (f) => {
      const direct = await session(mcp.httpUrl);
      const via = await session(`${f.url}/mcp/tracker`);
      expect(via.call).toBe(direct.call);
      expect(via.init).toBe(direct.init);
      expect(via.headers).toEqual(direct.headers);
      expect(via.call).toContain(JSON.stringify(RECORD_REPLY).slice(1, -1));
    });
  }, 30_000);

  it('answers 404 for a server nobody declared, and a JSON-RPC error when the gate blocks', async () => {
    await withFicta({}, async (f) => {
      expect((await fetch(`${f.url}/mcp/nobody`, { method: 'POST', body: '{}' })).status).toBe(404);
      const r = await fetch(`${f.url}/mcp/tracker`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-note': GITHUB }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
      // Non-auth headers are redacted, not blocked: the request goes through.
      expect(r.status).not.toBe(403);
      // File bytes are never rewritten, only gated.
      const blocked = await fetch(`${f.url}/mcp/tracker`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: `\u0000 ${GITHUB} \u0000` });
      expect(blocked.status).toBe(403);
      const err = (await blocked.json()) as { jsonrpc: string; error: { code: number; message: string } };
      expect(err.jsonrpc).toBe('2.0');
      expect(err.error.message).toContain('would reach MCP server tracker');
      expect(err.error.message).not.toContain(GITHUB);
    });
  }, 30_000);
});

describe('/mcp/<server> (HTTP+SSE)', () => {
  it('rewrites the endpoint event to lead back through ficta, and redacts what is posted there', async () => {
    await withFicta({}, async (f) => {
      const before = mcp.calls.length;
      const seenBefore = mcp.headers.length;
      const text = await callRecord(new SSEClientTransport(new URL(`${f.url}/mcp/legacy`)), `the token is ${GITHUB}`);
      expect(text).toBe(RECORD_REPLY);
      expect(mcp.calls[before]!.args.body).toMatch(new RegExp(`^the token is ${PLACEHOLDER.source}$`));
      // Every request the server saw came through ficta (no direct POST: the endpoint event was rewritten).
      const posts = f.requestLogs().filter((l) => l.provider === 'mcp:legacy' && l.method === 'POST');
      expect(posts.length).toBe(mcp.headers.slice(seenBefore).filter((h) => h['content-type']?.includes('json')).length);
      expect(posts.length).toBeGreaterThan(1);
    });
  }, 30_000);
});

describe('provider-hosted MCP tools', () => {
  const HOSTED = 'https://mcp.tracker.example/mcp';
  const placeholderIn = (body: Buffer): string => PLACEHOLDER.exec(body.toString('utf8'))?.[0] ?? 'none';

  async function responses(f: TestFicta, label: string): Promise<string> {
    up.setScript((req) => ({
      json: {
        id: 'resp_1',
        object: 'response',
        status: 'completed',
        model: 'gpt-x',
        output: [{ type: 'mcp_call', id: 'mcp_1', server_label: label, name: 'record', arguments: JSON.stringify({ body: `token ${placeholderIn(req.body)}` }), output: 'ok' }],
      },
    }));
    const r = await fetch(`${f.url}/openai/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
      body: JSON.stringify({ model: 'gpt-x', tools: [{ type: 'mcp', server_label: 'tracker', server_url: HOSTED, require_approval: 'never' }], input: `file an issue with ${GITHUB}` }),
    });
    const json = (await r.json()) as { output: Array<{ arguments: string }> };
    return (JSON.parse(json.output[0]!.arguments) as { body: string }).body;
  }

  async function anthropic(f: TestFicta): Promise<string> {
    up.setScript((req) => ({
      json: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-x',
        stop_reason: 'end_turn',
        content: [{ type: 'mcp_tool_use', id: 'mcptoolu_1', name: 'record', server_name: 'tracker', input: { body: `token ${placeholderIn(req.body)}` } }],
      },
    }));
    const r = await fetch(`${f.url}/anthropic/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01', 'anthropic-beta': 'mcp-client-2025-04-04' },
      body: JSON.stringify({ model: 'claude-x', max_tokens: 100, mcp_servers: [{ type: 'url', url: HOSTED, name: 'tracker' }], messages: [{ role: 'user', content: `file an issue with ${GITHUB}` }] }),
    });
    const json = (await r.json()) as { content: Array<{ input: { body: string } }> };
    return json.content[0]!.input.body;
  }

  it('withholds the value when the declared server’s host is not allowed, and names the reason', async () => {
    await withFicta({}, async (f) => {
      expect(await responses(f, 'tracker')).toMatch(new RegExp(`^token ${PLACEHOLDER.source}$`));
      expect(await anthropic(f)).toMatch(new RegExp(`^token ${PLACEHOLDER.source}$`));
      // A call naming a server the request never declared: withheld as unknown.
      expect(await responses(f, 'other')).toMatch(new RegExp(`^token ${PLACEHOLDER.source}$`));
      const withheld = f.requestLogs().map((l) => l.withheld).filter((w) => w !== undefined);
      expect(withheld).toEqual([{ GITHUB_TOKEN: { 'mcp:tracker@mcp.tracker.example': 1 } }, { GITHUB_TOKEN: { 'mcp:tracker@mcp.tracker.example': 1 } }, { GITHUB_TOKEN: { 'mcp:other@unknown': 1 } }]);
      expect(up.leaks).toEqual([]);
    });
  }, 30_000);

  /** Streamed: the arguments as deltas, then whole copies (`*.done`, `output_item.done`, `response.completed`). */
  async function streamed(f: TestFicta, format: 'responses' | 'anthropic'): Promise<string[]> {
    const ev = (name: string, data: Record<string, unknown>): string => `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;
    up.setScript((req) => {
      const args = JSON.stringify({ body: `token ${placeholderIn(req.body)}` });
      const parts = args.match(/.{1,5}/gs) ?? [];
      if (format === 'responses') {
        const item = { id: 'mcp_1', type: 'mcp_call', server_label: 'tracker', name: 'record', arguments: args, output: 'ok', status: 'completed' };
        return {
          sse:
            ev('response.output_item.added', { output_index: 0, item: { ...item, arguments: '', output: null, status: 'in_progress' } }) +
            parts.map((d) => ev('response.mcp_call_arguments.delta', { item_id: 'mcp_1', output_index: 0, delta: d })).join('') +
            ev('response.mcp_call_arguments.done', { item_id: 'mcp_1', output_index: 0, arguments: args }) +
            ev('response.output_item.done', { output_index: 0, item }) +
            ev('response.completed', { response: { id: 'resp_1', status: 'completed', output: [item] } }),
          chunking: { seed: 7, max: 9 },
        };
      }
      return {
        sse:
          ev('message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-x', content: [] } }) +
          ev('content_block_start', { index: 0, content_block: { type: 'mcp_tool_use', id: 'mcptoolu_1', name: 'record', server_name: 'tracker', input: {} } }) +
          parts.map((d) => ev('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: d } })).join('') +
          ev('content_block_stop', { index: 0 }) +
          ev('message_stop', {}),
        chunking: { seed: 7, max: 9 },
      };
    });
    const body = format === 'responses'
      ? { model: 'gpt-x', stream: true, tools: [{ type: 'mcp', server_label: 'tracker', server_url: HOSTED }], input: `file it with ${GITHUB}` }
      : { model: 'claude-x', max_tokens: 100, stream: true, mcp_servers: [{ type: 'url', url: HOSTED, name: 'tracker' }], messages: [{ role: 'user', content: `file it with ${GITHUB}` }] };
    const r = await fetch(`${f.url}/${format === 'responses' ? 'openai/v1/responses' : 'anthropic/v1/messages'}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test', 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify(body),
    });
    const events = (await r.text()).split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));
    // Every copy of the arguments the client gets: the joined deltas, then each whole copy.
    const deltas = events.filter((e) => e.type === 'response.mcp_call_arguments.delta' || e.delta?.type === 'input_json_delta').map((e) => e.delta?.partial_json ?? e.delta).join('');
    const copies = events.flatMap((e) => [e.arguments, e.item?.arguments, ...(e.response?.output ?? []).map((o: any) => o.arguments)]).filter((a) => typeof a === 'string' && a !== '');
    return [deltas, ...copies].map((a) => (JSON.parse(a) as { body: string }).body);
  }

  it('decides streamed calls the same way, every copy alike', async () => {
    await withFicta({}, async (f) => {
      for (const format of ['responses', 'anthropic'] as const) {
        const got = await streamed(f, format);
        expect(got.length, format).toBe(format === 'responses' ? 4 : 1);
        for (const b of got) expect(b, format).toMatch(new RegExp(`^token ${PLACEHOLDER.source}$`));
      }
    });
    await withFicta({ restore: { allowHosts: ['mcp.tracker.example'] } }, async (f) => {
      for (const format of ['responses', 'anthropic'] as const) expect(await streamed(f, format), format).toEqual(format === 'responses' ? Array(4).fill(`token ${GITHUB}`) : [`token ${GITHUB}`]);
    });
  }, 30_000);

  it('restores it when that host is allowed', async () => {
    await withFicta({ restore: { allowHosts: ['mcp.tracker.example'] } }, async (f) => {
      expect(await responses(f, 'tracker')).toBe(`token ${GITHUB}`);
      expect(await anthropic(f)).toBe(`token ${GITHUB}`);
      expect(await responses(f, 'other')).toMatch(new RegExp(`^token ${PLACEHOLDER.source}$`));
    });
  }, 30_000);
});
