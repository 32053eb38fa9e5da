// What kind of client sent a request, for the dashboard's Live page: a user-agent reduced to one name from
// a fixed list (`claude-code`, `openai-sdk/js`, `curl`, …) or `other`, so no part of the header is ever shown.

/** Known user-agent prefixes (lowercase) → the name shown. First match wins; order longest-specific first. */
const KNOWN: ReadonlyArray<readonly [prefix: string, name: string]> = [
  ['claude-cli/', 'claude-code'],
  ['claude-code/', 'claude-code'],
  ['codex_', 'codex'],
  ['codex/', 'codex'],
  ['geminicli/', 'gemini-cli'],
  ['opencode/', 'opencode'],
  ['anthropic/js', 'anthropic-sdk/js'],
  ['anthropic/python', 'anthropic-sdk/python'],
  ['openai/js', 'openai-sdk/js'],
  ['openai/python', 'openai-sdk/python'],
  ['asyncopenai/python', 'openai-sdk/python'],
  ['google-genai-sdk/', 'google-genai'],
  ['ollama-js/', 'ollama-js'],
  ['litellm/', 'litellm'],
  ['curl/', 'curl'],
  ['wget/', 'wget'],
  ['python-requests/', 'python-requests'],
  ['python-httpx/', 'python-httpx'],
  ['node', 'node'],
  ['undici', 'node'],
];

/** Longest user-agent prefix looked at (the rest of the header is never read). */
const PREFIX_CHARS = 24;

/** The client's kind from its user-agent header (`other` when unknown, `none` when absent). */
export function clientName(userAgent: string | undefined): string {
  if (userAgent === undefined || userAgent === '') return 'none';
  const head = userAgent.slice(0, PREFIX_CHARS).toLowerCase();
  for (const [prefix, name] of KNOWN) if (head.startsWith(prefix)) return name;
  // Google's SDK puts its name after other products: `google-genai-sdk/x gl-node/y`.
  if (userAgent.includes('google-genai-sdk/')) return 'google-genai';
  return 'other';
}
