// Durations in the configuration: strings such as "500ms", "5s", "2m", "1h", "7d" (a whole number and one
// unit), parsed to milliseconds.

import { z } from './zod.ts';

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

const DURATION = /^(\d+)(ms|s|m|h|d)$/;

/** Milliseconds for "5s", "7d", …; undefined when the text is not a duration. */
export function parseDuration(text: string): number | undefined {
  const m = DURATION.exec(text.trim());
  if (m === null) return undefined;
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}

/** The inverse for whole units: 5000 → "5s", 604800000 → "7d". */
export function formatDuration(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) if (ms >= UNIT_MS[unit] && ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  return `${ms}ms`;
}

/** A duration string in the config, parsed to milliseconds (give defaults with `.prefault("5s")`). */
export const DurationSchema = z.string().transform((text, ctx) => {
  const ms = parseDuration(text);
  if (ms === undefined) {
    ctx.addIssue({ code: 'custom', message: 'must be a duration such as "500ms", "5s", "2m", "1h" or "7d"' });
    return z.NEVER;
  }
  return ms;
});
