// The start-up lines of zero-config discovery: one per source, with counts (and names for the
// environment), never values. One function, so the start-up messages can be restyled in one place.

import type { DiscoveredSource } from '../secrets/discover.ts';

/** How many variable names a line lists before it says "…". */
const MAX_NAMES = 6;

/** The lines to print for what discovery registered (none when it found nothing). */
export function formatDiscoveryNotice(found: readonly DiscoveredSource[]): string[] {
  const lines = found.map((d) => {
    const what = `${d.count} secret${d.count === 1 ? '' : 's'}`;
    if (d.names.length === 0) return `ficta: discovered ${what} in ${d.where}`;
    const shown = d.names.slice(0, MAX_NAMES).join(', ');
    return `ficta: discovered ${what} in ${d.where} (${shown}${d.names.length > MAX_NAMES ? ', …' : ''})`;
  });
  if (lines.length > 0) lines[lines.length - 1] += '; --no-discover turns this off';
  return lines;
}
