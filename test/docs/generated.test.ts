// The configuration and command references are generated (`pnpm run docs`): the committed pages must be
// exactly what the generator makes from the schema and the command specs today.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatedPages } from '../../scripts/docs/pages.ts';

const ROOT = join(import.meta.dirname, '../..');

describe('generated reference pages', () => {
  it('are what pnpm run docs generates (run it after changing the schema or a command spec)', async () => {
    const pages = await generatedPages();
    expect(Object.keys(pages).sort()).toEqual(['docs/commands.md', 'docs/configuration.md']);
    for (const [path, text] of Object.entries(pages)) expect(readFileSync(join(ROOT, path), 'utf8'), `${path} is stale: run pnpm run docs`).toBe(text);
  });

  it('name every config key with its default, and every command', async () => {
    const pages = await generatedPages();
    const config = pages['docs/configuration.md'] as string;
    for (const key of ['`port` | integer | 8787', '`limits.maxBodyBytes` | integer | 32 MiB', '`detect.mode`', '`secrets.discover`', '`watermark.surfaces.promptText`']) expect(config).toContain(key);
    expect(config).toContain('| `--env-file PATH` |');
    const commands = pages['docs/commands.md'] as string;
    for (const c of ['serve', 'run', 'vault add', 'scan', 'completion']) expect(commands).toContain(`ficta ${c}`);
  });
});
