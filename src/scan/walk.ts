// The files a scan reads: every regular file under the given paths, minus what `.gitignore` files (and
// `.git/info/exclude`) ignore and the `.git` directory itself. Binary files (a NUL byte in the first
// 8 KiB) and files over the size limit are skipped and counted. An explicit stack, no recursion.

import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { createIgnoreRules } from './gitignore.ts';

/** Larger files are skipped (minified bundles and data dumps, not where credentials are written by hand). */
export const DEFAULT_MAX_FILE_BYTES = 2 * 1024 * 1024;
/** How much of a file is looked at for a NUL byte. */
const BINARY_SNIFF_BYTES = 8192;

export interface WalkCounts {
  files: number;
  bytes: number;
  binary: number;
  huge: number;
  unreadable: number;
  ignored: number;
}

/** Calls `onFile` with each text file's path and bytes; returns the counts. */
export function walkFiles(roots: readonly string[], maxFileBytes: number, onFile: (path: string, bytes: Buffer) => void): WalkCounts {
  const counts: WalkCounts = { files: 0, bytes: 0, binary: 0, huge: 0, unreadable: 0, ignored: 0 };
  for (const root of roots) {
    let st;
    try {
      st = statSync(root);
    } catch {
      counts.unreadable++;
      continue;
    }
    if (st.isFile()) {
      readOne(root, st.size, maxFileBytes, counts, onFile);
      continue;
    }
    const rules = createIgnoreRules();
    const exclude = join(root, '.git', 'info', 'exclude');
    if (existsSync(exclude)) rules.add('', safeRead(exclude));
    const stack: string[] = [root];
    while (stack.length > 0) {
      const dir = stack.pop()!;
      const rel = toRel(root, dir);
      const gitignore = join(dir, '.gitignore');
      if (existsSync(gitignore)) rules.add(rel, safeRead(gitignore));
      let names: string[];
      try {
        names = readdirSync(dir).sort();
      } catch {
        counts.unreadable++;
        continue;
      }
      // Reverse, so the stack pops directories in name order.
      for (let k = names.length - 1; k >= 0; k--) {
        const name = names[k]!;
        if (name === '.git') continue;
        const path = join(dir, name);
        let ls;
        try {
          ls = lstatSync(path);
        } catch {
          counts.unreadable++;
          continue;
        }
        if (ls.isSymbolicLink()) continue;
        const relPath = rel === '' ? name : `${rel}/${name}`;
        if (rules.ignores(relPath, ls.isDirectory())) {
          counts.ignored++;
          continue;
        }
        if (ls.isDirectory()) stack.push(path);
        else if (ls.isFile()) readOne(path, ls.size, maxFileBytes, counts, onFile);
      }
    }
  }
  return counts;
}

function readOne(path: string, size: number, max: number, counts: WalkCounts, onFile: (path: string, bytes: Buffer) => void): void {
  if (size > max) {
    counts.huge++;
    return;
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    counts.unreadable++;
    return;
  }
  if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) {
    counts.binary++;
    return;
  }
  counts.files++;
  counts.bytes += bytes.length;
  onFile(path, bytes);
}

function toRel(root: string, dir: string): string {
  const r = relative(root, dir);
  return r === '' ? '' : r.split(sep).join('/');
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
