// Detection settings (the `detect` table of the main config): what a detected credential does, what is
// left alone, and how many detected values the process keeps for restoring.

import { z } from '../config/zod.ts';
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_ENTRIES } from './store.ts';

export const DetectConfigSchema = z
  .object({
    mode: z.enum(['redact', 'block', 'off']).default('redact').register(z.globalRegistry, { description: '`redact`: placeholder, restored in responses; `block`: 403 naming the kind; `off`: no detection.' }),
    allow: z.array(z.string().min(1)).default([]).register(z.globalRegistry, { description: 'Kind names (`stripe-test-key`) or exact values to leave alone.' }),
    maxEntries: z.number().int().positive().default(DEFAULT_MAX_ENTRIES).register(z.globalRegistry, { description: 'Detected values kept for restoring (least recently used dropped first).' }),
    maxBytes: z.number().int().positive().default(DEFAULT_MAX_BYTES).register(z.globalRegistry, { description: 'Bytes of detected values kept for restoring.' }),
  })
  .strict();

export type DetectConfig = z.infer<typeof DetectConfigSchema>;
