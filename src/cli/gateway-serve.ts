// `ficta gateway [--config F]`: runs one gateway instance until SIGTERM (drain, exit 0). SIGHUP reloads
// the token file and every source. Logs are JSON: request lines (the audit trail) on stdout, the rest on
// stderr; the `gateway_listening` line names both listeners.

import { rmSync } from 'node:fs';
import { startGateway } from '../gateway/gateway.ts';
import { logEvent } from '../log/logger.ts';
import { writeAtomic } from '../util/atomic-file.ts';
import type { OptionValues } from './args.ts';
import { EXIT_OK } from './exit-codes.ts';
import { gatewayConfigFile, loadGatewayConfig } from './gateway-config.ts';
import type { GATEWAY_OPTIONS } from './gateway-spec.ts';
import type { CliIo } from './io.ts';
import { intFlag, proxyFlags } from './proxy-options.ts';

/** Runs the gateway; resolves with the exit code once it has drained. */
export async function serveGateway(values: OptionValues<typeof GATEWAY_OPTIONS>, io: CliIo): Promise<number> {
  const { flags } = proxyFlags(values, 'gateway');
  const gatewayFlags: Record<string, unknown> = {};
  if (values['admin-host'] !== undefined) gatewayFlags.adminHost = values['admin-host'];
  if (values['admin-port'] !== undefined) gatewayFlags.adminPort = intFlag('gateway', '--admin-port', values['admin-port']);
  if (Object.keys(gatewayFlags).length > 0) flags.gateway = gatewayFlags;
  const configFile = gatewayConfigFile(values.config, io.env);
  const { config } = loadGatewayConfig({ configFile, env: io.env, flags });
  const gateway = await startGateway({ config, env: io.env, configFile, reloadConfig: () => loadGatewayConfig({ configFile, env: io.env, flags }).config });
  const readyFile = values['ready-file'];
  if (readyFile !== undefined) writeAtomic(readyFile, `FICTA_LISTEN=${gateway.url}\nFICTA_ADMIN=${gateway.adminUrl}\n`);

  // SIGTERM (Kubernetes, systemd, HAProxy's orchestration): the whole drain. SIGINT (a person): the same
  // without the delay, since no load balancer is waiting to notice.
  const stopped = new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      process.off('SIGTERM', onTerm);
      process.off('SIGINT', onInt);
      // A second signal while draining changes nothing: the drain already bounds how long it takes.
      process.on('SIGTERM', () => {});
      process.on('SIGINT', () => {});
      void gateway.drain(signal === 'SIGINT' ? { delayMs: 0 } : {}).then(resolve);
    };
    const onTerm = (): void => onSignal('SIGTERM');
    const onInt = (): void => onSignal('SIGINT');
    process.on('SIGTERM', onTerm);
    process.on('SIGINT', onInt);
  });
  const onHup = (): void => {
    logEvent(gateway.logger, 'info', 'gateway_reload', { signal: 'SIGHUP' });
    void gateway.reload();
  };
  process.on('SIGHUP', onHup);
  await stopped;
  process.off('SIGHUP', onHup);
  if (readyFile !== undefined) rmSync(readyFile, { force: true });
  gateway.logger.flush();
  return EXIT_OK;
}
