// `bin/ficta` on a Node older than package.json's engines: one line on stderr and exit 1, never a stack
// trace from a dependency that needs a newer runtime.

import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { BIN, SOURCES_ENV } from '../helpers/cli.ts';

const ENGINES: string = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')).engines.node;
const dir = mkdtempSync(join(tmpdir(), 'ficta-node-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs bin/ficta with FICTA_NODE set to `node`. */
function ficta(node: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(BIN, args, { cwd: dir, env: { PATH: process.env.PATH, ...SOURCES_ENV, HOME: dir, FICTA_NODE: node }, encoding: 'utf8', timeout: 20_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A `node` that reports itself as `version` (the real binary underneath, its version fields replaced). */
function nodeClaiming(version: string): string {
  const preload = join(dir, `claim-${version}.mjs`);
  writeFileSync(preload, `Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '${version}' } });\nObject.defineProperty(process, 'version', { value: 'v${version}' });\n`);
  const shim = join(dir, `node-${version}`);
  writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" --import "${preload}" "$@"\n`);
  chmodSync(shim, 0o755);
  return shim;
}

describe('bin/ficta on an unsupported Node', () => {
  test.each(['20.20.2', '22.18.0', '18.20.8'])('refuses Node %s in one line with exit 1', (version) => {
    const r = ficta(nodeClaiming(version), ['serve', '--port', '0']);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`ficta: node: Node.js v${version} is not supported; ficta needs Node ${ENGINES} (22 LTS from 22.19, 24 LTS or 26). See "Node.js" in the README for how to get one.\n`);
  });

  test('runs on the lowest supported release', () => {
    const lowest = /\d+\.\d+\.\d+/.exec(ENGINES)![0];
    const r = ficta(nodeClaiming(lowest), ['--version']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  // This machine's own /usr/bin/node, when it is an old one (Node 20 here): the real thing, not a shim.
  const system = (() => {
    try {
      return execFileSync('/usr/bin/node', ['--version'], { encoding: 'utf8' }).trim();
    } catch {
      return undefined;
    }
  })();
  const old = system !== undefined && Number(/^v(\d+)/.exec(system)?.[1]) < 22;
  test.runIf(old)(`refuses the system Node (${system ?? 'none'}) in one line`, () => {
    const r = ficta('/usr/bin/node', ['--version']);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^ficta: node: Node\.js v\d+\.\d+\.\d+ is not supported/);
  });
});
