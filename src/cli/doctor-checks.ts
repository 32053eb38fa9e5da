// The checks of `ficta doctor` other than the vault's, the agents' and detection's: FICTA_HOME and key
// modes, secrets (and whether anything would be protected at all), upstreams and the port (recognising one held by your
// own running ficta). Each check is a level, an area and a message; never a value.

import { statSync } from 'node:fs';
import { lookup } from 'node:dns/promises';
import { createServer } from 'node:net';
import type { Config } from '../config/schema.ts';
import { BUILT_IN_UPSTREAMS } from '../providers/upstreams.ts';
import { createEnvFileSource } from '../secrets/env-sources.ts';
import { placeholderKeyPath } from '../secrets/placeholder-key-file.ts';
import { filterEntries } from '../secrets/registry.ts';
import { listInstances } from './instances.ts';

export type CheckLevel = 'ok' | 'warn' | 'fail';
export interface Check {
  level: CheckLevel;
  area: string;
  message: string;
}

/** Records one check. */
export type AddCheck = (level: CheckLevel, area: string, message: string) => void;

/** FICTA_HOME and the placeholder key: present, and private. */
export function checkHome(home: string, add: AddCheck): void {
  try {
    const mode = statSync(home).mode & 0o777;
    if ((mode & 0o077) !== 0) add('warn', 'home', `${home} is mode ${mode.toString(8)}; expected 700 (ficta tightens it on next write)`);
    else add('ok', 'home', `${home} (mode 700)`);
  } catch {
    add('ok', 'home', `${home} does not exist yet; it is created (mode 700) on first use`);
  }
  try {
    const mode = statSync(placeholderKeyPath(home)).mode & 0o777;
    add(mode === 0o600 ? 'ok' : 'warn', 'keys', `placeholder key present (mode ${mode.toString(8)})`);
  } catch {
    add('ok', 'keys', 'no placeholder key file (created on first start, or held by the vault)');
  }
}

/** Env files and --secret-env names; returns how many secrets they give. */
export async function checkSecrets(config: Config, env: NodeJS.ProcessEnv, add: AddCheck): Promise<number> {
  let total = 0;
  for (const path of config.secrets.envFiles) {
    const r = await createEnvFileSource(path).load();
    if (!r.ok) {
      add('fail', 'secrets', r.error.message);
      continue;
    }
    const { kept, skipped } = filterEntries(r.value);
    total += kept.length;
    add('ok', 'secrets', `${path}: ${kept.length} secret(s)`);
    if (skipped.length > 0) add('warn', 'secrets', `${path}: refused (too short or empty): ${skipped.map((s) => s.name).join(', ')}`);
  }
  for (const name of config.secrets.env) {
    const value = env[name];
    if (value === undefined) add(config.secrets.allowMissing ? 'warn' : 'fail', 'secrets', `--secret-env ${name}: not set in the environment${config.secrets.allowMissing ? ' (skipped: --allow-missing)' : '; serve would refuse to start'}`);
    else if (filterEntries([{ name, value, source: 'env' }]).kept.length === 0) add('warn', 'secrets', `--secret-env ${name}: refused (too short or empty)`);
    else {
      total++;
      add('ok', 'secrets', `--secret-env ${name}: set`);
    }
  }
  return total;
}

/**
 * Whether anything would be protected: a fail when no source gives a single secret and detection is off,
 * a warning when detection alone would (serve warns the same way).
 */
export function checkProtected(total: number, detecting: boolean, add: AddCheck): void {
  if (total > 0) add('ok', 'secrets', `${total} secret(s) would be protected`);
  else if (detecting) add('warn', 'secrets', 'no secret registered: only credentials that detection recognises would be redacted (ficta vault import .env, or --env-file .env)');
  else add('fail', 'secrets', 'nothing would be protected: no secret from --env-file, --secret-env, the vault or discovery, and detection is off (ficta vault import .env, or --env-file .env)');
}

/**
 * Each upstream, built-in and named, resolves (DNS); with `online`, answers an unauthenticated request.
 * A built-in default the user never chose that does not resolve is a warning, not a failure.
 */
export async function checkUpstreams(config: Config, online: boolean, add: AddCheck): Promise<void> {
  for (const [name, value] of Object.entries(config.upstreams)) {
    const url = typeof value === 'string' ? value : value.url;
    const host = new URL(url).hostname;
    try {
      await lookup(host);
      add('ok', 'upstream', `${name}: ${url} resolves`);
    } catch (e) {
      // A default the user never chose (say, Gemini for someone who only uses Claude) is worth a warning, not a failure.
      const chosen = (BUILT_IN_UPSTREAMS as Record<string, string>)[name] !== url;
      const code = (e as NodeJS.ErrnoException).code ?? 'error';
      if (chosen) add('fail', 'upstream', `${name}: ${url} does not resolve (${code})`);
      else add('warn', 'upstream', `${name}: ${url} (default) does not resolve (${code}); requests on /${name}/ will fail`);
      continue;
    }
    if (!online) continue;
    try {
      const res = await fetch(new URL('/v1/models', url), { signal: AbortSignal.timeout(5000) });
      await res.body?.cancel();
      add('ok', 'upstream', `${name}: reachable (HTTP ${res.status} without credentials)`);
    } catch (e) {
      add('fail', 'upstream', `${name}: not reachable (${(e as Error).name})`);
    }
  }
}

/** The port is free, or held by one of your own running ficta proxies (then a warning, naming it). */
export async function checkPort(config: Config, add: AddCheck): Promise<void> {
  if (config.port === 0) {
    add('ok', 'port', 'port 0: a free port is picked at start');
    return;
  }
  const free = await new Promise<boolean>((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(config.port, config.host, () => s.close(() => resolve(true)));
  });
  if (free) {
    add('ok', 'port', `${config.host}:${config.port} is free`);
    return;
  }
  const mine = listInstances(config.home).find((i) => i.port === config.port);
  if (mine !== undefined) {
    add('warn', 'port', `${config.host}:${config.port} is held by your running ficta (pid ${mine.pid}, ${mine.mode}); stop it first, or use another --port`);
  } else add('fail', 'port', `${config.host}:${config.port} is in use by another program`);
}
