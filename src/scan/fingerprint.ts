// Short keyed fingerprints of found credentials: the same value gives the same fingerprint in every scan
// on this machine (so findings can be compared and deduplicated) without the value being printable or
// guessable from it: HMAC-SHA256 under FICTA_HOME/scan.key, first 12 hex characters.

import { createHmac } from 'node:crypto';
import { readOrCreateKeyFile } from '../secrets/placeholder-key-file.ts';
import type { Result } from '../util/result.ts';

export const SCAN_KEY_FILE = 'scan.key';
const DOMAIN = 'ficta/scan-fingerprint/v1\0';
const LENGTH = 12;

/** A fingerprinting function under this machine's scan key (created on first use). */
export function createFingerprinter(home: string): Result<(value: string) => string> {
  const key = readOrCreateKeyFile(home, SCAN_KEY_FILE);
  if (!key.ok) return key;
  const k = key.value;
  return { ok: true, value: (value) => createHmac('sha256', k).update(DOMAIN).update(value, 'utf8').digest('hex').slice(0, LENGTH) };
}
