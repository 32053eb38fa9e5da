// Reading one organisation source once: a dotenv file, a directory of files (a Kubernetes Secret
// volume), environment variables by prefix, or a command's stdout (dotenv or a flat JSON object).
// Errors name the source and what went wrong, never a value; a command's stderr is never read.

import { spawn } from 'node:child_process';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { FictaError } from '../errors.ts';
import { parseDotenv } from '../secrets/dotenv.ts';
import { err, ok, type Result } from '../util/result.ts';
import type { SourceConfig } from './sources-config.ts';

/** One name and value as a source holds it. */
export interface SourceValue {
  name: string;
  value: string;
}

/** Largest file of a directory source, and largest command output: a secret is never megabytes. */
export const MAX_SOURCE_BYTES = 16 * 1024 * 1024;
/** Files a directory source may hold (a Kubernetes Secret holds at most 1 MiB in all). */
export const MAX_DIR_FILES = 100_000;

/** Reads the source's current values. */
export async function readSource(source: SourceConfig, env: NodeJS.ProcessEnv): Promise<Result<SourceValue[]>> {
  switch (source.type) {
    case 'dotenv':
      return readDotenvFile(source, source.name, source.path);
    case 'dir':
      return readDir(source.name, source.path);
    case 'env':
      return ok(
        Object.entries(env)
          .filter((e): e is [string, string] => e[0].startsWith(source.prefix) && e[0].length > source.prefix.length && typeof e[1] === 'string')
          .map(([name, value]) => ({ name, value })),
      );
    case 'command':
      return runCommand(source, source.name, source.command, source.timeout, env);
  }
}

/**
 * The text each source last parsed and the values it gave: the same text is not parsed again, and gives
 * the same array (a watch event and a SIGHUP, or a command refreshed every 30 s, mostly read the same bytes).
 */
const lastParse = new WeakMap<SourceConfig, { text: string; values: SourceValue[] }>();

function parseOnce(source: SourceConfig, text: string, parse: (text: string) => Result<SourceValue[]>): Result<SourceValue[]> {
  const last = lastParse.get(source);
  if (last !== undefined && last.text === text) return ok(last.values);
  const r = parse(text);
  if (r.ok) lastParse.set(source, { text, values: r.value });
  else lastParse.delete(source);
  return r;
}

async function readDotenvFile(source: SourceConfig, name: string, path: string): Promise<Result<SourceValue[]>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    return err(unreadable(name, `cannot read ${path}: ${codeOf(cause)}`, cause));
  }
  return parseOnce(source, text, (t) => namesAndValues(parseDotenv(t, `source ${name} (${path})`)));
}

function namesAndValues(r: Result<Array<{ name: string; value: string }>>): Result<SourceValue[]> {
  return r.ok ? ok(r.value.map((e) => ({ name: e.name, value: e.value }))) : r;
}

/**
 * Every regular file whose name does not start with `.` (Kubernetes keeps its `..data` link and
 * timestamped directories there; the visible names are links into `..data`, followed): file name = secret
 * name, content = value with one trailing newline trimmed.
 */
async function readDir(name: string, path: string): Promise<Result<SourceValue[]>> {
  let names: string[];
  try {
    names = await readdir(path);
  } catch (cause) {
    return err(unreadable(name, `cannot read directory ${path}: ${codeOf(cause)}`, cause));
  }
  if (names.length > MAX_DIR_FILES) return err(unreadable(name, `${path} holds more than ${MAX_DIR_FILES} files`));
  const out: SourceValue[] = [];
  for (const file of names.sort()) {
    if (file.startsWith('.')) continue;
    const full = join(path, file);
    try {
      const st = await stat(full);
      if (!st.isFile()) continue;
      if (st.size > MAX_SOURCE_BYTES) return err(unreadable(name, `${full} is larger than ${MAX_SOURCE_BYTES} bytes`));
      out.push({ name: file, value: trimOneNewline(await readFile(full, 'utf8')) });
    } catch (cause) {
      // A file removed between the listing and the read (a swap in progress): the whole read is retried later.
      return err(unreadable(name, `cannot read ${full}: ${codeOf(cause)}`, cause));
    }
  }
  return ok(out);
}

function trimOneNewline(s: string): string {
  if (s.endsWith('\r\n')) return s.slice(0, -2);
  if (s.endsWith('\n')) return s.slice(0, -1);
  return s;
}

/** Runs the command without a shell; stdout (bounded) is the values, stderr is discarded unread. */
function runCommand(source: SourceConfig, name: string, argv: readonly string[], timeoutMs: number, env: NodeJS.ProcessEnv): Promise<Result<SourceValue[]>> {
  return new Promise((resolve) => {
    const [program, ...args] = argv as [string, ...string[]];
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(program, args, { env, stdio: ['ignore', 'pipe', 'ignore'], timeout: timeoutMs, killSignal: 'SIGKILL' });
    } catch (cause) {
      resolve(err(unreadable(name, `cannot run ${program}: ${codeOf(cause)}`, cause)));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    child.stdout?.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_SOURCE_BYTES) {
        tooLarge = true;
        child.kill('SIGKILL');
        return;
      }
      chunks.push(c);
    });
    child.on('error', (cause) => resolve(err(unreadable(name, `cannot run ${program}: ${codeOf(cause)}`, cause))));
    child.on('close', (code, signal) => {
      if (tooLarge) return resolve(err(unreadable(name, `${program} wrote more than ${MAX_SOURCE_BYTES} bytes`)));
      if (signal !== null) return resolve(err(unreadable(name, `${program} was stopped by ${signal}${signal === 'SIGKILL' ? ` (timeout ${timeoutMs} ms?)` : ''}`)));
      if (code !== 0) return resolve(err(unreadable(name, `${program} exited with code ${code}`)));
      resolve(parseOnce(source, Buffer.concat(chunks).toString('utf8'), (text) => parseOutput(name, text)));
    });
  });
}

/** A flat JSON object of strings (`vault kv get -format=json` is flattened from its `data.data`), or dotenv. */
export function parseOutput(name: string, text: string): Result<SourceValue[]> {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return namesAndValues(parseDotenv(text, `source ${name} (command output)`));
  let doc: unknown;
  try {
    doc = JSON.parse(trimmed);
  } catch {
    return err(new FictaError('FICTA_SECRETS_INVALID', `secrets: source ${name}: command output starts like JSON but is not valid JSON`));
  }
  // `vault kv get -format=json`: KV v2 holds the values under data.data, v1 under data (next to lease_duration).
  const inner = isRecord(doc) ? doc.data : undefined;
  const flat = isRecord(inner) && isRecord(inner.data) ? inner.data : isRecord(doc) && 'lease_duration' in doc && isRecord(inner) ? inner : doc;
  if (!isRecord(flat)) return err(new FictaError('FICTA_SECRETS_INVALID', `secrets: source ${name}: command output is not a JSON object`));
  const out: SourceValue[] = [];
  for (const [key, value] of Object.entries(flat)) {
    if (typeof value !== 'string') return err(new FictaError('FICTA_SECRETS_INVALID', `secrets: source ${name}: ${key} is not a string (the JSON object must be flat: name → value)`));
    out.push({ name: key, value });
  }
  return ok(out);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function unreadable(name: string, what: string, cause?: unknown): FictaError {
  return new FictaError('FICTA_SECRETS_UNREADABLE', `secrets: source ${name}: ${what}`, cause === undefined ? {} : { cause });
}

function codeOf(cause: unknown): string {
  return (cause as NodeJS.ErrnoException | null)?.code ?? 'error';
}
