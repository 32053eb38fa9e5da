// What Gemini CLI (@google/gemini-cli) needs to send its model traffic through ficta, and to send nothing
// around it. GOOGLE_GEMINI_BASE_URL points its model calls at the proxy (it then uses its "gateway" auth
// type with the user's own GEMINI_API_KEY); a system settings file switches off its side traffic.

import { readFileSync } from 'node:fs';
import { platform } from 'node:os';
import { join } from 'node:path';
import { FictaError } from '../errors.ts';
import type { BaseUrls } from '../server/access.ts';

/**
 * Settings that stop Gemini CLI traffic which bypasses the base URL (gemini-cli
 * packages/cli/src/config/settingsSchema.ts): usage statistics (Clearcut logging to
 * play.googleapis.com, on by default), OpenTelemetry export, and the update check and auto-update
 * (npm registry). System settings override user and workspace settings, so the user cannot turn them
 * back on by accident in ~/.gemini/settings.json.
 */
export const GEMINI_QUIET_SETTINGS = {
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
} as const;

/** Where Gemini CLI reads system settings (getSystemSettingsPath in gemini-cli packages/cli/src/config/settings.ts). */
export function geminiSystemSettingsPath(env: NodeJS.ProcessEnv): string {
  const set = env.GEMINI_CLI_SYSTEM_SETTINGS_PATH;
  if (set !== undefined && set !== '') return set;
  if (platform() === 'darwin') return '/Library/Application Support/GeminiCli/settings.json';
  if (platform() === 'win32') return 'C:\\ProgramData\\gemini-cli\\settings.json';
  return '/etc/gemini-cli/settings.json';
}

/**
 * The system settings ficta gives Gemini CLI: the existing system settings (an administrator's), if any,
 * with the side-traffic switches forced off. A system settings file ficta cannot read as JSON stops the
 * run rather than silently dropping what an administrator set there.
 */
export function geminiSystemSettings(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const path = geminiSystemSettingsPath(env);
  let base: Record<string, unknown> = {};
  let text: string | undefined;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    text = undefined;
  }
  if (text !== undefined && text.trim() !== '') {
    try {
      const parsed = JSON.parse(text) as unknown;
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
      base = parsed as Record<string, unknown>;
    } catch (cause) {
      throw new FictaError('FICTA_AGENT_CONFIG', `gemini: cannot read the Gemini CLI system settings ${path} as JSON; ficta must extend them to switch off usage statistics`, { cause });
    }
  }
  const out: Record<string, unknown> = { ...base };
  for (const [section, values] of Object.entries(GEMINI_QUIET_SETTINGS)) {
    const prior = out[section];
    out[section] = { ...(typeof prior === 'object' && prior !== null ? (prior as Record<string, unknown>) : {}), ...values };
  }
  return out;
}

/** The environment and files for Gemini CLI behind a proxy with these base URLs. */
export function geminiSetup(urls: BaseUrls, env: NodeJS.ProcessEnv, home: string): { env: Record<string, string>; files: Array<{ path: string; text: string }> } {
  const settingsFile = join(home, 'gemini', 'system-settings.json');
  return {
    env: {
      GOOGLE_GEMINI_BASE_URL: urls.gemini,
      GEMINI_CLI_SYSTEM_SETTINGS_PATH: settingsFile,
      // Telemetry can also be switched on by environment (resolveTelemetrySettings): keep it off.
      GEMINI_TELEMETRY_ENABLED: 'false',
    },
    files: [{ path: settingsFile, text: `${JSON.stringify(geminiSystemSettings(env), null, 2)}\n` }],
  };
}
