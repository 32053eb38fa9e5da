// What Gemini CLI (@google/gemini-cli) needs to send its model traffic through ficta, and nothing around
// it. GOOGLE_GEMINI_BASE_URL points its model calls at the proxy; every other connection it opens goes
// through HTTPS_PROXY, which ficta points at itself, where it is refused.

import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { BaseUrls } from '../server/access.ts';

/**
 * Why a refusing proxy and not settings: Gemini CLI sends usage statistics (Clearcut, to
 * play.googleapis.com, on by default: `privacy.usageStatisticsEnabled`) and checks npm for updates
 * (`general.enableAutoUpdateNotification`), and only settings files switch those off. The one settings
 * file that would override the user's own, the system settings (GEMINI_CLI_SYSTEM_SETTINGS_PATH), is
 * skipped unless it and every directory above it are owned by root (gemini-cli 0.61
 * packages/cli/src/config/settings.ts, isFileAndDirectorySecureSync), so ficta cannot write one for a
 * user. Its HTTP clients do honour HTTPS_PROXY (packages/cli/src/config/config.ts reads it for `proxy`),
 * so with ficta as the proxy and loopback exempt, the model traffic reaches ficta directly and every
 * other connection — Clearcut, update checks, web fetches — gets ficta's 403. Verified with an egress
 * recorder (test/integration/agent-gemini.test.ts).
 */
export function geminiEnv(urls: BaseUrls): Record<string, string> {
  // scheme://host:port of the proxy (read as text: doctor shows it with a `<port>` placeholder).
  const proxy = urls.root.replace(/^(https?:\/\/[^/]+).*$/, '$1');
  const loopback = '127.0.0.1,localhost,::1';
  return {
    GOOGLE_GEMINI_BASE_URL: urls.gemini,
    // OpenTelemetry export is off by default; the environment could switch it on (resolveTelemetrySettings).
    GEMINI_TELEMETRY_ENABLED: 'false',
    HTTPS_PROXY: proxy,
    https_proxy: proxy,
    HTTP_PROXY: proxy,
    http_proxy: proxy,
    NO_PROXY: loopback,
    no_proxy: loopback,
  };
}

/**
 * The auth type in the user's Gemini CLI settings (GEMINI_CLI_HOME or ~/.gemini/settings.json), or
 * undefined. Without one, GOOGLE_GEMINI_BASE_URL selects the "gateway" type, which Gemini CLI 0.61 refuses
 * in headless runs ("Invalid auth method selected"; validateAuthMethod in packages/cli/src/config/auth.ts).
 */
export function geminiSelectedAuth(env: NodeJS.ProcessEnv): string | undefined {
  const home = env.GEMINI_CLI_HOME !== undefined && env.GEMINI_CLI_HOME !== '' ? env.GEMINI_CLI_HOME : (env.HOME ?? homedir());
  try {
    // Gemini CLI settings may hold comments; a file ficta cannot read as JSON reads as "not set".
    const settings = JSON.parse(readFileSync(join(home, '.gemini', 'settings.json'), 'utf8')) as { security?: { auth?: { selectedType?: unknown } } };
    const t = settings.security?.auth?.selectedType;
    return typeof t === 'string' ? t : undefined;
  } catch {
    return undefined;
  }
}
