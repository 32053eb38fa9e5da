// Loads the configuration: file (FICTA_HOME/config.toml or --config) < FICTA_* environment < flags,
// validated by the zod schema with errors that name the key and where it came from.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseToml } from './toml.ts';
import type { z } from './zod.ts';
import { FictaError } from '../errors.ts';
import { err, ok, type Result } from '../util/result.ts';
import { resolveHome } from './home.ts';
import { lowercaseUpstreamNames, namedUpstreamProblem, routeName } from '../providers/upstreams.ts';
import { ConfigSchema, type Config } from './schema.ts';

type Tree = Record<string, unknown>;

export interface LoadConfigOptions {
  /** Values from command-line flags (highest precedence), in the schema's shape. */
  flags?: Tree;
  /** A command's own defaults (lowest precedence, under the config file). */
  defaults?: Tree;
  /** Explicit config file; when absent FICTA_HOME/config.toml is read if it exists. */
  configFile?: string;
  env?: NodeJS.ProcessEnv;
}

/** FICTA_* variables and the config keys they set. */
export const ENV_KEYS: ReadonlyArray<readonly [string, readonly string[], 'string' | 'int']> = [
  ['FICTA_HOST', ['host'], 'string'],
  ['FICTA_PORT', ['port'], 'int'],
  ['FICTA_ANTHROPIC_UPSTREAM', ['upstreams', 'anthropic'], 'string'],
  ['FICTA_OPENAI_UPSTREAM', ['upstreams', 'openai'], 'string'],
  ['FICTA_GEMINI_UPSTREAM', ['upstreams', 'gemini'], 'string'],
  ['FICTA_OLLAMA_UPSTREAM', ['upstreams', 'ollama'], 'string'],
  ['FICTA_CHATGPT_UPSTREAM', ['upstreams', 'chatgpt'], 'string'],
  ['FICTA_LOG_LEVEL', ['log', 'level'], 'string'],
  ['FICTA_MAX_BODY_BYTES', ['limits', 'maxBodyBytes'], 'int'],
  ['FICTA_TOKEN', ['token'], 'string'],
  ['FICTA_LOG_FORMAT', ['log', 'format'], 'string'],
  ['FICTA_DETECT', ['detect', 'mode'], 'string'],
];

/** Reads, merges and validates the configuration. */
export function loadConfig(options: LoadConfigOptions = {}): Result<Config> {
  const env = options.env ?? process.env;
  const home = resolveHome(env);
  const fileResult = readConfigFile(options.configFile, home);
  if (!fileResult.ok) return fileResult;
  const envResult = readEnv(env);
  if (!envResult.ok) return envResult;

  // Named upstreams are routed lowercased: each source's names are lowercased before merging, so a flag's
  // `--upstream openrouter=…` replaces the file's `[upstreams.OpenRouter]` instead of clashing with it.
  const trees = [options.defaults ?? {}, fileResult.value.tree, envResult.value, options.flags ?? {}].map(lowercaseNamed);
  const merged = trees.reduce((base, over) => mergeTrees(base, over));
  merged.home = home;
  const parsed = ConfigSchema.safeParse(merged);
  if (!parsed.success) {
    // A bad value given as a command-line flag is a usage error (exit 2); from a file or the environment, a config error.
    const code = fromFlags(parsed.error, options.flags ?? {}) ? 'FICTA_USAGE' : 'FICTA_CONFIG_INVALID';
    return err(new FictaError(code, formatIssue(parsed.error, fileResult.value.source)));
  }
  return ok(parsed.data);
}

function readConfigFile(explicit: string | undefined, home: string): Result<{ tree: Tree; source: string }> {
  const path = explicit ?? join(home, 'config.toml');
  if (explicit === undefined && !existsSync(path)) return ok({ tree: {}, source: 'defaults' });
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    return err(new FictaError('FICTA_CONFIG_INVALID', `config: cannot read ${path}: ${(cause as NodeJS.ErrnoException).code ?? 'error'}`, { cause }));
  }
  try {
    const tree = path.endsWith('.json') ? (JSON.parse(text) as unknown) : (parseToml(text) as unknown);
    if (typeof tree !== 'object' || tree === null || Array.isArray(tree)) {
      return err(new FictaError('FICTA_CONFIG_INVALID', `config: ${path}: top level must be a table`));
    }
    const { home: _ignored, ...rest } = tree as Tree;
    return ok({ tree: rest, source: path });
  } catch (cause) {
    const line = (cause as { line?: number }).line;
    const where = line === undefined ? '' : ` (line ${line})`;
    return err(new FictaError('FICTA_CONFIG_INVALID', `config: ${path}: not valid ${path.endsWith('.json') ? 'JSON' : 'TOML'}${where}`, { cause }));
  }
}

function readEnv(env: NodeJS.ProcessEnv): Result<Tree> {
  const tree: Tree = {};
  for (const [name, path, kind] of ENV_KEYS) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    let value: unknown = raw;
    if (kind === 'int') {
      if (!/^\d+$/.test(raw)) return err(new FictaError('FICTA_CONFIG_INVALID', `config: ${name} must be a whole number`));
      value = Number(raw);
    }
    setPath(tree, path, value);
  }
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith(NAMED_UPSTREAM_ENV) || raw === undefined || raw === '') continue;
    // FICTA_UPSTREAM_OPENROUTER=URL → [upstreams.openrouter] url = URL, routed at /openrouter/.
    const upstream = routeName(name.slice(NAMED_UPSTREAM_ENV.length));
    const problem = namedUpstreamProblem(upstream);
    if (problem !== undefined) return err(new FictaError('FICTA_CONFIG_INVALID', `config: ${name}: ${problem}`));
    setPath(tree, ['upstreams', upstream], { url: raw });
  }
  return ok(tree);
}

/** The tree with its named upstreams' names lowercased (a clash within one source is left for the schema to name). */
function lowercaseNamed(tree: Tree): Tree {
  const upstreams = tree.upstreams;
  if (!isPlainObject(upstreams)) return tree;
  // Names that cannot be names are kept as written, so the schema's error names them as the user did.
  if (Object.keys(upstreams).some((n) => routeName(n) !== n && namedUpstreamProblem(n) !== undefined)) return tree;
  let clash = false;
  const lowered = lowercaseUpstreamNames(upstreams, () => (clash = true));
  return clash ? tree : { ...tree, upstreams: lowered };
}

/** `FICTA_UPSTREAM_<NAME>=URL` defines a named upstream. */
export const NAMED_UPSTREAM_ENV = 'FICTA_UPSTREAM_';

function setPath(tree: Tree, path: readonly string[], value: unknown): void {
  let node = tree;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i] as string;
    const next = node[key];
    if (typeof next !== 'object' || next === null) node[key] = {};
    node = node[key] as Tree;
  }
  node[path[path.length - 1] as string] = value;
}

/** Deep-merges `over` onto `base`; plain objects merge, everything else is replaced, except secret lists, terms and allowed hosts, which are unioned. */
function mergeTrees(base: Tree, over: Tree, path = ''): Tree {
  const out: Tree = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    const prev = out[key];
    const here = path === '' ? key : `${path}.${key}`;
    if (isPlainObject(prev) && isPlainObject(value)) out[key] = mergeTrees(prev, value, here);
    else if ((here === 'secrets.envFiles' || here === 'secrets.env' || here === 'secrets.terms' || here === 'restore.allowHosts') && Array.isArray(prev) && Array.isArray(value)) {
      out[key] = [...new Set([...prev, ...value])];
    } else out[key] = value;
  }
  return out;
}

function isPlainObject(v: unknown): v is Tree {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** True when the first issue's key was set by a command-line flag. */
function fromFlags(error: z.ZodError, flags: Tree): boolean {
  const issue = error.issues[0];
  if (issue === undefined) return false;
  let node: unknown = flags;
  for (const key of issue.path) {
    if (!isPlainObject(node) || !(String(key) in node)) return false;
    node = node[String(key)];
  }
  return node !== undefined;
}

function formatIssue(error: z.ZodError, source: string): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'config: invalid';
  const path = issue.path.map(String);
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') {
    path.push(issue.keys[0] ?? '?');
    message = 'unknown key';
  }
  const key = path.length === 0 ? '(top level)' : path.join('.');
  const where = source === 'defaults' ? '' : ` (from ${source} or environment/flags)`;
  return `config: ${key}: ${message.charAt(0).toLowerCase()}${message.slice(1)}${where}`;
}
