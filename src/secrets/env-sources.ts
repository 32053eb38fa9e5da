// Secret sources for `ficta serve`: dotenv files (`--env-file`) and named environment variables
// (`--secret-env`). Read once at start; a file that cannot be read or parsed is an error.

import { readFile } from 'node:fs/promises';
import { FictaError } from '../errors.ts';
import { err, ok } from '../util/result.ts';
import { parseDotenv } from './dotenv.ts';
import type { SecretEntry, SecretSource } from './types.ts';

/** Every value of a dotenv file is a secret (short ones are skipped by the registry, with a message). */
export function createEnvFileSource(path: string): SecretSource {
  return {
    kind: 'env-file',
    async load() {
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (cause) {
        const code = (cause as NodeJS.ErrnoException).code ?? 'error';
        return err(new FictaError('FICTA_SECRETS_UNREADABLE', `secrets: cannot read env file ${path}: ${code}`, { cause }));
      }
      const parsed = parseDotenv(text, path);
      if (!parsed.ok) return parsed;
      return ok(parsed.value.map((e): SecretEntry => ({ name: e.name, value: e.value, source: `env-file:${path}` })));
    },
  };
}

/**
 * The values of the named environment variables. A variable that is not set is an error (the user asked
 * for it to be protected), unless `onMissing` is given: then it is reported there and skipped.
 */
export function createEnvVarSource(names: readonly string[], env: NodeJS.ProcessEnv, onMissing?: (name: string) => void): SecretSource {
  return {
    kind: 'env',
    async load() {
      const out: SecretEntry[] = [];
      const missing = names.filter((n) => env[n] === undefined);
      if (missing.length > 0 && onMissing === undefined) {
        const list = missing.join(', ');
        return err(new FictaError('FICTA_SECRETS_MISSING', `secrets: ${list} ${missing.length === 1 ? 'is' : 'are'} not set in the environment (--secret-env); set ${missing.length === 1 ? 'it' : 'them'}, or pass --allow-missing to start without`));
      }
      for (const name of names) {
        const value = env[name];
        if (value === undefined) {
          onMissing?.(name);
          continue;
        }
        out.push({ name, value, source: `env:${name}` });
      }
      return ok(out);
    },
  };
}
