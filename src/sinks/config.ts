// Restore settings (the `restore` table of the main config) and the host lists they and `[secrets.hosts]`
// use: entries are validated and normalised once, at load, so a typo is an error naming its key.

import { z } from '../config/zod.ts';
import { parseHostPattern } from './hosts.ts';
import { TOOL_CALL_MODES } from './policy.ts';

/** One allow-list entry: a host name, `*.` + a host name (its subdomains), or an IP literal; stored normalised. */
export const HostPatternSchema = z.string().transform((entry, ctx) => {
  const parsed = parseHostPattern(entry);
  if (parsed.ok) return parsed.value;
  ctx.addIssue({ code: 'custom', message: parsed.error.message });
  return z.NEVER;
});

/** A list of allow-list entries. */
export const HostListSchema = z.array(HostPatternSchema);

/** The `restore` table. */
export const RestoreConfigSchema = z
  .object({
    toolCalls: z.enum(TOOL_CALL_MODES as ['guarded', 'all', 'never']).default('guarded').register(z.globalRegistry, { description: 'Placeholders in tool-call arguments: "guarded" withholds those a call would send over the network to a host not allowed; "all" restores every one; "never" none.' }),
    allowHosts: HostListSchema.default([]).register(z.globalRegistry, { description: 'Hosts every secret may be restored towards (`--allow-host`); `*.example.com` covers subdomains.' }),
  })
  .strict();

/** The validated `restore` table. */
export type RestoreConfig = z.infer<typeof RestoreConfigSchema>;
