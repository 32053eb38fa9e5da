// A package registry on loopback for `npm install` in tests: serves the packages installed in this
// checkout's node_modules (packed with `npm pack`, so npm verifies real tarballs and integrities), and
// records every request, so a test can install a tarball on a fresh prefix without the network.

import { execFile } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface LocalRegistry {
  /** `http://127.0.0.1:PORT/`, for npm's --registry. */
  url: string;
  /** Paths npm asked for, in order. */
  requests: string[];
  close(): Promise<void>;
}

interface Packed {
  name: string;
  version: string;
  filename: string;
  integrity: string;
  shasum: string;
  manifest: Record<string, unknown>;
}

/**
 * The directories of `names` and of everything they depend on, as installed in `root`'s node_modules
 * (pnpm's layout: a package's own dependencies sit beside it in its .pnpm directory).
 */
export function dependencyClosure(root: string, names: readonly string[]): string[] {
  const dirs = new Map<string, string>();
  const queue = names.map((n) => realpathSync(join(root, 'node_modules', n)));
  while (queue.length > 0) {
    const dir = queue.shift() as string;
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; dependencies?: Record<string, string> };
    if (dirs.has(pkg.name)) continue;
    dirs.set(pkg.name, dir);
    // A scoped name sits two levels down, so its siblings are two levels up.
    const modules = pkg.name.startsWith('@') ? dirname(dirname(dir)) : dirname(dir);
    for (const dep of Object.keys(pkg.dependencies ?? {})) queue.push(realpathSync(join(modules, dep)));
  }
  return [...dirs.values()];
}

/** Packs `dirs` into `outDir` with npm (no lifecycle scripts) and serves them as a registry. */
export async function startLocalRegistry(dirs: readonly string[], outDir: string, env: NodeJS.ProcessEnv): Promise<LocalRegistry> {
  const { stdout } = await run('npm', ['pack', ...dirs, '--pack-destination', outDir, '--ignore-scripts', '--json'], { env, maxBuffer: 64 * 1024 * 1024 });
  const packed = (JSON.parse(stdout) as Array<Omit<Packed, 'manifest'>>).map((p, i) => ({
    ...p,
    manifest: JSON.parse(readFileSync(join(dirs[i] as string, 'package.json'), 'utf8')) as Record<string, unknown>,
  }));
  const byName = new Map(packed.map((p) => [p.name, p]));
  const requests: string[] = [];
  let base = '';
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0] as string);
    requests.push(path);
    const tarball = /^\/-\/tarballs\/([^/]+)$/.exec(path);
    const hit = tarball === null ? byName.get(path.slice(1)) : packed.find((p) => p.filename === tarball[1]);
    if (hit === undefined) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    if (tarball !== null) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(readFileSync(join(outDir, hit.filename)));
      return;
    }
    const { devDependencies: _dev, ...manifest } = hit.manifest;
    const version = { ...manifest, name: hit.name, version: hit.version, dist: { tarball: `${base}-/tarballs/${hit.filename}`, integrity: hit.integrity, shasum: hit.shasum } };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name: hit.name, 'dist-tags': { latest: hit.version }, versions: { [hit.version]: version } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    url: base,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
