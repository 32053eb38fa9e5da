// `ficta gateway check`: loads everything a gateway instance would — the config, the key file, the token
// file and every source — without serving, and names each problem (exit 1) or says "ok" with counts
// (exit 0). Like `nginx -t`.

import { readGatewayKey } from '../gateway/key.ts';
import { readTokenFile } from '../gateway/token-file.ts';
import { createFicta } from '../index.ts';
import { createLogger } from '../log/logger.ts';
import { EXIT_ERROR, EXIT_OK } from './exit-codes.ts';
import { gatewayConfigFile, loadGatewayConfig } from './gateway-config.ts';
import type { CliIo } from './io.ts';

type Values = Record<string, string | boolean | string[] | undefined>;

export async function runCheck(values: Values, io: CliIo): Promise<number> {
  const configFile = gatewayConfigFile(typeof values.config === 'string' ? values.config : undefined, io.env);
  const problems: string[] = [];
  // A config that does not parse is the one problem there is: nothing else can be checked without it.
  const { config, gateway } = loadGatewayConfig({ configFile, env: io.env });
  let key: Uint8Array | undefined;
  try {
    key = readGatewayKey(gateway.keyFile);
  } catch (error) {
    problems.push((error as Error).message);
  }
  const tokens = readTokenFile(gateway.tokensFile);
  if (!tokens.ok) problems.push(tokens.error.message);
  const active = tokens.ok ? tokens.value.tokens.filter((t) => t.revoked === undefined).length : 0;
  let sources: Array<{ name: string; type: string; values: number; lastResult: string; error?: string | undefined }> = [];
  try {
    // The engine loads every source as a gateway would; nothing listens.
    const ficta = await createFicta({
      config: { ...config, port: 0 },
      env: io.env,
      logger: createLogger({ level: 'silent' }),
      tenancy: { key: key ?? new Uint8Array(32), authenticate: () => ({ ok: false, status: 503, type: 'ficta_not_ready', message: 'ficta: check only' }) },
    });
    try {
      sources = ficta.sources();
    } finally {
      await ficta.close();
    }
  } catch (error) {
    problems.push((error as Error).message);
  }
  for (const s of sources) if (s.lastResult !== 'ok') problems.push(`gateway: source ${s.name} (${s.type}) did not load: ${s.error ?? 'error'}`);
  const where = configFile ?? 'the config';
  if (values.json === true) {
    io.stdout.write(`${JSON.stringify({ ok: problems.length === 0, config: where, tenants: active, sources: sources.map((s) => ({ name: s.name, type: s.type, values: s.values, ok: s.lastResult === 'ok' })), problems })}\n`);
  } else if (problems.length > 0) {
    for (const p of problems) io.stderr.write(`ficta: ${p}\n`);
  } else {
    const values = sources.reduce((n, s) => n + s.values, 0);
    io.stdout.write(`gateway: ${where} ok: ${active} tenant(s), ${sources.length} source(s) with ${values} value(s)\n`);
  }
  return problems.length === 0 ? EXIT_OK : EXIT_ERROR;
}
