// Any other endpoint under a provider prefix: no streamed fields are known, so whole placeholders are
// restored in each event or body on their own.

import type { StreamAdapter } from './types.ts';

export const generic: StreamAdapter = {
  id: 'generic',
  deltas: () => [],
  ends: () => undefined,
  streams: false,
};
