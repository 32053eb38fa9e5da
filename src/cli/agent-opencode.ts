// What opencode (opencode-ai) needs to send its model traffic through ficta: provider base URLs for
// Anthropic, OpenAI and Google in OPENCODE_CONFIG_CONTENT (its config as JSON, merged over the user's
// config files), and its model-catalog fetch, update check and session sharing switched off.

import { FictaError } from '../errors.ts';
import type { BaseUrls } from '../server/access.ts';

/**
 * opencode's providers are the Vercel AI SDK's, whose base URLs include the API version: @ai-sdk/anthropic
 * https://api.anthropic.com/v1, @ai-sdk/openai https://api.openai.com/v1, @ai-sdk/google
 * https://generativelanguage.googleapis.com/v1beta.
 */
export function opencodeConfig(urls: BaseUrls, existing: string | undefined, mcp: Record<string, unknown> = {}): string {
  let base: Record<string, unknown> = {};
  if (existing !== undefined && existing.trim() !== '') {
    try {
      const parsed = JSON.parse(existing) as unknown;
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
      base = parsed as Record<string, unknown>;
    } catch (cause) {
      throw new FictaError('FICTA_AGENT_CONFIG', 'opencode: OPENCODE_CONFIG_CONTENT is not a JSON object; ficta must add its provider base URLs to it', { cause });
    }
  }
  const providers = { ...((base.provider as Record<string, unknown> | undefined) ?? {}) };
  const routes: Record<string, string> = { anthropic: `${urls.anthropic}/v1`, openai: urls.openai, google: `${urls.gemini}/v1beta` };
  for (const [id, baseURL] of Object.entries(routes)) {
    const prior = (providers[id] as Record<string, unknown> | undefined) ?? {};
    providers[id] = { ...prior, options: { ...((prior.options as Record<string, unknown> | undefined) ?? {}), baseURL } };
  }
  // Remote MCP servers through the proxy's /mcp/<name> route (same-named entries, URL replaced).
  const servers = Object.keys(mcp).length === 0 ? {} : { mcp: { ...((base.mcp as Record<string, unknown> | undefined) ?? {}), ...mcp } };
  return JSON.stringify({ ...base, provider: providers, ...servers, autoupdate: false, share: 'disabled' });
}

/** The environment for opencode behind a proxy with these base URLs. */
export function opencodeEnv(urls: BaseUrls, env: NodeJS.ProcessEnv, mcp: Record<string, unknown> = {}): Record<string, string> {
  return {
    OPENCODE_CONFIG_CONTENT: opencodeConfig(urls, env.OPENCODE_CONFIG_CONTENT, mcp),
    // Its model catalog (models.dev) and update check go straight to their hosts otherwise.
    OPENCODE_DISABLE_MODELS_FETCH: 'true',
    OPENCODE_DISABLE_AUTOUPDATE: 'true',
  };
}
