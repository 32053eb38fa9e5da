// The suite runs with a `.env` of secret-looking values at the repository root (planted for the whole run
// by test/setup/dotenv-at-root.ts unless one is there already): this checks it is really there, and that
// zero-config discovery in the checkout would register it, so the rest of the suite passing means the
// checkout's `.env` does not change any test's outcome (issue 26).

import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { createDetector } from '../../src/detect/detector.ts';
import { createCredentialFinder } from '../../src/detect/find.ts';
import { discoverSources } from '../../src/secrets/discover.ts';

describe('a .env at the repository root during the test run', () => {
  it('is there, and discovery in the checkout would register its values', async () => {
    const { path, planted } = inject('rootDotenv');
    const text = readFileSync(path, 'utf8');
    const found = discoverSources({ cwd: dirname(path), env: {} });
    const fromFile = found.find((s) => s.where === './.env');
    expect(fromFile?.count ?? 0).toBeGreaterThan(0);
    if (planted) {
      expect(fromFile?.count).toBe(3);
      const kinds = createCredentialFinder(createDetector())
        .find(Buffer.from(text, 'utf8'))
        .map((c) => c.kind);
      expect(kinds).toEqual(expect.arrayContaining(['github-classic-pat', 'anthropic-api-key']));
    }
  });
});
