// The `[[sources]]` array of the configuration: the organisation's secret sources, each with the groups
// whose tenants may have its values restored (issue 21 §3). Usable by `serve`, `run` and the agent commands too.

import { DurationSchema } from '../config/duration.ts';
import { z } from '../config/zod.ts';

/** How long a value removed from or replaced in a source stays protected by default (agents' contexts still hold it). */
export const DEFAULT_RETAIN = '7d';

const common = {
  /** Names the source in logs, metrics and `sources()`: letters, digits, `_ . -`. */
  name: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, { message: 'must be 1 to 64 characters of A-Z a-z 0-9 _ . -' }),
  /** Groups whose tenants may have its values restored; `*` is every tenant. Every tenant is redacted and gated against it anyway. */
  groups: z.array(z.string().regex(/^[A-Za-z0-9_.*-]{1,64}$/, { message: 'must be 1 to 64 characters of A-Z a-z 0-9 _ . - (or "*")' })).min(1),
  /** How long a removed or replaced value stays protected (default: `[gateway] retain`, else 7d). */
  retain: DurationSchema.optional(),
};

const DotenvSource = z.object({ ...common, type: z.literal('dotenv'), path: z.string().min(1), refresh: DurationSchema.optional() }).strict();
const DirSource = z.object({ ...common, type: z.literal('dir'), path: z.string().min(1), refresh: DurationSchema.prefault('30s') }).strict();
const EnvSource = z.object({ ...common, type: z.literal('env'), prefix: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: 'must be an environment variable name prefix' }) }).strict();
const CommandSource = z
  .object({
    ...common,
    type: z.literal('command'),
    /** The program and its arguments, run without a shell; stdout is dotenv or a flat JSON object of strings; stderr is never read. */
    command: z.array(z.string().min(1)).min(1),
    refresh: DurationSchema.optional(),
    timeout: DurationSchema.prefault('30s'),
  })
  .strict();

export const SourceConfigSchema = z.discriminatedUnion('type', [DotenvSource, DirSource, EnvSource, CommandSource]);

export const SourcesConfigSchema = z.array(SourceConfigSchema).superRefine((sources, ctx) => {
  const seen = new Set<string>();
  sources.forEach((s, i) => {
    if (seen.has(s.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `another source is already named ${s.name}` });
    seen.add(s.name);
  });
});

export type SourceConfig = z.infer<typeof SourceConfigSchema>;
