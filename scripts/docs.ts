// `pnpm run docs`: writes the generated reference pages (docs/configuration.md, docs/commands.md);
// `pnpm run docs --check` only says whether the committed pages are current (exit 1 when not).

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generatedPages } from './docs/pages.ts';

const root = join(import.meta.dirname, '..');
const check = process.argv.includes('--check');
let stale = 0;
for (const [path, text] of Object.entries(await generatedPages())) {
  const file = join(root, path);
  let current = '';
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    // Not written yet.
  }
  if (current === text) continue;
  stale++;
  if (check) process.stderr.write(`docs: ${path} is not what pnpm run docs generates\n`);
  else {
    writeFileSync(file, text);
    process.stdout.write(`docs: wrote ${path}\n`);
  }
}
process.exitCode = check && stale > 0 ? 1 : 0;
