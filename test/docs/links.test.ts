// Every relative link and #anchor in README.md and docs/*.md resolves: the file exists, and the anchor is
// one GitHub makes from a heading of that page (issue 26).

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorsOf, githubSlug, relativeLinks } from '../helpers/markdown.ts';

const ROOT = join(import.meta.dirname, '../..');
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

describe('links in README.md and docs/', () => {
  it('GitHub anchors are made as GitHub makes them', () => {
    expect(githubSlug('Restore and exfiltration')).toBe('restore-and-exfiltration');
    expect(githubSlug('Node.js')).toBe('nodejs');
    expect(githubSlug('`ficta serve`')).toBe('ficta-serve');
    expect(githubSlug('Agents, scripts and CI')).toBe('agents-scripts-and-ci');
    expect(githubSlug('What the client sees when ficta refuses')).toBe('what-the-client-sees-when-ficta-refuses');
    expect([...anchorsOf('# A\n## Notes\n```\n# not a heading\n```\n## Notes\n')]).toEqual(['a', 'notes', 'notes-1']);
  });

  it('every relative link names a file that exists, and every #anchor a heading of it', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const page of PAGES) {
      for (const { line, target } of relativeLinks(readFileSync(join(ROOT, page), 'utf8'))) {
        checked++;
        const [path, anchor] = target.split('#', 2) as [string, string | undefined];
        const file = path === '' ? join(ROOT, page) : resolve(dirname(join(ROOT, page)), decodeURIComponent(path));
        const where = `${page}:${line} → ${target}`;
        if (!existsSync(file) || relative(ROOT, file).startsWith('..')) {
          broken.push(`${where}: no such file`);
          continue;
        }
        if (anchor === undefined) continue;
        if (!statSync(file).isFile() || !file.endsWith('.md')) broken.push(`${where}: an anchor into a file that is not Markdown`);
        else if (!anchorsOf(readFileSync(file, 'utf8')).has(anchor)) broken.push(`${where}: no heading makes #${anchor}`);
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(30);
  });

  it('the README links every page in docs/', () => {
    const readme = relativeLinks(readFileSync(join(ROOT, 'README.md'), 'utf8')).map((l) => l.target.split('#')[0]);
    const missing = PAGES.filter((p) => p.startsWith('docs/') && !readme.includes(p));
    expect(missing).toEqual([]);
  });
});
