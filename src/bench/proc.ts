// What the harness reads about another process from Linux /proc: CPU time (ns, summed over threads,
// from schedstat; clock ticks from stat where schedstat is missing), resident memory and its peak, and
// the descendants of a process (a `--proxy-cmd` may run the proxy under a shell).

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

/** Clock ticks per second for /proc/<pid>/stat (USER_HZ; 100 on every Linux build Node supports). */
const USER_HZ = 100;

/** CPU time of the processes `pids` (see {@link processTree}) in milliseconds, or undefined when /proc cannot tell. */
export function cpuTimeMs(pids: readonly number[]): number | undefined {
  let total = 0;
  let known = false;
  for (const p of pids) {
    const t = processCpuMs(p);
    if (t === undefined) continue;
    total += t;
    known = true;
  }
  return known ? total : undefined;
}

function processCpuMs(pid: number): number | undefined {
  // schedstat is per thread and in nanoseconds; stat's utime+stime cover the whole process but in 10 ms ticks.
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  let ns = 0;
  let ok = true;
  for (const t of tasks) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'latin1').split(' ', 1)[0]);
    } catch (e) {
      // A thread that ended between readdir and read contributes nothing; a missing file means no schedstat.
      if ((e as NodeJS.ErrnoException).code !== 'ESRCH' && (e as NodeJS.ErrnoException).code !== 'ENOENT') ok = false;
      else if (t === String(pid)) ok = false;
    }
  }
  if (ok && ns > 0) return ns / 1e6;
  const fields = statFields(pid);
  if (fields === undefined) return undefined;
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ;
}

/** Fields of /proc/<pid>/stat after the command name (index 0 = state). */
function statFields(pid: number): string[] | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return s.slice(s.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** `pid` and every live descendant (read once the process is ready: the tree of a proxy is stable). */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [pid];
  }
  for (const e of entries) {
    if (e.charCodeAt(0) < 0x30 || e.charCodeAt(0) > 0x39) continue;
    const f = statFields(Number(e));
    if (f === undefined) continue;
    const ppid = Number(f[1]);
    const list = children.get(ppid) ?? [];
    list.push(Number(e));
    children.set(ppid, list);
  }
  const out: number[] = [];
  const queue = [pid];
  while (queue.length > 0 && out.length < 256) {
    const p = queue.shift() as number;
    out.push(p);
    for (const c of children.get(p) ?? []) queue.push(c);
  }
  return out;
}

export interface MemoryReading {
  /** Resident set size now, MB (10^6 bytes). */
  rssMB: number;
  /** Peak resident set size since start or the last {@link resetPeak}, MB. */
  peakMB: number;
}

/** RSS and peak RSS of the processes `pids` (summed), or undefined. */
export function memory(pids: readonly number[]): MemoryReading | undefined {
  let rss = 0;
  let peak = 0;
  let known = false;
  for (const p of pids) {
    let status: string;
    try {
      status = readFileSync(`/proc/${p}/status`, 'latin1');
    } catch {
      continue;
    }
    rss += kB(status, 'VmRSS');
    peak += kB(status, 'VmHWM');
    known = true;
  }
  return known ? { rssMB: (rss * 1024) / 1e6, peakMB: (peak * 1024) / 1e6 } : undefined;
}

function kB(status: string, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return m === null ? 0 : Number(m[1]);
}

/** Resets the peak RSS (VmHWM) of the processes `pids` to their current RSS; false if the kernel refused. */
export function resetPeak(pids: readonly number[]): boolean {
  let ok = true;
  for (const p of pids) {
    try {
      // Writing 5 to clear_refs resets the peak resident set size (Linux ≥ 4.0, proc(5)).
      writeFileSync(`/proc/${p}/clear_refs`, '5');
    } catch {
      ok = false;
    }
  }
  return ok;
}
