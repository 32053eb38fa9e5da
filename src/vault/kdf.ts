// Turns a passphrase (Argon2id, in a worker thread) or a key file (keyed BLAKE2b) into the vault's
// key-encryption key, with the parameters that the vault header stores.

import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { COMPILED, ownScriptPath } from '../util/own-script.ts';
import { err, ok, type Result } from '../util/result.ts';
import { vaultError } from './errors.ts';
import { ARGON2ID_LIMITS, SALT_BYTES, argon2id, blake2b, initSeal, randomKeyBytes, wipe } from './seal.ts';
import type { KdfReply, KdfRequest } from './kdf-worker.ts';

export type KdfPreset = keyof typeof ARGON2ID_LIMITS;

/**
 * MODERATE (3 passes, 256 MiB): the vault's threat is offline guessing of a stolen file or backup, and unlock
 * happens once per `ficta serve` start or CLI command, so a second is affordable. Measured here (AMD EPYC,
 * 2 vCPUs): Argon2id alone 0.18 s at INTERACTIVE and 0.89 s at MODERATE; with the worker start 0.30 s and
 * 1.06 s (bench/vault.bench.ts). `--kdf interactive` exists for slow machines.
 */
export const DEFAULT_KDF_PRESET: KdfPreset = 'moderate';

/** Presets a user may choose; `min` only exists for tests and the frozen fixture. */
export const USER_KDF_PRESETS: readonly KdfPreset[] = ['interactive', 'moderate', 'sensitive'];

/**
 * Below this memory cost Argon2id runs in the calling thread: the WebAssembly heap does not grow, and a
 * worker start (thread, tsx, libsodium) measured ~150 ms here, far more than the hash itself (MIN: 0.2 ms).
 */
const INLINE_KDF_MAX_MEM = 1024 * 1024;

/** The largest parameters a vault header may ask for, so a damaged header cannot exhaust memory. */
const MAX_OPS = 16;
const MAX_MEM = ARGON2ID_LIMITS.sensitive.mem;

/** How the key-encryption key is derived; stored in the vault header and bound into every key wrap. */
export interface KdfParams {
  kind: 'argon2id' | 'key-file';
  preset: KdfPreset | 'key-file';
  salt: Buffer;
  ops: number;
  mem: number;
}

/** What unlocks a vault: a passphrase, or the 32 random bytes of a key file. */
export type VaultCredential =
  | { kind: 'passphrase'; passphrase: string }
  | { kind: 'key-file'; key: Buffer; path: string };

/** Fresh parameters (new random salt) for a credential. */
export function createKdfParams(kind: VaultCredential['kind'], preset: KdfPreset = DEFAULT_KDF_PRESET): KdfParams {
  const salt = randomKeyBytes(SALT_BYTES);
  if (kind === 'key-file') return { kind: 'key-file', preset: 'key-file', salt, ops: 0, mem: 0 };
  const limits = ARGON2ID_LIMITS[preset];
  return { kind: 'argon2id', preset, salt, ops: limits.ops, mem: limits.mem };
}

/** Checks parameters read from a vault header before any work is done with them. */
export function checkKdfParams(params: KdfParams): Result<KdfParams> {
  if (params.salt.length !== SALT_BYTES) return err(vaultError('FICTA_VAULT_CORRUPT', 'the vault header has a salt of the wrong length'));
  if (params.kind === 'key-file') return ok(params);
  if (!Number.isInteger(params.ops) || !Number.isInteger(params.mem) || params.ops < ARGON2ID_LIMITS.min.ops || params.ops > MAX_OPS
    || params.mem < ARGON2ID_LIMITS.min.mem || params.mem > MAX_MEM) {
    return err(vaultError('FICTA_VAULT_CORRUPT', 'the vault header asks for Argon2id parameters outside the accepted range'));
  }
  return ok(params);
}

/** Derives the 32-byte key-encryption key for `credential` under `params`. */
export async function deriveKek(credential: VaultCredential, params: KdfParams): Promise<Result<Buffer>> {
  await initSeal();
  if ((credential.kind === 'key-file') !== (params.kind === 'key-file')) {
    return err(params.kind === 'key-file'
      ? vaultError('FICTA_VAULT_LOCKED', 'this vault opens with a key file: pass --key-file or set FICTA_VAULT_KEY_FILE')
      : vaultError('FICTA_VAULT_LOCKED', 'this vault opens with a passphrase, not a key file'));
  }
  if (credential.kind === 'key-file') {
    const message = Buffer.concat([Buffer.from('ficta/vault/key-file\0'), params.salt]);
    return ok(blake2b(message, credential.key));
  }
  // NFC so the same passphrase typed through different input methods gives the same bytes.
  const passphrase = Buffer.from(credential.passphrase.normalize('NFC'), 'utf8');
  try {
    if (params.mem <= INLINE_KDF_MAX_MEM) return ok(argon2id(passphrase, params.salt, params.ops, params.mem));
    return ok(await argon2idInWorker({ passphrase, salt: params.salt, ops: params.ops, mem: params.mem }));
  } catch (cause) {
    return err(vaultError('FICTA_VAULT_KDF_FAILED', 'argon2id failed', cause));
  } finally {
    wipe(passphrase);
  }
}

/** Runs one Argon2id derivation in a fresh worker thread and ends the thread. */
export async function argon2idInWorker(request: KdfRequest): Promise<Buffer> {
  const worker = startKdfWorker();
  try {
    const reply = await new Promise<KdfReply>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`kdf worker exited with code ${code}`)));
      // Copies: the worker wipes what it receives, the caller wipes its own.
      worker.postMessage({ passphrase: new Uint8Array(request.passphrase), salt: new Uint8Array(request.salt), ops: request.ops, mem: request.mem });
    });
    if (!reply.ok) throw new Error(reply.message);
    return Buffer.from(reply.key.buffer, reply.key.byteOffset, reply.key.byteLength);
  } finally {
    await worker.terminate();
  }
}

/**
 * Starts kdf-worker.ts (or its compiled file in a build). Node cannot load .ts in a worker by itself, and
 * hooks registered in the parent with tsx's `register()` do not reach workers on Node 20, so a tiny
 * bootstrap imports the worker through tsx's `tsImport`. This works the same under `node bin/ficta.js`,
 * `node --import tsx` and vitest; the compiled worker is imported as it is.
 */
function startKdfWorker(): Worker {
  const workerUrl = pathToFileURL(ownScriptPath('kdf-worker')).href;
  const tsxApi = COMPILED ? undefined : resolveTsxApi();
  const source = tsxApi === undefined
    ? `import(${JSON.stringify(workerUrl)});`
    : `import(${JSON.stringify(tsxApi)}).then((tsx) => tsx.tsImport(${JSON.stringify(workerUrl)}, ${JSON.stringify(workerUrl)}));`;
  return new Worker(source, { eval: true });
}

let tsxApiUrl: string | null | undefined;

function resolveTsxApi(): string | undefined {
  if (tsxApiUrl === undefined) {
    try {
      // The ESM entry: tsx's CommonJS entry cannot tsImport from an eval'd worker (measured: it fails to
      // resolve its own chunk).
      tsxApiUrl = import.meta.resolve('tsx/esm/api');
    } catch {
      tsxApiUrl = null; // without tsx the worker loads only where Node itself runs .ts files
    }
  }
  return tsxApiUrl ?? undefined;
}
