// The floor: the least a Node proxy can do — node:http in, undici dispatch out, bytes piped back, no
// routing, no redaction, no logging. Run beside ficta to see what the plumbing alone costs here:
// ficta bench --quick --proxy-cmd "node --import tsx bench/floor-proxy.ts {UPSTREAM} {PORT}" --proxy-label floor

import { createServer } from 'node:http';
import { Agent } from 'undici';
import { startAllocProbe } from '../src/bench/alloc-probe.ts';

const [upstream, port] = process.argv.slice(2);
if (upstream === undefined || port === undefined) {
  process.stderr.write('usage: floor-proxy.ts UPSTREAM_URL PORT\n');
  process.exit(2);
}
// Bench-only: bytes allocated per request, like ficta's (the harness sets it).
if (process.env.FICTA_BENCH_ALLOC) startAllocProbe(process.env.FICTA_BENCH_ALLOC);
const origin = new URL(upstream).origin;
const agent = new Agent({ connections: 128, keepAliveTimeout: 30_000 });
const HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
    const headers: string[] = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = (req.rawHeaders[i] as string).toLowerCase();
      if (!HOP.has(name)) headers.push(name, req.rawHeaders[i + 1] as string);
    }
    headers.push('content-length', String(body.length));
    agent.dispatch(
      { origin, path: req.url ?? '/', method: req.method as 'POST', headers, body },
      {
        onRequestStart() {},
        onResponseStart(_c, status, h) {
          const out: Record<string, string | string[]> = {};
          for (const [k, v] of Object.entries(h)) if (v !== undefined && !HOP.has(k)) out[k] = v;
          if (h['content-length'] !== undefined) out['content-length'] = h['content-length'] as string;
          res.writeHead(status, out);
        },
        onResponseData(c, chunk) {
          if (!res.write(chunk)) {
            c.pause();
            res.once('drain', () => c.resume());
          }
        },
        onResponseEnd() {
          res.end();
        },
        onResponseError(_c, e) {
          res.destroy(e);
        },
      },
    );
  });
});
server.keepAliveTimeout = 5_000;
server.listen(Number(port), '127.0.0.1');
