// The JSON error bodies each provider's clients understand (DESIGN §2), so an SDK shows ficta's message
// instead of a parse failure. A route declares its shape; the HTTP edge only calls `format`.

export interface ErrorShape {
  readonly id: 'anthropic' | 'openai' | 'gemini' | 'ollama' | 'jsonrpc';
  /** The response body for an error with this status, ficta type and message. */
  format(status: number, type: string, message: string): string;
}

/** Anthropic: `{"type":"error","error":{"type":T,"message":M}}`. */
export const anthropicErrors: ErrorShape = {
  id: 'anthropic',
  format: (_status, type, message) => JSON.stringify({ type: 'error', error: { type, message } }),
};

/** OpenAI, and every OpenAI-compatible route: `{"error":{"message":M,"type":T,"code":T}}`. */
export const openaiErrors: ErrorShape = {
  id: 'openai',
  format: (_status, type, message) => JSON.stringify({ error: { message, type, code: type } }),
};

/**
 * Google's canonical codes for the statuses ficta answers with (google.rpc.Code, as the Gemini API maps
 * them in https://ai.google.dev/gemini-api/docs/troubleshooting).
 */
const GOOGLE_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  413: 'INVALID_ARGUMENT',
  415: 'INVALID_ARGUMENT',
  426: 'FAILED_PRECONDITION',
  500: 'INTERNAL',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/**
 * Gemini: `{"error":{"code":S,"message":M,"status":"PERMISSION_DENIED"|…}}`, with the ficta type as a
 * google.rpc.ErrorInfo reason so programs can tell ficta's refusals apart.
 */
export const geminiErrors: ErrorShape = {
  id: 'gemini',
  format: (status, type, message) =>
    JSON.stringify({
      error: {
        code: status,
        message,
        status: GOOGLE_STATUS[status] ?? (status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION'),
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: type, domain: 'ficta' }],
      },
    }),
};

/** Ollama's native API: `{"error":M}` (its OpenAI-compatible /v1 routes use the OpenAI shape). */
export const ollamaErrors: ErrorShape = {
  id: 'ollama',
  format: (_status, _type, message) => JSON.stringify({ error: message }),
};

/**
 * MCP servers (JSON-RPC 2.0): `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":M,"data":{"type":T}}}`,
 * which an MCP client reports as the failed call's error (-32000 is the server-error range the spec leaves to servers).
 */
export const jsonRpcErrors: ErrorShape = {
  id: 'jsonrpc',
  format: (status, type, message) => JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message, data: { type, status } } }),
};
