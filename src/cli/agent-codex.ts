// What Codex needs to send its model traffic through ficta. Codex ignores OPENAI_BASE_URL, so ficta adds a
// model provider with `-c` overrides; which one depends on how the user signed in (CODEX_HOME/auth.json):
// an API key goes to /openai/v1, a ChatGPT login to the ChatGPT backend under /chatgpt.

import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { BaseUrls } from '../server/access.ts';

/** The provider name ficta registers in Codex. */
export const CODEX_PROVIDER = 'ficta';

/** How Codex is signed in: `api-key` (OPENAI_API_KEY, or a key stored by `codex login --with-api-key`) or `chatgpt`. */
export interface CodexLogin {
  mode: 'api-key' | 'chatgpt';
  /** The auth.json that was read (it may not exist). */
  authFile: string;
  /** Why this mode was chosen, for `ficta doctor codex` (never a value). */
  reason: string;
}

/**
 * Reads CODEX_HOME/auth.json (default ~/.codex). Codex stores a ChatGPT login there as `tokens` (id, access
 * and refresh token, account id) with `OPENAI_API_KEY` null, and an API-key login as `OPENAI_API_KEY`
 * (openai/codex codex-rs/login/src/auth/storage.rs, `AuthDotJson`; newer versions add `auth_mode`).
 */
export function detectCodexLogin(env: NodeJS.ProcessEnv): CodexLogin {
  const home = env.CODEX_HOME !== undefined && env.CODEX_HOME !== '' ? env.CODEX_HOME : join(env.HOME ?? homedir(), '.codex');
  const authFile = join(home, 'auth.json');
  let auth: Record<string, unknown>;
  try {
    const parsed = JSON.parse(readFileSync(authFile, 'utf8')) as unknown;
    if (typeof parsed !== 'object' || parsed === null) return { mode: 'api-key', authFile, reason: 'auth.json is not an object; using the API key from OPENAI_API_KEY' };
    auth = parsed as Record<string, unknown>;
  } catch {
    return { mode: 'api-key', authFile, reason: 'no readable auth.json; using the API key from OPENAI_API_KEY' };
  }
  const key = auth.OPENAI_API_KEY;
  const tokens = auth.tokens as Record<string, unknown> | null | undefined;
  const hasTokens = typeof tokens === 'object' && tokens !== null && typeof tokens.access_token === 'string' && tokens.access_token !== '';
  const mode = typeof auth.auth_mode === 'string' ? auth.auth_mode.toLowerCase() : undefined;
  if (hasTokens && (typeof key !== 'string' || key === '') && mode !== 'apikey' && mode !== 'api_key') {
    return { mode: 'chatgpt', authFile, reason: 'auth.json holds a ChatGPT login (tokens, no API key)' };
  }
  return { mode: 'api-key', authFile, reason: typeof key === 'string' && key !== '' ? 'auth.json holds an API key; using OPENAI_API_KEY' : 'auth.json holds no ChatGPT tokens; using OPENAI_API_KEY' };
}

/** Command-line overrides (`-c key=value`, values in TOML) that route Codex through ficta. */
export function codexOverrides(urls: BaseUrls, login: Pick<CodexLogin, 'mode'>, envKey = 'OPENAI_API_KEY'): string[] {
  const p = `model_providers.${CODEX_PROVIDER}`;
  // Keys of codex-rs/model-provider-info (ModelProviderInfo): name, base_url, wire_api, env_key,
  // requires_openai_auth, supports_websockets.
  const pairs = [`model_provider="${CODEX_PROVIDER}"`, `${p}.name="ficta"`];
  if (login.mode === 'chatgpt') {
    // With `requires_openai_auth = true` Codex authenticates the provider with its stored login: the
    // account's bearer plus `chatgpt-account-id`, and it sends `{base_url}/responses` — the same request
    // its built-in provider sends to https://chatgpt.com/backend-api/codex (ModelProviderInfo::
    // to_api_provider picks that base URL for AuthMode::ChatGPT).
    pairs.push(`${p}.base_url="${urls.root}/chatgpt/backend-api/codex"`, `${p}.wire_api="responses"`, `${p}.requires_openai_auth=true`);
    // Its other ChatGPT-backend calls (rate limits, workspace settings) go to chatgpt_base_url: through ficta too.
    pairs.push(`chatgpt_base_url="${urls.root}/chatgpt/backend-api/"`);
  } else {
    // Codex appends /responses to a base URL that ends in /v1.
    pairs.push(`${p}.base_url="${urls.openai}"`, `${p}.wire_api="responses"`, `${p}.env_key="${envKey}"`);
  }
  pairs.push(
    // Codex would first try a WebSocket upgrade; ficta answers 426, this skips the attempts.
    `${p}.supports_websockets=false`,
    // Its other traffic (analytics, plugin fetches) goes straight to the vendor.
    'analytics.enabled=false',
    'features.plugins=false',
  );
  return pairs.flatMap((kv) => ['-c', kv]);
}
