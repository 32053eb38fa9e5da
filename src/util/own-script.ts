// ficta's own scripts that run in another process or worker (the Argon2id worker, the bench's mock
// upstream and floor proxy), and how to start them: the TypeScript source through tsx in a checkout, the
// compiled file beside the bundle in a build (scripts/build.ts makes one entry point per name here).

import { fileURLToPath } from 'node:url';

/** True when this code runs from the compiled build (dist/), false when from the TypeScript sources. */
export const COMPILED: boolean = !import.meta.url.endsWith('.ts');

/** Each script's source, relative to this file; the build names its compiled file `dist/<name>.js`. */
export const OWN_SCRIPTS = {
  'kdf-worker': '../vault/kdf-worker.ts',
  'matcher-worker': '../redact/matcher-worker.ts',
  'mock-upstream-process': '../bench/mock-upstream-process.ts',
  'floor-proxy': '../../bench/floor-proxy.ts',
} as const;

export type OwnScript = keyof typeof OWN_SCRIPTS;

/** The file to run for `name`: its `.ts` source, or its compiled `.js` in a build. */
export function ownScriptPath(name: OwnScript): string {
  return fileURLToPath(new URL(COMPILED ? `./${name}.js` : OWN_SCRIPTS[name], import.meta.url));
}

/** The `node` arguments that run `name` (with tsx's loader before a source file). */
export function ownScriptArgs(name: OwnScript): string[] {
  return COMPILED ? [ownScriptPath(name)] : ['--import', import.meta.resolve('tsx'), ownScriptPath(name)];
}

/** The `ficta` command of this checkout or installed package (bin/ficta, the sh launcher). */
export const FICTA_BIN: string = fileURLToPath(new URL(COMPILED ? '../bin/ficta' : '../../bin/ficta', import.meta.url));
