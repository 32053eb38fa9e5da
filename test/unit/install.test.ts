// What `pnpm install` needs: better-sqlite3's prebuilt Node-API binary is used as shipped, with no build
// step (which would need Python and make even though it compiles nothing on the platforms with one).

import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/util/sqlite.ts';

const ROOT = join(import.meta.dirname, '../..');

describe('install', () => {
  it('lets pnpm skip better-sqlite3’s build step', () => {
    const workspace = readFileSync(join(ROOT, 'pnpm-workspace.yaml'), 'utf8');
    const ignored = /ignoredBuiltDependencies:\n((?: {2}- .*\n)+)/.exec(workspace)?.[1] ?? '';
    const built = /onlyBuiltDependencies:\n((?: {2}- .*\n)+)/.exec(workspace)?.[1] ?? '';
    expect(ignored).toContain('- better-sqlite3\n');
    expect(built).not.toContain('better-sqlite3');
  });

  it('loads the prebuilt binary shipped for this platform', () => {
    const pkg = dirname(createRequire(join(ROOT, 'package.json')).resolve('better-sqlite3/package.json'));
    const musl = process.platform === 'linux' && !(process.report.getReport() as { header: { glibcVersionRuntime?: string } }).header.glibcVersionRuntime;
    const prebuilt = join(pkg, 'prebuilds', `${musl ? 'linuxmusl' : process.platform}-${process.arch}.node`);
    // Only where the package ships one (linux/linuxmusl/darwin/win32 on x64/arm64); elsewhere it is built by hand.
    if (!existsSync(prebuilt) || existsSync(join(pkg, 'build', 'Release', 'better_sqlite3.node'))) return;
    const db = openDatabase(':memory:');
    try {
      expect(db.prepare('SELECT 1 AS one').get()).toEqual({ one: 1 });
      if (process.platform === 'linux') expect(readFileSync('/proc/self/maps', 'utf8')).toContain(prebuilt);
    } finally {
      db.close();
    }
  });
});
