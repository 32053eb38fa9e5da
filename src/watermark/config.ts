// Watermark settings (the `watermark` table of the main config): what is marked, from what size, and
// how long the registry keeps what it learnt.

import { z } from '../config/zod.ts';
import { FictaError } from '../errors.ts';
import { err, ok, type Result } from '../util/result.ts';

/** Documents below this many UTF-8 bytes are neither marked nor fingerprinted (issue 6). */
export const DEFAULT_THRESHOLD_BYTES = 2048;
/** Registry rows older than this are purged (issue 6). */
export const DEFAULT_RETENTION_DAYS = 90;

export const WatermarkConfigSchema = z
  .object({
    enabled: z.boolean().default(true).register(z.globalRegistry, { description: 'Off: request bodies pass untouched and nothing is registered. Stripping responses stays on.' }),
    inBand: z.boolean().default(true).register(z.globalRegistry, { description: 'Embed in-band frames; off leaves fingerprints only (zero tokens).' }),
    thresholdBytes: z.number().int().positive().default(DEFAULT_THRESHOLD_BYTES).register(z.globalRegistry, { description: 'Documents below this many UTF-8 bytes are neither marked nor fingerprinted.' }),
    retentionDays: z.number().int().positive().default(DEFAULT_RETENTION_DAYS).register(z.globalRegistry, { description: 'Registry rows older than this many days are purged (`ficta attribute --purge`).' }),
    surfaces: z
      .object({
        documents: z.boolean().default(true).register(z.globalRegistry, { description: 'Anthropic `document` blocks with text sources; OpenAI file inputs with a text data URL and text parts wrapped in `<document>…</document>`.' }),
        toolResults: z.boolean().default(false).register(z.globalRegistry, { description: 'Anthropic `tool_result`, OpenAI `role: "tool"` messages and `*_call_output` items.' }),
        promptText: z.boolean().default(false).register(z.globalRegistry, { description: 'Plain user prompt text.' }),
      })
      .strict()
      .prefault({})
      .register(z.globalRegistry, { description: 'What is marked and fingerprinted.' }),
  })
  .strict();

export type WatermarkConfig = z.infer<typeof WatermarkConfigSchema>;
export type WatermarkConfigInput = z.input<typeof WatermarkConfigSchema>;

/** Validates a `watermark` config table, filling in defaults. */
export function parseWatermarkConfig(input: unknown): Result<WatermarkConfig> {
  const parsed = WatermarkConfigSchema.safeParse(input ?? {});
  if (parsed.success) return ok(parsed.data);
  const issue = parsed.error.issues[0];
  const path = ['watermark', ...(issue?.path ?? [])].join('.');
  return err(new FictaError('FICTA_CONFIG_INVALID', `config: ${path}: ${issue?.message ?? 'invalid'}`));
}
