// The upstreams ficta forwards to: the built-in providers and the user's named upstreams, each with
// where it lives, the error shape its clients read and the query parameters that carry its credentials.

import { FictaError } from '../errors.ts';
import { err, ok, type Result } from '../util/result.ts';
import { anthropicErrors, geminiErrors, ollamaErrors, openaiErrors, type ErrorShape } from './error-shapes.ts';

export interface UpstreamEntry {
  /** The route name: requests to `/<name>/…` go here (the prefix is stripped). */
  readonly name: string;
  /** scheme://host:port */
  readonly origin: string;
  /** Base path of the upstream URL ('' for none), prepended to every target. */
  readonly basePath: string;
  /** Whether the user named it (`--upstream NAME=URL`) rather than it being built in. */
  readonly named: boolean;
  /** The error shape for a request on this path (already stripped of the route prefix). */
  errorShapeFor(pathname: string): ErrorShape;
  /** Query parameters that carry the client's own credentials on this path: forwarded unredacted. */
  authQueryFor(pathname: string): ReadonlySet<string>;
  /**
   * Whether this request's body is file bytes (an upload): forwarded byte-exact and gated, never
   * rewritten (rewriting would change a size the client announced). `header` reads a request header.
   */
  isFileBody(pathname: string, header: (name: string) => string | undefined): boolean;
  /** Response headers holding an absolute URL of this upstream that the client calls next (resumable uploads). */
  readonly urlHeaders: ReadonlySet<string>;
}

export type BuiltInName = 'anthropic' | 'openai' | 'gemini' | 'ollama' | 'chatgpt';

/** The built-in upstreams and their defaults (DESIGN §2). */
export const BUILT_IN_UPSTREAMS: Readonly<Record<BuiltInName, string>> = {
  anthropic: 'https://api.anthropic.com',
  openai: 'https://api.openai.com',
  gemini: 'https://generativelanguage.googleapis.com',
  ollama: 'http://127.0.0.1:11434',
  chatgpt: 'https://chatgpt.com',
};

/** First path segments a named upstream may not take: the built-in routes and service endpoints. */
export const RESERVED_ROUTE_NAMES: ReadonlySet<string> = new Set([...Object.keys(BUILT_IN_UPSTREAMS), 'v1', 'v1beta', 't', 'healthz', 'readyz', 'mcp']);

const NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** The route a named upstream takes: its name lowercased (`OpenRouter` is routed at `/openrouter/`). */
export function routeName(name: string): string {
  return name.toLowerCase();
}

/** Why `name` (in any case) cannot be a named upstream, or undefined when it can. */
export function namedUpstreamProblem(name: string): string | undefined {
  const route = routeName(name);
  if (RESERVED_ROUTE_NAMES.has(route)) return `the name "${route}" collides with the built-in route /${route}/; choose another name`;
  if (!NAME.test(route)) return 'a name is 1 to 63 letters, digits, "-" or "_", starting with a letter or digit (routed lowercased)';
  return undefined;
}

/**
 * A named-upstream table with every name routed lowercased; built-in keys stay as they are. Two names that
 * differ only in case are one route: the second is reported through `clash`.
 */
export function lowercaseUpstreamNames<T>(upstreams: Readonly<Record<string, T>>, clash: (first: string, second: string) => void): Record<string, T> {
  const out: Record<string, T> = {};
  const from = new Map<string, string>();
  for (const [name, value] of Object.entries(upstreams)) {
    const key = Object.hasOwn(BUILT_IN_UPSTREAMS, name) ? name : routeName(name);
    const first = from.get(key);
    if (first !== undefined) clash(first, name);
    from.set(key, name);
    out[key] = value;
  }
  return out;
}

const NONE: ReadonlySet<string> = new Set();
const NO_FILES = (): boolean => false;
/**
 * Gemini file uploads go to `/upload/{version}/files` (ai.google.dev/api/files): a resumable upload's
 * `start` command carries JSON metadata, every later command (`upload`, `upload, finalize`) the file's
 * bytes — which @google/genai labels application/json whatever they are.
 */
const geminiUpload = (p: string, header: (name: string) => string | undefined): boolean =>
  p.startsWith('/upload/') && (header('x-goog-upload-command') ?? '').trim().toLowerCase() !== 'start';
/**
 * Gemini's resumable upload answers the start request with the URL to send the bytes to; the SDK keeps
 * its path and swaps in its own base URL's host (@google/genai uploadBlobInternal), so the path has to
 * lead back through ficta's route prefix.
 */
const GEMINI_URL_HEADERS: ReadonlySet<string> = new Set(['x-goog-upload-url']);
/** Gemini takes its API key as `?key=` as well as in x-goog-api-key (ai.google.dev/api#authentication). */
const GEMINI_AUTH_QUERY: ReadonlySet<string> = new Set(['key']);

/** A path in Gemini's wire format: a `/v1beta/` or `/v1alpha/` segment, or a `models/…:method` call. */
export function isGeminiPath(pathname: string): boolean {
  return /(^|\/)(v1beta|v1alpha)(\/|$)/.test(pathname) || /:(generateContent|streamGenerateContent|countTokens|embedContent|batchEmbedContents)$/.test(pathname);
}

/** A path in Anthropic's wire format: `/v1/messages…` or `/v1/complete` under any prefix. */
export function isAnthropicPath(pathname: string): boolean {
  return /\/v1\/messages(\/|$)/.test(pathname) || /\/v1\/complete\/?$/.test(pathname);
}

/** How each built-in upstream answers errors and takes credentials in the query. */
type Behaviour = Pick<UpstreamEntry, 'errorShapeFor' | 'authQueryFor' | 'isFileBody' | 'urlHeaders'>;
const PLAIN: Omit<Behaviour, 'errorShapeFor'> = { authQueryFor: () => NONE, isFileBody: NO_FILES, urlHeaders: NONE };

const BEHAVIOUR: Record<BuiltInName, Behaviour> = {
  anthropic: { ...PLAIN, errorShapeFor: () => anthropicErrors },
  openai: { ...PLAIN, errorShapeFor: () => openaiErrors },
  gemini: { errorShapeFor: () => geminiErrors, authQueryFor: () => GEMINI_AUTH_QUERY, isFileBody: geminiUpload, urlHeaders: GEMINI_URL_HEADERS },
  // Ollama's native API is /api/*; its OpenAI-compatible API is /v1/* (docs.ollama.com/openai).
  ollama: { ...PLAIN, errorShapeFor: (p) => (p.startsWith('/v1/') ? openaiErrors : ollamaErrors) },
  chatgpt: { ...PLAIN, errorShapeFor: () => openaiErrors },
};

/** A named upstream speaks whatever the path says (DESIGN §2); most are OpenAI-compatible. */
const NAMED_BEHAVIOUR: Behaviour = {
  errorShapeFor: (p) => (isAnthropicPath(p) ? anthropicErrors : isGeminiPath(p) ? geminiErrors : openaiErrors),
  authQueryFor: (p) => (isGeminiPath(p) ? GEMINI_AUTH_QUERY : NONE),
  isFileBody: (p, header) => isGeminiPath(p) && geminiUpload(p, header),
  urlHeaders: GEMINI_URL_HEADERS,
};

export interface UpstreamTable {
  readonly builtIn: Readonly<Record<BuiltInName, UpstreamEntry>>;
  readonly named: ReadonlyMap<string, UpstreamEntry>;
}

/** Builds the table from validated URLs: the built-ins and `named` (name → URL). */
export function createUpstreamTable(builtIn: Readonly<Record<BuiltInName, string>>, named: Readonly<Record<string, string>>): Result<UpstreamTable> {
  const entries = {} as Record<BuiltInName, UpstreamEntry>;
  for (const name of Object.keys(BUILT_IN_UPSTREAMS) as BuiltInName[]) {
    const parsed = parseUrl(builtIn[name], `upstreams.${name}`);
    if (!parsed.ok) return parsed;
    entries[name] = { name, named: false, ...parsed.value, ...BEHAVIOUR[name] };
  }
  const namedEntries = new Map<string, UpstreamEntry>();
  for (const [name, url] of Object.entries(named)) {
    const problem = namedUpstreamProblem(name);
    if (problem !== undefined) return err(new FictaError('FICTA_CONFIG_INVALID', `config: upstreams.${name}: ${problem}`));
    const parsed = parseUrl(url, `upstreams.${name}`);
    if (!parsed.ok) return parsed;
    namedEntries.set(name, { name, named: true, ...parsed.value, ...NAMED_BEHAVIOUR });
  }
  return ok({ builtIn: entries, named: namedEntries });
}

function parseUrl(url: string, key: string): Result<{ origin: string; basePath: string }> {
  let u: URL;
  try {
    u = new URL(url);
  } catch (cause) {
    return err(new FictaError('FICTA_CONFIG_INVALID', `config: ${key}: not a URL`, { cause }));
  }
  return ok({ origin: u.origin, basePath: u.pathname.replace(/\/+$/, '') });
}
