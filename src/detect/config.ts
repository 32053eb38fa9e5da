// Detection settings (the `detect` table of the main config): what a detected credential does, what is
// left alone, and how many detected values the process keeps for restoring.

import { z } from '../config/zod.ts';
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_ENTRIES } from './store.ts';

export const DetectConfigSchema = z
  .object({
    /** `redact`: placeholder, restored in responses; `block`: 403 naming the kind; `off`: no detection. */
    mode: z.enum(['redact', 'block', 'off']).default('redact'),
    /** Kind names (`stripe-test-key`) or exact values to leave alone. */
    allow: z.array(z.string().min(1)).default([]),
    /** Detected values kept for restoring (least recently used dropped first). */
    maxEntries: z.number().int().positive().default(DEFAULT_MAX_ENTRIES),
    /** Bytes of detected values kept for restoring. */
    maxBytes: z.number().int().positive().default(DEFAULT_MAX_BYTES),
  })
  .strict();

export type DetectConfig = z.infer<typeof DetectConfigSchema>;
