// The PII kinds `detect.pii` turns on, built for the config's allow list.

import type { Kind } from '../kind.ts';
import { PAYMENT_CARD } from './card.ts';
import { emailKind } from './email.ts';
import { IBAN } from './iban.ts';
import type { PiiKind } from './names.ts';

/** The kinds named, in the order given (duplicates once). */
export function piiKinds(names: readonly PiiKind[], allow: readonly string[]): Kind[] {
  return [...new Set(names)].map((n) => (n === 'payment-card' ? PAYMENT_CARD : n === 'iban' ? IBAN : emailKind(allow)));
}
