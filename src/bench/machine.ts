// What every benchmark report states next to its figures: Node version, CPU model and count, git sha
// of the code measured, the load average seen before and after, and when it ran.

import { execFileSync } from 'node:child_process';
import { cpus, loadavg, platform, release } from 'node:os';

export interface MachineInfo {
  node: string;
  cpu: string;
  cpus: number;
  os: string;
  gitSha: string;
  /** 1-minute load average when the run started and when it ended. */
  loadBefore: number;
  loadAfter: number;
  date: string;
}

/** Describes this machine and checkout; `loadBefore` is carried over from the start of a run. */
export function machineInfo(loadBefore?: number, cwd = process.cwd()): MachineInfo {
  const list = cpus();
  const load = round2(loadavg()[0] ?? 0);
  return {
    node: process.version,
    cpu: (list[0]?.model ?? 'unknown').trim(),
    cpus: list.length,
    os: `${platform()} ${release()}`,
    gitSha: gitSha(cwd),
    loadBefore: loadBefore ?? load,
    loadAfter: load,
    date: new Date().toISOString(),
  };
}

/** Short sha of HEAD, with `+dirty` when the tree has changes; `unknown` outside a checkout. */
export function gitSha(cwd: string): string {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return dirty === '' ? sha : `${sha}+dirty`;
  } catch {
    return 'unknown';
  }
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
