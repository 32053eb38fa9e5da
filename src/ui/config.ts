// Dashboard settings (the `ui` table of the main config): whether the proxy serves /_ficta/, and how many
// recent requests its ring keeps.

import { z } from '../config/zod.ts';

export const UiConfigSchema = z
  .object({
    /** Serve the dashboard at /_ficta/ (entry only by a one-time link from `ficta ui`). */
    enabled: z.boolean().default(true),
    /** Recent requests the Live page can show (a bounded ring in memory: names and counts, ~650 bytes each, measured). */
    requests: z.number().int().min(10).max(100_000).default(1000),
  })
  .strict();

export type UiConfig = z.infer<typeof UiConfigSchema>;
