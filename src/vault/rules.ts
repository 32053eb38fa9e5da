// What the vault accepts: secret names (the dotenv grammar) and values (long enough to be redacted safely,
// short enough to be a token or a key, valid Unicode text).

import { termProblem } from '../detect/terms.ts';
import { MIN_SECRET_LENGTH } from '../secrets/types.ts';
import { err, ok, type Result } from '../util/result.ts';
import { vaultError } from './errors.ts';

/** Names follow the dotenv grammar, so every `.env` name can be imported. */
const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
export const MAX_NAME_LENGTH = 128;
/** Longest accepted value: PEM private keys, the largest secrets users register, are under 8 KiB. */
export const MAX_VALUE_BYTES = 64 * 1024;
/** A UTF-16 surrogate without its pair cannot be stored as UTF-8 (String#isWellFormed is ES2024). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export type SkipReason = 'empty' | 'too short' | 'too long' | 'invalid name' | 'invalid text';

/** Checks a secret name. */
export function checkName(name: string): Result<string> {
  if (name.length === 0 || name.length > MAX_NAME_LENGTH || !NAME.test(name)) {
    // The name is not repeated: an invalid one is often a value pasted where the name belongs.
    return err(vaultError('FICTA_VAULT_NAME_INVALID', `invalid name: use letters, digits, _ . - (at most ${MAX_NAME_LENGTH}), not starting with a digit`));
  }
  return ok(name);
}

/** Why a value cannot be registered, or undefined when it can. */
export function valueProblem(value: string): SkipReason | undefined {
  if (value.length === 0) return 'empty';
  if (LONE_SURROGATE.test(value)) return 'invalid text';
  // Characters (code points), as the proxy's registry counts them: what the vault accepts, the proxy uses.
  if (codePoints(value) < MIN_SECRET_LENGTH) return 'too short';
  if (Buffer.byteLength(value, 'utf8') > MAX_VALUE_BYTES) return 'too long';
  return undefined;
}

/** Checks a value and returns its UTF-8 bytes. */
export function checkValue(name: string, value: string): Result<Buffer> {
  const problem = valueProblem(value);
  if (problem === undefined) return ok(Buffer.from(value, 'utf8'));
  const what = problem === 'too short' ? `shorter than ${MIN_SECRET_LENGTH} characters (it would match ordinary text)`
    : problem === 'too long' ? `longer than ${MAX_VALUE_BYTES} bytes` : problem === 'empty' ? 'empty' : 'not valid Unicode text';
  return err(vaultError('FICTA_VAULT_VALUE_INVALID', `the value of ${name} is ${what}`));
}

/** A term's value (`vault add --term`): the rules of terms (at least 3 bytes, no quote or line break). */
export function checkTerm(name: string, value: string): Result<Buffer> {
  const problem = termProblem({ name, value });
  return problem === undefined ? ok(Buffer.from(value, 'utf8')) : err(vaultError('FICTA_VAULT_VALUE_INVALID', `the term ${name} is refused: ${problem}`));
}

/** Length in characters (code points), as the proxy counts it. */
export function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n += 1;
  return n;
}
