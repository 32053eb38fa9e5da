// bin/ficta's memory settings: `ficta gateway` gets glibc's fixed mmap threshold (a reload's transient
// tables go back to the system) and a capped young generation, other commands run as they are, and a
// user's own values win.

import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = join(import.meta.dirname, '../../bin/ficta');
const dir = mkdtempSync(join(tmpdir(), 'ficta-launcher-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// Stands in for node: prints what the launcher passed it.
const fakeNode = join(dir, 'node');
writeFileSync(fakeNode, '#!/bin/sh\nprintf "%s|%s\\n" "${MALLOC_MMAP_THRESHOLD_-unset}" "$*"\n');
chmodSync(fakeNode, 0o755);

function launch(args: string[], extra: Record<string, string> = {}): string {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', FICTA_NODE: fakeNode, ...extra };
  const r = spawnSync('sh', [BIN, ...args], { env, encoding: 'utf8' });
  expect(r.status).toBe(0);
  return r.stdout.trim();
}

describe('bin/ficta', () => {
  it('fixes the mmap threshold and caps the young generation for gateway only', () => {
    expect(launch(['gateway', '--config', 'g.toml'])).toMatch(/^1048576\|--max-semi-space-size=16 -- .*ficta\.js gateway --config g\.toml$/);
    expect(launch(['serve'])).toMatch(/^unset\|-- .*ficta\.js serve$/);
    expect(launch(['claude', '-p', 'x'])).toMatch(/^unset\|/);
    expect(launch([])).toMatch(/^unset\|/);
  });

  it("keeps the user's own values", () => {
    expect(launch(['gateway'], { MALLOC_MMAP_THRESHOLD_: '4194304' })).toMatch(/^4194304\|--max-semi-space-size=16 --/);
    expect(launch(['gateway'], { NODE_OPTIONS: '--max-semi-space-size=64' })).toMatch(/^1048576\|-- /);
  });
});
