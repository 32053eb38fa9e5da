// Zero-config discovery (DESIGN §9): when no env file and no vault is named, the secrets of `.env`,
// `.env.local` and `.env.*.local` in the working directory, and environment variables whose names look
// secret or whose values a detector confirms, are registered. Read once at start; each source reports
// its count (and, for the environment, names) for one start-up line — never a value.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CredentialFinder } from '../detect/find.ts';
import { FictaError } from '../errors.ts';
import { ok } from '../util/result.ts';
import { parseDotenv } from './dotenv.ts';
import { MIN_SECRET_LENGTH, type SecretEntry, type SecretSource } from './types.ts';

/** A discovered source and what it holds, for the start-up line. */
export interface DiscoveredSource {
  /** `./.env`, `./.env.local`, `the environment`. */
  where: string;
  source: SecretSource;
  count: number;
  /** Variable names (environment only), sorted. */
  names: string[];
}

/**
 * Names that hold secrets by convention: `*_KEY`, `*_TOKEN`, `*_SECRET`, `*PASSWORD*`, `*_PAT`, `*_DSN`,
 * `*_CREDENTIALS`, connection URLs. Matched on the upper-cased name.
 */
const SECRET_NAME = /(^|_)(KEY|TOKEN|SECRET|SECRETS|PAT|PASS|PASSWD|PWD|DSN|CREDENTIALS?|APIKEY|AUTH_TOKEN)$|PASSWORD|SECRET_|PRIVATE_KEY|^(DATABASE|REDIS|MONGO|MONGODB|AMQP|POSTGRES|MYSQL)_(URL|URI)$|_DATABASE_URL$|CONNECTION_STRING$/;

/** Ours, or well known not to be secrets although their names say so. */
const NOT_SECRET_NAME = /^FICTA_|^SSH_AUTH_SOCK$|^GPG_|^XDG_|^TOKENIZERS_PARALLELISM$|_KEY_(ID|FILE|PATH)$|_(FILE|PATH|DIR|ID)$/;

/** Files looked for in the working directory, in order; `.env.*.local` is matched by name. */
const ENV_FILES = ['.env', '.env.local'];
const LOCAL_VARIANT = /^\.env\.[A-Za-z0-9_-]+\.local$/;

export interface DiscoverOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Confirms credentials in environment values whose names say nothing (undefined: detection off). */
  finder?: CredentialFinder;
}

/** True when an environment variable's name says it holds a secret. */
export function isSecretName(name: string): boolean {
  const upper = name.toUpperCase();
  return SECRET_NAME.test(upper) && !NOT_SECRET_NAME.test(upper);
}

/** The discovered sources with something in them; a dotenv file that does not parse is an error. */
export function discoverSources(options: DiscoverOptions): DiscoveredSource[] {
  const out: DiscoveredSource[] = [];
  let names: string[] = [];
  try {
    names = readdirSync(options.cwd);
  } catch {
    names = [];
  }
  const files = [...ENV_FILES.filter((f) => names.includes(f)), ...names.filter((n) => LOCAL_VARIANT.test(n)).sort()];
  for (const file of files) {
    const path = join(options.cwd, file);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (cause) {
      throw new FictaError('FICTA_SECRETS_UNREADABLE', `secrets: cannot read ${path} (found by discovery; fix it or run with --no-discover): ${(cause as NodeJS.ErrnoException).code ?? 'error'}`, { cause });
    }
    const parsed = parseDotenv(text, `./${file}`);
    if (!parsed.ok) throw new FictaError('FICTA_SECRETS_INVALID', `${parsed.error.message} (found by discovery; fix it or run with --no-discover)`);
    const entries = parsed.value.filter((e) => [...e.value].length >= MIN_SECRET_LENGTH).map((e): SecretEntry => ({ name: e.name, value: e.value, source: `discovered:./${file}` }));
    if (entries.length > 0) out.push({ where: `./${file}`, source: staticSource('discovered-file', entries), count: entries.length, names: [] });
  }

  const fromEnv: SecretEntry[] = [];
  for (const [name, value] of Object.entries(options.env)) {
    if (value === undefined || NOT_SECRET_NAME.test(name.toUpperCase())) continue;
    if (isSecretName(name)) {
      if ([...value].length >= MIN_SECRET_LENGTH && !looksLikePath(value)) fromEnv.push({ name, value, source: `discovered:env:${name}` });
      continue;
    }
    for (const c of options.finder?.find(Buffer.from(value, 'utf8')) ?? []) fromEnv.push({ name, value: c.value, source: `discovered:env:${name}` });
  }
  if (fromEnv.length > 0) {
    const envNames = [...new Set(fromEnv.map((e) => e.name))].sort();
    out.push({ where: 'the environment', source: staticSource('discovered-env', fromEnv), count: fromEnv.length, names: envNames });
  }
  return out;
}

/** An absolute or home-relative path: a location, not a secret (`PASSWORD_STORE_DIR=~/.password-store`). */
function looksLikePath(value: string): boolean {
  return /^(\/|~\/)[^\s]*$/.test(value) && !value.includes('://');
}

function staticSource(kind: string, entries: SecretEntry[]): SecretSource {
  return { kind, load: async () => ok(entries) };
}
