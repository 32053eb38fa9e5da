// The `[gateway]` table of the configuration: the shared key, the token file, the admin listener, the
// drain timings, the per-tenant limit and what metrics may name (issue 21, DESIGN §11).

import { DurationSchema } from '../config/duration.ts';
import { FictaError } from '../errors.ts';
import { z } from '../config/zod.ts';

/** Admin listener port (readiness, metrics): the one Kubernetes probes and Prometheus scrape. */
export const DEFAULT_ADMIN_PORT = 9787;

export const GatewayConfigSchema = z
  .object({
    /** The 32-byte gateway key (64 hex characters) every instance shares; `ficta gateway init DIR` writes one. */
    keyFile: z.string().min(1),
    /** The token file (JSON, hashes only), written by `ficta gateway token add|revoke`. */
    tokensFile: z.string().min(1),
    /** Where instances record when each tenant last made a request (for `token list`); not recorded when unset. */
    lastUsedFile: z.string().min(1).optional(),
    /** The admin listener: /healthz, /readyz, /metrics and nothing else. */
    adminHost: z.string().min(1).default('127.0.0.1'),
    adminPort: z.number().int().min(0).max(65535).default(DEFAULT_ADMIN_PORT),
    /** After SIGTERM: how long the instance keeps accepting while /readyz says 503 (so the load balancer sees it). */
    drainDelay: DurationSchema.prefault('5s'),
    /** Then: how long requests in flight (streams) may take to finish before they are ended. */
    drainTimeout: DurationSchema.prefault('60s'),
    /** Requests one tenant may have in flight on one instance; more are answered 429 with retry-after. */
    maxConcurrent: z.number().int().positive().default(32),
    /** How long a value removed from or replaced in a source stays protected (agents' contexts still hold it). */
    retain: DurationSchema.prefault('7d'),
    /** How often the token file is checked for changes (a revoked token stops working within this). */
    tokensPoll: DurationSchema.prefault('2s'),
    metrics: z
      .object({
        /** Put tenant names in metric labels (groups always are); off by default: a label per person is a cardinality cost. */
        tenantLabels: z.boolean().default(false),
      })
      .strict()
      .prefault({}),
  })
  .strict();

export type GatewayConfig = z.infer<typeof GatewayConfigSchema>;

/** The `[gateway]` table, or an error saying the config needs one. */
export function gatewayConfigOf(config: { gateway?: GatewayConfig | undefined }, configFile: string | undefined): GatewayConfig {
  if (config.gateway === undefined) {
    throw new FictaError('FICTA_CONFIG_INVALID', `gateway: ${configFile ?? 'the config'} has no [gateway] table (keyFile, tokensFile, …); ficta gateway init DIR writes a starter config`);
  }
  return config.gateway;
}
