// `ficta scan [PATH…] [--env] [--git] [--json] [--add] [--yes]`: finds credentials in files (honouring
// .gitignore), the environment or git history, and prints where, what kind, a suggested vault name and a
// short keyed fingerprint — never the value. `--add` imports them into the vault. Exit 1 when anything is
// found, so CI can use it; binary and huge files are skipped and counted.

import { createInterface } from 'node:readline';
import { loadConfig } from '../config/load.ts';
import { customKind } from '../detect/custom.ts';
import { createDetector } from '../detect/detector.ts';
import { createCredentialFinder, type Credential } from '../detect/find.ts';
import type { Verdict } from '../detect/kind.ts';
import { createFingerprinter } from '../scan/fingerprint.ts';
import { DEFAULT_MAX_COMMITS, DEFAULT_MAX_HISTORY_BYTES, readHistory, type HistoryResult } from '../scan/history.ts';
import { assignedName, createNamer, toVaultName } from '../scan/names.ts';
import { DEFAULT_MAX_FILE_BYTES, walkFiles, type WalkCounts } from '../scan/walk.ts';
import { canPrompt } from '../vault/prompt.ts';
import { unlockVaultAt } from '../vault/unlock.ts';
import { vaultPath } from '../vault/path.ts';
import type { ImportItem } from '../vault/vault.ts';
import { formatHelp, parseCommandLine, usageError, type CommandSpec } from './args.ts';
import { EXIT_OK } from './exit-codes.ts';
import type { CliIo } from './io.ts';

/** Exit code when a scan finds a credential (CI fails on it). */
const EXIT_FOUND = 1;

export const spec = {
  name: 'scan',
  usage: 'scan [PATH…] [--env] [--git] [--json] [--add [--yes]]',
  summary: 'find credentials in files, the environment or git history (never prints a value)',
  description: `Finds credentials in files (default: the current directory; .gitignore is honoured), the environment
or git history. Prints where, what kind, a suggested vault name, a short fingerprint (keyed by
FICTA_HOME/scan.key) and the verdict, never the value: verified (its checksum holds), unverified (it has
the kind's shape but fails its checksum: a test fixture or a typo; the proxy redacts it, never blocks it)
or format (its kind carries no checksum). Exit status 1 when anything is found, 0 otherwise.`,
  options: {
    env: { type: 'boolean', help: 'scan the environment variables' },
    git: { type: 'boolean', help: 'scan the git history of the current directory (lines added by each commit)' },
    'git-max-commits': { type: 'string', value: 'N', help: `newest commits of all refs to read (default ${DEFAULT_MAX_COMMITS})` },
    'max-file-bytes': { type: 'string', value: 'N', help: `skip larger files (default ${DEFAULT_MAX_FILE_BYTES})` },
    json: { type: 'boolean', help: 'one JSON document on stdout (with --add, its result too)' },
    add: { type: 'boolean', help: 'import the findings into the vault (asks first on a terminal)' },
    yes: { type: 'boolean', short: 'y', help: 'with --add: do not ask' },
    'key-file': { type: 'string', value: 'PATH', complete: 'file', help: 'unlock a key-file vault for --add (FICTA_VAULT_KEY_FILE)' },
  },
  positionals: { name: 'PATH', min: 0, max: Infinity, complete: 'file' },
} satisfies CommandSpec;

/** One credential found; `value` stays in memory (for --add) and is never printed. */
interface Finding {
  place: string;
  file?: string;
  line?: number;
  column?: number;
  commit?: string;
  env?: string;
  kind: string;
  name: string;
  fingerprint: string;
  verdict: Verdict;
  value: string;
}

/** Runs a scan and returns the exit code. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const { help, values, positionals } = parseCommandLine(spec, argv);
  if (help) {
    io.stdout.write(formatHelp(spec));
    return EXIT_OK;
  }
  if (values.yes === true && values.add !== true) throw usageError(spec, '--yes goes with --add');
  const interactive = canPrompt(io.stdin);
  if (values.add === true && values.yes !== true && !interactive) throw usageError(spec, '--add asks before importing; without a terminal, pass --yes');
  const loaded = loadConfig({ env: io.env });
  if (!loaded.ok) throw loaded.error;
  const config = loaded.value;
  // The organisation's own formats too (credentials to import); not PII or terms, which are no credentials.
  const finder = createCredentialFinder(createDetector({ allow: config.detect.allow, extra: config.detect.custom.map(customKind) }));
  const fp = createFingerprinter(config.home);
  if (!fp.ok) throw fp.error;
  const fingerprint = fp.value;
  const nameFor = createNamer();
  const findings: Finding[] = [];
  const add = (c: Credential, wanted: string, where: Omit<Finding, 'kind' | 'name' | 'fingerprint' | 'verdict' | 'value'>): void => {
    findings.push({ ...where, kind: c.kind, name: nameFor(c.value, wanted), fingerprint: fingerprint(c.value), verdict: c.verdict, value: c.value });
  };

  const paths = positionals.length > 0 ? positionals : values.env === true || values.git === true ? [] : ['.'];
  let counts: WalkCounts | undefined;
  if (paths.length > 0) {
    const maxFileBytes = values['max-file-bytes'] === undefined ? DEFAULT_MAX_FILE_BYTES : whole('--max-file-bytes', values['max-file-bytes']);
    counts = walkFiles(paths, maxFileBytes, (file, bytes) => {
      const found = finder.find(bytes);
      if (found.length === 0) return;
      // latin1: one character per byte, so the detector's byte offsets index the text.
      const text = bytes.toString('latin1');
      const lines = lineStarts(bytes);
      for (const c of found) {
        const { line, column } = position(lines, c.start);
        add(c, toVaultName(assignedName(text, c.start, c.kind) ?? c.kind), { place: `${file}:${line}:${column}`, file, line, column });
      }
    });
  }
  if (values.env === true) {
    for (const [name, value] of Object.entries(io.env).sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (value === undefined || name.startsWith('FICTA_')) continue;
      for (const c of finder.find(Buffer.from(value, 'utf8'))) add(c, toVaultName(name), { place: `env:${name}`, env: name });
    }
  }
  let history: HistoryResult | undefined;
  if (values.git === true) {
    const maxCommits = values['git-max-commits'] === undefined ? DEFAULT_MAX_COMMITS : whole('--git-max-commits', values['git-max-commits']);
    const progress = (io.stderr as { isTTY?: boolean }).isTTY === true;
    history = await readHistory(
      { cwd: process.cwd(), maxCommits, maxBytes: DEFAULT_MAX_HISTORY_BYTES, ...(progress ? { onProgress: (n: number) => void io.stderr.write(`\rficta: scan: git history: ${n} commits`) } : {}) },
      (a) => {
        const bytes = Buffer.from(a.text, 'utf8');
        const found = finder.find(bytes);
        if (found.length === 0) return;
        const text = bytes.toString('latin1');
        const starts = lineStarts(bytes);
        for (const c of found) {
          // The k-th added line of the text is line a.lines[k] of the file at that commit.
          const line = a.lines[position(starts, c.start).line - 1]!;
          add(c, toVaultName(assignedName(text, c.start, c.kind) ?? c.kind), { place: `${a.commit.slice(0, 12)}:${a.file}:${line}`, commit: a.commit, file: a.file, line });
        }
      },
    );
    if (progress) io.stderr.write('\r\u001b[K');
  }

  const json = values.json === true;
  if (!json) {
    const rows = findings.map((f) => [f.place, f.kind, f.name, f.fingerprint, f.verdict]);
    const widths = [0, 1, 2, 3].map((c) => rows.reduce((w, r) => Math.max(w, r[c]!.length), 0));
    for (const r of rows) io.stdout.write(`${r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]!))).join('  ')}\n`);
    io.stderr.write(`ficta: scan: ${summary(findings, counts, history)}\n`);
  }
  const added = values.add === true && findings.length > 0 ? await addToVault(findings, values['key-file'], values.yes === true, io, config.home, json) : undefined;
  if (json) {
    // One document: the findings (never a value) and, with --add, what the vault got.
    const doc = { findings: findings.map(({ value: _v, ...f }) => f), scanned: scanned(counts, history), skipped: skipped(counts), ...(added === undefined ? {} : { added }) };
    io.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
  }
  return findings.length > 0 ? EXIT_FOUND : EXIT_OK;
}

/** What `--add` did, by vault name (the values themselves are never shown). */
interface AddResult {
  vault: string;
  added: string[];
  present: string[];
  skipped: Array<{ name: string; reason: string }>;
  declined: boolean;
}

/**
 * Imports the distinct values found; a name the vault holds with another value, or that another finding
 * took, gets a suffix (NAME_2, …), so the import never meets two values for one name. Lines on stdout,
 * or (json) only the result.
 */
async function addToVault(findings: Finding[], keyFile: string | undefined, yes: boolean, io: CliIo, home: string, json: boolean): Promise<AddResult> {
  const byValue = new Map<string, Finding>();
  for (const f of findings) if (!byValue.has(f.value)) byValue.set(f.value, f);
  const path = vaultPath(home);
  const result: AddResult = { vault: path, added: [], present: [], skipped: [], declined: false };
  if (!yes && !(await confirm(`add ${byValue.size} credential(s) to the vault at ${path}? [y/N] `, io))) {
    if (!json) io.stderr.write('ficta: scan: nothing added\n');
    result.declined = true;
    return result;
  }
  const unlocked = await unlockVaultAt(path, { env: io.env, keyFile, stdin: io.stdin, stderr: io.stderr, mayPrompt: true });
  if (!unlocked.ok) throw unlocked.error;
  const vault = unlocked.value;
  try {
    const entries = vault.entries();
    if (!entries.ok) throw entries.error;
    const valueByName = new Map(entries.value.map((e) => [e.name, e.value]));
    const nameByValue = new Map(entries.value.map((e) => [e.value, e.name]));
    const items: ImportItem[] = [];
    for (const f of byValue.values()) {
      const existing = nameByValue.get(f.value);
      if (existing !== undefined) {
        result.present.push(existing);
        if (!json) io.stdout.write(`present   ${existing} (${f.fingerprint})\n`);
        continue;
      }
      let name = f.name;
      for (let n = 2; valueByName.has(name) || items.some((i) => i.name === name); n++) name = `${f.name}_${n}`;
      items.push({ name, value: f.value, source: `scan:${f.place}` });
    }
    const report = vault.import(items);
    if (!report.ok) throw report.error;
    result.added = report.value.added;
    result.skipped = report.value.skipped;
    if (!json) {
      for (const name of report.value.added) io.stdout.write(`added     ${name}\n`);
      for (const s of report.value.skipped) io.stdout.write(`skipped   ${s.name} (${s.reason})\n`);
      io.stderr.write(`ficta: scan: ${report.value.added.length} added to ${path}\n`);
    }
  } finally {
    vault.close();
  }
  return result;
}

async function confirm(question: string, io: CliIo): Promise<boolean> {
  const rl = createInterface({ input: io.stdin, output: io.stderr, terminal: false });
  io.stderr.write(question);
  const answer = await new Promise<string>((done) => rl.once('line', done).once('close', () => done('')));
  rl.close();
  return /^y(es)?$/i.test(answer.trim());
}

function summary(findings: Finding[], counts: WalkCounts | undefined, history: HistoryResult | undefined): string {
  const places = new Set(findings.map((f) => f.file ?? f.env ?? f.place)).size;
  const unverified = findings.filter((f) => f.verdict === 'unverified').length;
  const parts = [`${findings.length} credential${findings.length === 1 ? '' : 's'}${unverified > 0 ? ` (${unverified} unverified)` : ''} in ${places} place${places === 1 ? '' : 's'}`];
  if (counts !== undefined) {
    const skip = [counts.binary > 0 ? `${counts.binary} binary` : '', counts.huge > 0 ? `${counts.huge} too large` : '', counts.unreadable > 0 ? `${counts.unreadable} unreadable` : ''].filter((s) => s !== '');
    parts.push(`${counts.files} files scanned${skip.length > 0 ? `, skipped ${skip.join(', ')}` : ''}`);
  }
  if (history !== undefined) parts.push(`${history.commits} commits${history.truncated ? ' (history cut at the byte budget)' : ''}`);
  return parts.join('; ');
}

function scanned(counts: WalkCounts | undefined, history: HistoryResult | undefined): Record<string, number | boolean> {
  return { files: counts?.files ?? 0, bytes: counts?.bytes ?? 0, ...(history === undefined ? {} : { commits: history.commits, historyTruncated: history.truncated }) };
}

function skipped(counts: WalkCounts | undefined): Record<string, number> {
  return { binary: counts?.binary ?? 0, tooLarge: counts?.huge ?? 0, unreadable: counts?.unreadable ?? 0, ignored: counts?.ignored ?? 0 };
}

/** Byte offsets where lines start. */
function lineStarts(bytes: Buffer): number[] {
  const starts = [0];
  for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, i + 1)) starts.push(i + 1);
  return starts;
}

/** 1-based line and column (in bytes) of a byte offset. */
function position(starts: number[], offset: number): { line: number; column: number } {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: offset - starts[lo]! + 1 };
}

function whole(flag: string, v: string): number {
  if (!/^\d+$/.test(v)) throw usageError(spec, `${flag} must be a whole number`);
  return Number(v);
}
