// bin/ficta's choice between the compiled build and the sources, in a stand-in checkout (the real
// launcher, a one-line main in src/ and in dist/): the build runs only when every source its stamp names
// is unchanged, never with FICTA_DEV=1, and always in an installed package (no src/).

import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Layout {
  dir: string;
  run(env?: Record<string, string>): { status: number | null; stdout: string; stderr: string };
  stamp(): void;
}

/** A checkout (or, without sources, an installed package) whose two mains say which one ran. */
function layout(options: { sources: boolean; build: boolean; tsx: boolean }): Layout {
  const dir = mkdtempSync(join(tmpdir(), 'ficta-launcher-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'bin'));
  for (const f of ['ficta', 'ficta.js']) copyFileSync(join(ROOT, 'bin', f), join(dir, 'bin', f));
  copyFileSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  if (options.tsx) symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  const main = (said: string): string => `export async function main(argv) { process.stdout.write('${said} ' + argv.join(' ') + '\\n'); return 0; }\n`;
  if (options.sources) {
    mkdirSync(join(dir, 'src/cli'), { recursive: true });
    writeFileSync(join(dir, 'src/cli/main.ts'), `// ts\n${main('sources')}`);
    writeFileSync(join(dir, 'src/helper.ts'), 'export const X: number = 1;\n');
  }
  const stamp = (): void => {
    const inputs = options.sources ? ['src/cli/main.ts', 'src/helper.ts'].map((p) => [p, statSync(join(dir, p)).mtimeMs, statSync(join(dir, p)).size]) : [];
    writeFileSync(join(dir, 'dist/build-stamp.json'), JSON.stringify({ inputs }));
  };
  if (options.build) {
    mkdirSync(join(dir, 'dist'));
    writeFileSync(join(dir, 'dist/cli.js'), main('build'));
    stamp();
  }
  return {
    dir,
    stamp,
    run(env = {}) {
      const r = spawnSync(join(dir, 'bin/ficta'), ['--x'], { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8', timeout: 20_000 });
      return { status: r.status, stdout: r.stdout, stderr: r.stderr };
    },
  };
}

describe('bin/ficta: build or sources', () => {
  test('runs the build when every stamped source is unchanged, and passes the arguments on', () => {
    const l = layout({ sources: true, build: true, tsx: true });
    expect(l.run()).toEqual({ status: 0, stdout: 'build --x\n', stderr: '' });
  });

  test('runs the sources with FICTA_DEV=1 even when the build is current', () => {
    const l = layout({ sources: true, build: true, tsx: true });
    expect(l.run({ FICTA_DEV: '1' }).stdout).toBe('sources --x\n');
  });

  test('runs the sources once a source is touched, changes size, or is removed', () => {
    const l = layout({ sources: true, build: true, tsx: true });
    const helper = join(l.dir, 'src/helper.ts');
    const later = new Date(statSync(helper).mtimeMs + 5_000);
    utimesSync(helper, later, later); // same bytes, newer mtime: a checkout of another branch does this
    expect(l.run().stdout).toBe('sources --x\n');
    l.stamp();
    expect(l.run().stdout).toBe('build --x\n');
    writeFileSync(helper, 'export const X: number = 12;\n');
    utimesSync(helper, later, later); // same mtime, other size
    expect(l.run().stdout).toBe('sources --x\n');
    l.stamp();
    rmSync(helper);
    expect(l.run().stdout).toBe('sources --x\n');
  });

  test('runs the sources when there is no build, or its stamp is missing (a build that failed half-way)', () => {
    const none = layout({ sources: true, build: false, tsx: true });
    expect(none.run().stdout).toBe('sources --x\n');
    const half = layout({ sources: true, build: true, tsx: true });
    rmSync(join(half.dir, 'dist/build-stamp.json'));
    expect(half.run().stdout).toBe('sources --x\n');
  });

  test('an installed package (no src/) runs its build; asked for sources it has not, it says so in one line', () => {
    const l = layout({ sources: false, build: true, tsx: false });
    expect(l.run().stdout).toBe('build --x\n');
    const r = l.run({ FICTA_DEV: '1' });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^ficta: install: no current build in \S+ and no tsx to run the sources; run "pnpm install" \(or "pnpm build"\) in the checkout\n$/);
  });
});
