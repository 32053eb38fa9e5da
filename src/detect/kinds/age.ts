// age secret keys: `AGE-SECRET-KEY-1` + 58 upper-case Bech32 characters, the last 6 a checksum.

import { isBech32 } from '../checksum.ts';
import { boundaryAfter, boundaryBefore, charset, runEnd } from '../charset.ts';
import type { Confirm } from '../kind.ts';

const BECH32_UPPER = charset('QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L');
const DATA_LENGTH = 58;

/** Confirms an age secret key at its anchor by its Bech32 checksum. */
export const checksumBech32Age: Confirm = (buf, anchorStart, anchorEnd, emit) => {
  const end = runEnd(buf, anchorEnd, BECH32_UPPER, DATA_LENGTH);
  if (end - anchorEnd !== DATA_LENGTH || !boundaryBefore(buf, anchorStart, BECH32_UPPER) || !boundaryAfter(buf, end, BECH32_UPPER)) return;
  if (!isBech32(buf, anchorStart, end, 'age-secret-key-')) return;
  emit(anchorStart, end);
};
