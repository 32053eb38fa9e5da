// The HTTP+SSE transport's `endpoint` event, rewritten to lead back through /mcp/<server>: whatever the
// chunking, only that event's data changes; an endpoint on another origin and every other event pass as they are.

import { describe, expect, test } from 'vitest';
import { createEndpointRewriter } from '../../src/mcp/endpoint-event.ts';
import { resolveMcp } from '../../src/mcp/route.ts';
import { createMcpDirectory, remoteServer, type McpServer } from '../../src/mcp/servers.ts';

const SERVER = new URL('https://mcp.example.com/v1/sse?key=abc');
const ROUTE = '/t/tok/mcp/legacy';

function run(input: string, size: number): string {
  const rw = createEndpointRewriter(SERVER, ROUTE);
  const bytes = Buffer.from(input, 'utf8');
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(rw.write(bytes.subarray(i, i + size)));
  out.push(rw.end());
  return Buffer.concat(out).toString('utf8');
}

describe('endpoint event', () => {
  const rest = 'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n';
  test.each([1, 3, 7, 1000])('an absolute path is rewritten (chunks of %i bytes)', (size) => {
    expect(run(`event: endpoint\ndata: /messages?sessionId=42\n\n${rest}`, size)).toBe(`event: endpoint\ndata: ${ROUTE}/messages?sessionId=42\n\n${rest}`);
  });
  test('a relative path and a full URL on the server’s origin too; CRLF framing kept', () => {
    expect(run('event: endpoint\r\ndata: messages?s=1\r\n\r\n', 4)).toBe(`event: endpoint\r\ndata: ${ROUTE}/v1/messages?s=1\r\n\r\n`);
    expect(run('event: endpoint\ndata: https://mcp.example.com/m?s=2\n\n', 5)).toBe(`event: endpoint\ndata: ${ROUTE}/m?s=2\n\n`);
  });
  test('events before it, an endpoint on another origin, and a stream without one pass unchanged', () => {
    expect(run(`: ping\n\nevent: endpoint\ndata: /m\n\n`, 2)).toBe(`: ping\n\nevent: endpoint\ndata: ${ROUTE}/m\n\n`);
    expect(run('event: endpoint\ndata: https://elsewhere.example/m\n\n' + rest, 3)).toBe('event: endpoint\ndata: https://elsewhere.example/m\n\n' + rest);
    expect(run(rest + rest, 6)).toBe(rest + rest);
    expect(run('event: endpoint\ndata: /m', 3)).toBe('event: endpoint\ndata: /m');
  });
});

describe('/mcp/<name> targets', () => {
  const dir = createMcpDirectory([remoteServer('legacy', SERVER.href, { transport: 'sse' }) as McpServer, remoteServer('a b', 'http://127.0.0.1:9/mcp') as McpServer]);
  test('the bare route is the server URL (query included); a path below it is on the server’s origin; the log shows neither', () => {
    expect(resolveMcp(dir, '/mcp/legacy')).toMatchObject({ target: '/v1/sse?key=abc', mcp: { logPath: '/mcp/legacy', host: 'mcp.example.com' }, upstream: { origin: 'https://mcp.example.com', name: 'mcp:legacy' } });
    expect(resolveMcp(dir, '/mcp/legacy?x=1')?.target).toBe('/v1/sse?x=1');
    expect(resolveMcp(dir, '/mcp/legacy/messages?sessionId=1')).toMatchObject({ target: '/messages?sessionId=1', mcp: { logPath: '/mcp/legacy/messages' } });
    expect(resolveMcp(dir, '/mcp/a%20b')?.target).toBe('/mcp');
    expect(resolveMcp(dir, '/mcp/nobody')).toBeUndefined();
    expect(resolveMcp(dir, '/mcp/%E0%A4%A')).toBeUndefined();
  });
});
