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

/** The user's Gemini CLI settings file (GEMINI_CLI_HOME, else HOME: `.gemini/settings.json`). */
export function geminiUserSettingsPath(env: NodeJS.ProcessEnv): string {
  const home = env.GEMINI_CLI_HOME !== undefined && env.GEMINI_CLI_HOME !== '' ? env.GEMINI_CLI_HOME : (env.HOME ?? homedir());
  return join(home, '.gemini', 'settings.json');
}

/** `security.auth.selectedType` of one settings file, or undefined (a file that does not parse counts as unset). */
function selectedTypeIn(path: string): string | undefined {
  try {
    // Gemini CLI settings may hold comments (it reads them with strip-json-comments).
    const settings = JSON.parse(stripJsonComments(readFileSync(path, 'utf8'))) as { security?: { auth?: { selectedType?: unknown } } };
    const t = settings.security?.auth?.selectedType;
    return typeof t === 'string' ? t : undefined;
  } catch {
    return undefined;
  }
}

/** JSON text without `//` and `/* … *\/` comments outside strings. */
function stripJsonComments(text: string): string {
  return text.replace(/("(?:[^"\\]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (_m, str: string | undefined) => str ?? '');
}

/**
 * The auth type in the user's Gemini CLI settings (GEMINI_CLI_HOME or ~/.gemini/settings.json), or
 * undefined. Without one, GOOGLE_GEMINI_BASE_URL selects the "gateway" type, which Gemini CLI 0.61 refuses
 * in headless runs ("Invalid auth method selected"; validateAuthMethod in packages/cli/src/config/auth.ts).
 */
export function geminiSelectedAuth(env: NodeJS.ProcessEnv): string | undefined {
  return selectedTypeIn(geminiUserSettingsPath(env));
}

/**
 * One line for `ficta gemini` when a headless run will be refused for want of an auth type, else undefined.
 * Gemini CLI 0.61 takes its auth type from its settings (system, workspace `.gemini/settings.json`, user),
 * else from the environment in this order (getAuthTypeFromEnv, packages/core/src/core/contentGenerator.ts):
 * GOOGLE_GENAI_USE_GCA, GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GEMINI_BASE_URL → "gateway", GEMINI_API_KEY →
 * "gemini-api-key". ficta must set GOOGLE_GEMINI_BASE_URL, so with only GEMINI_API_KEY the type is
 * "gateway", which headless runs refuse (exit 41). No environment variable selects "gemini-api-key" ahead
 * of the base URL, and the only settings file an environment variable can add (system settings or
 * defaults) is skipped unless root owns it and every directory above it — so ficta says what to set
 * rather than write to the user's settings.
 */
export function geminiAuthHint(env: NodeJS.ProcessEnv, cwd: string, args: readonly string[], stdinIsTty: boolean): string | undefined {
  const headless = !stdinIsTty || args.some((a) => a === '-p' || a === '--prompt' || a.startsWith('--prompt='));
  if (!headless || env.GOOGLE_GENAI_USE_GCA === 'true' || env.GOOGLE_GENAI_USE_VERTEXAI === 'true') return undefined;
  const user = geminiUserSettingsPath(env);
  const system = env.GEMINI_CLI_SYSTEM_SETTINGS_PATH !== undefined && env.GEMINI_CLI_SYSTEM_SETTINGS_PATH !== '' ? env.GEMINI_CLI_SYSTEM_SETTINGS_PATH : '/etc/gemini-cli/settings.json';
  if ([system, join(cwd, '.gemini', 'settings.json'), user].some((p) => selectedTypeIn(p) !== undefined)) return undefined;
  return `Gemini CLI has no auth type in ${user}, so GOOGLE_GEMINI_BASE_URL makes it pick "gateway", which it refuses in a headless run (exit 41): set "security": {"auth": {"selectedType": "gemini-api-key"}} there (or run gemini once and choose "Use Gemini API key")`;
}
