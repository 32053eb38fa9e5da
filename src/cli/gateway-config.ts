// Loading the configuration for `ficta gateway` and its subcommands: --config or FICTA_CONFIG (else
// FICTA_HOME/config.toml), the gateway's own defaults under the file (public listener on 0.0.0.0:8787, no
// vault, no discovery: a server's secrets are its [[sources]]), flags over both.

import { loadConfig } from '../config/load.ts';
import type { Config } from '../config/schema.ts';
import { gatewayConfigOf, type GatewayConfig } from '../gateway/config.ts';

/** The defaults a gateway starts from (under the config file). */
export const GATEWAY_DEFAULTS = { host: '0.0.0.0', port: 8787, secrets: { vault: 'off', discover: false } } as const;

/** The config file a gateway command reads: --config, else FICTA_CONFIG, else FICTA_HOME/config.toml. */
export function gatewayConfigFile(flag: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (flag !== undefined) return flag;
  const fromEnv = env.FICTA_CONFIG;
  return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv;
}

/** Loads and validates the config and its `[gateway]` table; throws the config error (it names the key). */
export function loadGatewayConfig(options: { configFile: string | undefined; env: NodeJS.ProcessEnv; flags?: Record<string, unknown> }): { config: Config; gateway: GatewayConfig } {
  const loaded = loadConfig({
    defaults: structuredClone(GATEWAY_DEFAULTS) as unknown as Record<string, unknown>,
    env: options.env,
    ...(options.configFile === undefined ? {} : { configFile: options.configFile }),
    ...(options.flags === undefined ? {} : { flags: options.flags }),
  });
  if (!loaded.ok) throw loaded.error;
  return { config: loaded.value, gateway: gatewayConfigOf(loaded.value, options.configFile) };
}
