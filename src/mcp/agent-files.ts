// Reading agents' configuration files without changing them: JSON with comments (Gemini CLI settings,
// opencode's .jsonc), `${VAR}` expansion as Claude Code does it, and the directories from the file
// system root (or the git root) down to the working directory, where project files are looked up.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, parse as parsePath, resolve } from 'node:path';

/** A file's JSON (comments and trailing commas allowed), undefined when it is missing; a problem when unreadable. */
export function readJsonFile(path: string, problems: string[]): Record<string, unknown> | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const parsed = JSON.parse(stripJsonComments(readFileSync(path, 'utf8'))) as unknown;
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    problems.push(`${path}: not a JSON object`);
  } catch {
    problems.push(`${path}: not valid JSON`);
  }
  return undefined;
}

/** JSON text without line and block comments and without trailing commas (strings kept as they are). */
export function stripJsonComments(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : end + 2;
    } else {
      out += c;
      i++;
    }
  }
  return out.replace(/,(\s*[}\]])/g, '$1');
}

/** `${VAR}` and `${VAR:-default}` expanded from `env` (Claude Code's MCP config expansion); unset without default stays as written. */
export function expandVars(value: string, env: NodeJS.ProcessEnv): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (whole, name: string, fallback: string | undefined) => env[name] ?? fallback ?? whole);
}

/** Directories from the root down to `cwd` (inclusive), or from `stopAt` when it is above `cwd`. */
export function dirsDownTo(cwd: string, stopAt?: string): string[] {
  const out: string[] = [];
  let dir = resolve(cwd);
  const root = parsePath(dir).root;
  for (;;) {
    out.push(dir);
    if (dir === root || (stopAt !== undefined && dir === resolve(stopAt))) break;
    dir = dirname(dir);
  }
  return out.reverse();
}

/** The nearest directory at or above `cwd` holding `.git`, or undefined. */
export function gitRoot(cwd: string): string | undefined {
  for (const dir of dirsDownTo(cwd).reverse()) if (existsSync(join(dir, '.git'))) return dir;
  return undefined;
}

/** A plain object, or undefined. */
export function objectOf(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}
