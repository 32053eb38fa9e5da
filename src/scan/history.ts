// Git history for `ficta scan --git`: the lines each commit added (`git log --all -p --unified=0`),
// streamed and grouped per commit and file, so a credential committed once and removed later is still
// found. Bounded by a commit count and a byte budget; reports progress as it goes.

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { FictaError } from '../errors.ts';

/** Defaults: the newest 1,000 commits of all refs, at most 256 MiB of patch text. */
export const DEFAULT_MAX_COMMITS = 1000;
export const DEFAULT_MAX_HISTORY_BYTES = 256 * 1024 * 1024;

/** Lines one commit added to one file: their text, each ended by `\n`, and their line numbers there. */
export interface AddedText {
  commit: string;
  file: string;
  text: string;
  /** Line number in the file at that commit of each added line, in order. */
  lines: number[];
}

export interface HistoryResult {
  commits: number;
  bytes: number;
  /** The byte budget ended the walk before the commit limit did. */
  truncated: boolean;
}

export interface HistoryOptions {
  cwd: string;
  maxCommits: number;
  maxBytes: number;
  onProgress?: (commits: number) => void;
}

/** Streams the added lines of the repository's history to `onAdded`. */
export function readHistory(options: HistoryOptions, onAdded: (a: AddedText) => void): Promise<HistoryResult> {
  return new Promise((resolve, reject) => {
    const git = spawn('git', ['-C', options.cwd, 'log', '--all', '-p', '--no-color', '--no-ext-diff', '--no-textconv', '--unified=0', `--max-count=${options.maxCommits}`, '--format=%x00%H'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    git.stderr.on('data', (d: Buffer) => {
      if (stderr.length < 2000) stderr += d.toString('utf8');
    });
    git.on('error', (cause) => reject(new FictaError('FICTA_SCAN_GIT', `scan: cannot run git (${(cause as NodeJS.ErrnoException).code ?? 'error'})`, { cause })));
    const result: HistoryResult = { commits: 0, bytes: 0, truncated: false };
    let commit = '';
    let file: string | undefined;
    let lineNo = 0;
    let cur: AddedText | undefined;
    const flush = (): void => {
      if (cur !== undefined && cur.lines.length > 0) onAdded(cur);
      cur = undefined;
    };
    const rl = createInterface({ input: git.stdout, crlfDelay: Infinity });
    rl.on('line', (line) => {
      result.bytes += line.length + 1;
      if (result.bytes > options.maxBytes && !result.truncated) {
        result.truncated = true;
        git.kill();
        rl.close();
        return;
      }
      if (line.startsWith('\0')) {
        flush();
        commit = line.slice(1);
        file = undefined;
        result.commits++;
        if (result.commits % 50 === 0) options.onProgress?.(result.commits);
      } else if (line.startsWith('diff --git ')) {
        flush();
        file = undefined;
      } else if (line.startsWith('+++ ')) {
        flush();
        file = line === '+++ /dev/null' ? undefined : line.replace(/^\+\+\+ (b\/)?/, '');
      } else if (line.startsWith('@@ ')) {
        const m = /\+(\d+)/.exec(line);
        lineNo = m === null ? 0 : Number(m[1]);
      } else if (line.startsWith('+') && file !== undefined) {
        cur ??= { commit, file, text: '', lines: [] };
        cur.lines.push(lineNo++);
        cur.text += `${line.slice(1)}\n`;
      }
    });
    rl.on('close', () => {
      flush();
    });
    git.on('close', (code) => {
      if (code !== 0 && !result.truncated) {
        reject(new FictaError('FICTA_SCAN_GIT', `scan: git log failed in ${options.cwd}: ${stderr.split('\n')[0] ?? ''}`.trim()));
        return;
      }
      resolve(result);
    });
  });
}
