// The start-up messages of zero-config discovery: one per source, with counts (and names for the
// environment), never values. One function, so the start-up messages can be restyled in one place.

import type { DiscoveredSource } from '../secrets/discover.ts';

/** How many variable names a line lists before it says "…". */
const MAX_NAMES = 6;

/** The messages for what discovery registered, one per source (none when it found nothing); printed as `ficta: …`. */
export function formatDiscoveryNotice(found: readonly DiscoveredSource[]): string[] {
  const lines = found.map((d) => {
    const what = `${d.count} secret${d.count === 1 ? '' : 's'}`;
    if (d.names.length === 0) return `discovered ${what} in ${d.where}`;
    const shown = d.names.slice(0, MAX_NAMES).join(', ');
    return `discovered ${what} in ${d.where} (${shown}${d.names.length > MAX_NAMES ? ', …' : ''})`;
  });
  if (lines.length > 0) lines[lines.length - 1] += '; --no-discover turns this off';
  return lines;
}
