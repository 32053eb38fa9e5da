#!/usr/bin/env node
// Entry point of the `ficta` command: refuses an unsupported Node in one line, then runs the compiled build
// (dist/, made by `pnpm install` or `pnpm build`) when it is current, else the TypeScript sources through
// tsx. Only syntax every Node since 14 parses may come before the check.
import { readFileSync, statSync } from 'node:fs';

const engines = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).engines.node;
const min = /(\d+)\.(\d+)\.(\d+)/.exec(engines).slice(1).map(Number);
const have = process.versions.node.split('.').map(Number);
const older = have[0] !== min[0] ? have[0] < min[0] : have[1] !== min[1] ? have[1] < min[1] : have[2] < min[2];
if (older) {
  process.stderr.write(`ficta: node: Node.js ${process.version} is not supported; ficta needs Node ${engines} (22 LTS from 22.19, 24 LTS or 26). See "Node.js" in the README for how to get one.\n`);
  process.exit(1);
}

const root = new URL('../', import.meta.url);
const main = buildIsCurrent() ? await loadBuild() : await loadSources();
process.exitCode = await main(process.argv.slice(2));

/**
 * Whether dist/ may run: never with FICTA_DEV=1; always in an installed package (no src/ beside it);
 * in a checkout only when every source the build read still has the mtime and size scripts/build.ts
 * recorded in dist/build-stamp.json, so an edited, pulled or switched source is never shadowed by an
 * older build (about 120 stats, well under a millisecond).
 */
function buildIsCurrent() {
  if (process.env.FICTA_DEV === '1') return false;
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(new URL('dist/build-stamp.json', root), 'utf8'));
  } catch {
    return false;
  }
  if (statSync(new URL('src/cli/main.ts', root), { throwIfNoEntry: false }) === undefined) return true;
  for (const [path, mtimeMs, size] of stamp.inputs) {
    const st = statSync(new URL(path, root), { throwIfNoEntry: false });
    if (st === undefined || st.mtimeMs !== mtimeMs || st.size !== size) return false;
  }
  return true;
}

async function loadBuild() {
  // V8's code cache on disk: measured 165 → 133 ms to `ficta serve`'s ready line, as the bundle is not
  // parsed and compiled again (NODE_COMPILE_CACHE=DIR to move it, NODE_DISABLE_COMPILE_CACHE=1 to turn it
  // off). In the user's own cache directory, not Node's default under os.tmpdir(): code cache that
  // another local user can write is code they could have this process, which holds the secrets, run.
  const [{ enableCompileCache }, { homedir }, { isAbsolute, join }] = await Promise.all([import('node:module'), import('node:os'), import('node:path')]);
  const xdg = process.env.XDG_CACHE_HOME;
  enableCompileCache?.(join(xdg !== undefined && isAbsolute(xdg) ? xdg : join(homedir(), '.cache'), 'ficta', 'compile-cache'));
  return (await import(new URL('dist/cli.js', root).href)).main;
}

async function loadSources() {
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch {
    process.stderr.write(`ficta: install: no current build in ${new URL('dist/', root).pathname} and no tsx to run the sources; run "pnpm install" (or "pnpm build") in the checkout\n`);
    process.exit(1);
  }
  // The checkout's tsconfig, whatever the working directory: tsx looks for one from the cwd, and without
  // it the dashboard's JSX (hono/jsx, tsconfig's jsxImportSource) would compile for React.
  const tsconfig = new URL('tsconfig.json', root);
  register(statSync(tsconfig, { throwIfNoEntry: false }) === undefined ? {} : { tsconfig: tsconfig.pathname });
  return (await import('../src/cli/main.ts')).main;
}
