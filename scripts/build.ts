// Builds the installed `ficta`: one esbuild bundle of the sources and their pure-JS dependencies in dist/,
// split per command so each loads only what it runs, plus the stamp bin/ficta.js checks to tell whether
// dist/ is current. Runs on `pnpm install` (the `postprepare` script: npm 11 asks whoever installs the
// packed tarball to approve a `prepare` script, though it never runs there), on `npm pack` (`prepack`),
// and by hand as `pnpm build`.
//
// Why esbuild and a bundle rather than tsc emit: the start-up cost is loading modules, not compiling them.
// Measured here (Node 24, 2 shared vCPUs): `ficta serve` to its ready line 341 ms through tsx; 237 ms
// with the sources compiled but the dependencies loaded from node_modules (undici alone takes ~65 ms to
// import as its ~100 CommonJS files, zod ~45 ms); 165 ms bundled, 133 ms with Node's compile cache. esbuild
// is already in the tree (tsx runs on it) and builds everything in under a second.

import { build, type Metafile } from 'esbuild';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { OWN_SCRIPTS } from '../src/util/own-script.ts';

const ROOT = join(import.meta.dirname, '..');
const OUT = join(ROOT, 'dist');
/** Read by bin/ficta.js: `{ inputs: [[path from the root, mtimeMs, size], …] }` of every source bundled. */
const STAMP = 'build-stamp.json';
/**
 * Not bundled: better-sqlite3 loads a native addon from its own package, and libsodium (1.7 MB of
 * WebAssembly in JS) is loaded only when a vault is used. Both stay runtime dependencies.
 */
const EXTERNAL = ['better-sqlite3', 'libsodium-wrappers-sumo'];

type Stat = readonly [mtimeMs: number, size: number];

/** mtime and size of every file under the source folders, taken before a build reads them. */
function statSources(): Map<string, Stat> {
  const out = new Map<string, Stat>();
  for (const dir of ['src', 'bench']) {
    for (const entry of readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const path = relative(ROOT, join(entry.parentPath, entry.name));
      const st = statSync(join(ROOT, path));
      out.set(path, [st.mtimeMs, st.size]);
    }
  }
  return out;
}

async function bundle(outdir: string): Promise<Metafile> {
  const scripts = Object.fromEntries(Object.entries(OWN_SCRIPTS).map(([name, source]) => [name, join(ROOT, 'src/util', source)]));
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: { cli: 'src/cli/main.ts', index: 'src/index.ts', ...scripts },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22.19',
    external: EXTERNAL,
    // Bundled CommonJS dependencies (undici, pino) require Node's built-ins; ESM output has no `require`.
    banner: { js: "import { createRequire as __fictaCreateRequire } from 'node:module';\nconst require = __fictaCreateRequire(import.meta.url);" },
    // Whitespace and syntax only: identifiers stay, so stack traces and CPU profiles stay readable.
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
  });
  return result.metafile;
}

/** The licence texts of every bundled package (the bundle carries their code, so it carries these). */
function thirdPartyNotices(meta: Metafile): string {
  const packages = new Map<string, string>();
  for (const input of Object.keys(meta.inputs)) {
    const m = /^(.*node_modules\/((?:@[^/]+\/)?[^/]+))\//.exec(input);
    if (m === null || packages.has(m[2] as string)) continue;
    packages.set(m[2] as string, join(ROOT, m[1] as string));
  }
  const parts: string[] = ['Third-party software bundled in this directory, with its licence.\n'];
  for (const [name, dir] of [...packages].sort(([a], [b]) => a.localeCompare(b))) {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string; license?: string };
    const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
    const text = file === undefined ? `(no licence file; package.json says ${pkg.license ?? 'nothing'})` : readFileSync(join(dir, file), 'utf8').trim();
    parts.push(`${'-'.repeat(78)}\n${name} ${pkg.version} (${pkg.license ?? 'unknown'})\n\n${text}\n`);
  }
  return parts.join('\n');
}

/** Bundles into `staging` and writes the notices and the stamp; undefined when a source changed meanwhile. */
async function buildInto(staging: string): Promise<{ meta: Metafile; sources: number } | undefined> {
  const before = statSources();
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const meta = await bundle(staging);
  const inputs: Array<[string, number, number]> = [];
  for (const input of Object.keys(meta.inputs)) {
    if (input.includes('node_modules/')) continue;
    const st = statSync(join(ROOT, input));
    const seen = before.get(input);
    // A source edited while the bundle was built would leave a stamp newer than the code. (An input outside
    // the folders walked beforehand is taken as read.)
    if (seen !== undefined && (seen[0] !== st.mtimeMs || seen[1] !== st.size)) return undefined;
    inputs.push([input, st.mtimeMs, st.size]);
  }
  writeFileSync(join(staging, 'THIRD-PARTY-NOTICES.txt'), thirdPartyNotices(meta));
  writeFileSync(join(staging, STAMP), `${JSON.stringify({ inputs })}\n`);
  return { meta, sources: inputs.length };
}

const started = performance.now();
// Built aside, then swapped in by two renames: a failed build leaves the previous dist/ as it was, and a
// running ficta that loads a command's chunk later finds it (esbuild names outputs by content hash, so a
// rebuild of the same sources writes the same files).
const staging = `${OUT}.tmp-${process.pid}`;
const old = `${OUT}.old-${process.pid}`;
try {
  let built = await buildInto(staging);
  for (let attempt = 2; built === undefined && attempt <= 3; attempt++) built = await buildInto(staging);
  if (built === undefined) throw new Error('build: sources kept changing during the build');
  if (existsSync(OUT)) renameSync(OUT, old);
  renameSync(staging, OUT);
  const bytes = Object.values(built.meta.outputs).reduce((n, o) => n + o.bytes, 0);
  process.stderr.write(`build: ${relative(ROOT, OUT)}/ ${Object.keys(built.meta.outputs).length} files, ${(bytes / 1e6).toFixed(1)} MB, ${built.sources} sources, ${Math.round(performance.now() - started)} ms\n`);
} finally {
  rmSync(staging, { recursive: true, force: true });
  rmSync(old, { recursive: true, force: true });
}
