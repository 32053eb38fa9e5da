// Global setup: a `.env` with secret-looking values sits at the repository root for the whole run, as it
// does for a user who followed the Quick Start (issue 26). Tests must not depend on the checkout's working
// directory; test/unit/dotenv-at-root.test.ts checks the file is there while the tests run. An existing
// `.env` is left as it is (and not removed); a planted one is removed at teardown, pass or fail.

import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { base62, crc32 } from '../../src/detect/checksum.ts';

export const ROOT_DOTENV = join(import.meta.dirname, '../../.env');
const MARK = '# planted by test/setup/dotenv-at-root.ts for this test run; removed at its end\n';

declare module 'vitest' {
  export interface ProvidedContext {
    rootDotenv: { path: string; planted: boolean };
  }
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
function randomAlnum(n: number): string {
  return [...randomBytes(n)].map((b) => ALNUM[b % ALNUM.length]).join('');
}

/** A GitHub classic token with a valid checksum: detected as a credential, not only discovered. */
function githubToken(): string {
  const body = randomAlnum(30);
  return `ghp_${body}${base62(crc32(Buffer.from(body, 'latin1')))}`;
}

export default function setup(project: TestProject): () => void {
  const planted = !existsSync(ROOT_DOTENV);
  if (planted) {
    const lines = [`GITHUB_TOKEN=${githubToken()}`, `ANTHROPIC_API_KEY=sk-ant-api03-${randomAlnum(93)}AA`, `DATABASE_PASSWORD=${randomAlnum(24)}`];
    writeFileSync(ROOT_DOTENV, `${MARK}${lines.join('\n')}\n`, { mode: 0o600 });
  }
  project.provide('rootDotenv', { path: ROOT_DOTENV, planted });
  return () => {
    if (!planted) return;
    try {
      if (readFileSync(ROOT_DOTENV, 'utf8').startsWith(MARK)) rmSync(ROOT_DOTENV, { force: true });
    } catch {
      // Already gone.
    }
  };
}
