// Builds a SecretSet for unit tests with a fixed placeholder key.

import { buildSecretSet, type SecretSet } from '../../src/redact/secret-set.ts';

export const TEST_KEY = Buffer.alloc(32, 7);

/** A compiled set from NAME → value. */
export function testSet(secrets: Record<string, string>, key: Buffer = TEST_KEY): SecretSet {
  return buildSecretSet(
    Object.entries(secrets).map(([name, value]) => ({ name, value })),
    key,
  );
}

/** The placeholder of a value in a set. */
export function ph(set: SecretSet, value: string): string {
  const i = set.values.indexOf(value);
  if (i === -1) throw new Error('not in set');
  return set.placeholders[i] as string;
}
