// The real infrastructure of the gateway fleet test, as its own processes on loopback with configs written
// here: Debian's HAProxy (health checks on each instance's /readyz, the serving instance named in a
// response header) and Debian's Prometheus (scraping each admin listener; queried over its HTTP API).

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** A free loopback port (bound and released: the tools below need a port number in their config). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface Backend {
  name: string;
  port: number;
  adminPort: number;
}

export interface Infra {
  url: string;
  close(): Promise<void>;
  output(): string;
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs: number, proc: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`${what} exited (${proc.exitCode}): ${output()}`);
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not start within ${timeoutMs} ms: ${output()}`);
}

function startProcess(cmd: string, args: string[]): { proc: ChildProcess; output: () => string } {
  const proc = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout?.on('data', (d) => (out = (out + d.toString()).slice(-20_000)));
  proc.stderr?.on('data', (d) => (out = (out + d.toString()).slice(-20_000)));
  return { proc, output: () => out };
}

async function stop(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const done = new Promise<void>((r) => proc.once('close', () => r()));
  proc.kill('SIGTERM');
  const t = setTimeout(() => proc.kill('SIGKILL'), 3_000);
  await done;
  clearTimeout(t);
}

/**
 * HAProxy in front of the instances: round robin, `/readyz` checked every 250 ms (two failures take an
 * instance out, two successes bring it back), no server-side keep-alive (a closed listener is a refused
 * connection, retried on another instance), and `x-served-by` naming the instance in each response.
 */
export async function startHaproxy(dir: string, backends: readonly Backend[]): Promise<Infra> {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const cfg = join(dir, 'haproxy.cfg');
  writeFileSync(
    cfg,
    [
      'global',
      '  maxconn 2000',
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 60s',
      '  timeout server 60s',
      '  timeout http-request 10s',
      // A check waits this long for /readyz (the default is `inter`, too short on a loaded machine).
      '  timeout check 2s',
      '  option http-server-close',
      '  retries 3',
      '  option redispatch 1',
      'frontend ficta',
      `  bind 127.0.0.1:${port}`,
      // Answered by HAProxy itself (to see it is up without sending a request to an instance).
      '  monitor-uri /haproxy-alive',
      '  default_backend gateways',
      'backend gateways',
      '  balance roundrobin',
      '  option httpchk GET /readyz',
      '  http-check expect status 200',
      '  http-response set-header x-served-by %[srv_name]',
      ...backends.map((b) => `  server ${b.name} 127.0.0.1:${b.port} check port ${b.adminPort} inter 250ms fall 2 rise 2`),
      '',
    ].join('\n'),
  );
  const { proc, output } = startProcess('haproxy', ['-db', '-f', cfg]);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${url}/haproxy-alive`)).status === 200, 'haproxy', 15_000, proc, output);
  return { url, output, close: () => stop(proc) };
}

export interface Prometheus extends Infra {
  /** An instant query: the result vector (labels and value). */
  query(promql: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>>;
  /** An instant query of a range vector (`metric[10m]`): every sample, with its time (seconds). */
  queryRange(promql: string): Promise<Array<{ metric: Record<string, string>; values: Array<[number, string]> }>>;
}

/** Prometheus scraping the admin listeners every 300 ms. */
export async function startPrometheus(dir: string, adminPorts: readonly number[]): Promise<Prometheus> {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const cfg = join(dir, 'prometheus.yml');
  writeFileSync(
    cfg,
    [
      'global:',
      '  scrape_interval: 300ms',
      '  scrape_timeout: 300ms',
      'scrape_configs:',
      '  - job_name: ficta',
      '    static_configs:',
      `      - targets: [${adminPorts.map((p) => `'127.0.0.1:${p}'`).join(', ')}]`,
      '',
    ].join('\n'),
  );
  const { proc, output } = startProcess('prometheus', [
    `--config.file=${cfg}`,
    `--storage.tsdb.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--log.level=warn',
  ]);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${url}/-/ready`)).status === 200, 'prometheus', 30_000, proc, output);
  return {
    url,
    output,
    close: () => stop(proc),
    async queryRange(promql) {
      const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
      const body = (await res.json()) as { status: string; data?: { result: Array<{ metric: Record<string, string>; values: Array<[number, string]> }> }; error?: string };
      if (body.status !== 'success' || body.data === undefined) throw new Error(`prometheus query failed: ${body.error ?? res.status}`);
      return body.data.result;
    },
    async query(promql) {
      const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
      const body = (await res.json()) as { status: string; data?: { result: Array<{ metric: Record<string, string>; value: [number, string] }> }; error?: string };
      if (body.status !== 'success' || body.data === undefined) throw new Error(`prometheus query failed: ${body.error ?? res.status}`);
      return body.data.result;
    },
  };
}
