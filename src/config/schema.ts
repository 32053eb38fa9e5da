// The configuration schema: the single source of defaults and of what a valid setting is.

import { z } from './zod.ts';
import { UiConfigSchema } from '../ui/config.ts';
import { DetectConfigSchema, TermsSchema } from '../detect/config.ts';
import { BUILT_IN_UPSTREAMS, lowercaseUpstreamNames, namedUpstreamProblem } from '../providers/upstreams.ts';
import { GatewayConfigSchema } from '../gateway/config.ts';
import { SourcesConfigSchema } from '../gateway/sources-config.ts';
import { HostListSchema, RestoreConfigSchema } from '../sinks/config.ts';
import { McpConfigSchema } from '../mcp/config.ts';
import { WatermarkConfigSchema } from '../watermark/config.ts';

const MiB = 1024 * 1024;

/** Request bodies above this are refused with 413 (DESIGN §2). */
export const DEFAULT_MAX_BODY_BYTES = 32 * MiB;

const httpUrl = z
  .string()
  .refine((s) => /^https?:\/\/[^/?#]+(\/[^?#]*)?$/i.test(s), { message: 'must be an http(s) URL without query or fragment' });

/** A named upstream: a table, so a misspelt built-in (`anthropc = "…"`) is an unknown key, not a new route. */
const namedUpstream = z
  .object({ url: httpUrl }, { error: (issue) => (issue.code === 'invalid_type' ? 'unknown key (a named upstream is a table: url = "https://…")' : undefined) })
  .strict();

const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

export const ConfigSchema = z
  .object({
    home: z.string().min(1).register(z.globalRegistry, { description: 'Where the vault, keys, registry and config live.' }),
    host: z.string().min(1).default('127.0.0.1').register(z.globalRegistry, { description: 'Address to bind; a non-loopback address needs a token.' }),
    port: z.number().int().min(0).max(65535).default(8787).register(z.globalRegistry, { description: 'Port to listen on; 0 for any free port.' }),
    upstreams: z
      .object({
        anthropic: httpUrl.default(BUILT_IN_UPSTREAMS.anthropic).register(z.globalRegistry, { description: 'Anthropic upstream (`/anthropic/*`, `/v1/messages`).' }),
        openai: httpUrl.default(BUILT_IN_UPSTREAMS.openai).register(z.globalRegistry, { description: 'OpenAI upstream (`/openai/*`, other `/v1/*`).' }),
        gemini: httpUrl.default(BUILT_IN_UPSTREAMS.gemini).register(z.globalRegistry, { description: 'Gemini API upstream (`/gemini/*`, `/v1beta/*`).' }),
        ollama: httpUrl.default(BUILT_IN_UPSTREAMS.ollama).register(z.globalRegistry, { description: 'Ollama upstream (`/ollama/*`).' }),
        chatgpt: httpUrl.default(BUILT_IN_UPSTREAMS.chatgpt).register(z.globalRegistry, { description: 'ChatGPT backend for Codex signed in with ChatGPT (`/chatgpt/*`).' }),
      })
      .catchall(namedUpstream)
      .superRefine((upstreams, ctx) => {
        for (const name of Object.keys(upstreams)) {
          if (Object.hasOwn(BUILT_IN_UPSTREAMS, name)) continue;
          const problem = namedUpstreamProblem(name);
          if (problem !== undefined) ctx.addIssue({ code: 'custom', path: [name], message: problem });
        }
        lowercaseUpstreamNames(upstreams, (first, second) =>
          ctx.addIssue({ code: 'custom', path: [second], message: `the same route as "${first}" (names are routed lowercased)` }),
        );
      })
      // Named upstreams in any case, routed lowercased (`[upstreams.OpenRouter]` → /openrouter/).
      .transform((upstreams) => lowercaseUpstreamNames(upstreams, () => undefined) as typeof upstreams)
      .prefault({})
      .register(z.globalRegistry, { description: 'The built-in upstreams (a URL each), and named upstreams as tables (`[upstreams.openrouter]` `url = "https://openrouter.ai"`), routed at `/<name>/…`.' }),
    limits: z
      .object({
        maxBodyBytes: z.number().int().positive().default(DEFAULT_MAX_BODY_BYTES).register(z.globalRegistry, { description: 'Largest request body accepted, as received (compressed or not).' }),
        maxDecodedBytes: z.number().int().positive().default(DEFAULT_MAX_BODY_BYTES).register(z.globalRegistry, { description: 'Largest request body after content-encoding is decoded (gzip bomb guard).' }),
        maxEventBytes: z.number().int().positive().default(DEFAULT_MAX_BODY_BYTES).register(z.globalRegistry, { description: 'Largest single SSE event or undelimited response region held while restoring.' }),
        connectTimeoutMs: z.number().int().positive().default(10_000).register(z.globalRegistry, { description: 'Time to connect to an upstream.' }),
        headersTimeoutMs: z.number().int().positive().default(600_000).register(z.globalRegistry, { description: 'Time from sending a request to the upstream\'s response headers (non-streaming calls can think for minutes).' }),
        bodyTimeoutMs: z.number().int().positive().default(600_000).register(z.globalRegistry, { description: 'Longest silence between two chunks of an upstream response body.' }),
        shutdownGraceMs: z.number().int().nonnegative().default(10_000).register(z.globalRegistry, { description: 'How long SIGINT/SIGTERM waits for in-flight requests before closing them.' }),
      })
      .strict()
      .prefault({})
      .register(z.globalRegistry, { description: 'Sizes and times.' }),
    secrets: z
      .object({
        envFiles: z.array(z.string().min(1)).default([]).register(z.globalRegistry, { description: 'dotenv files whose values are registered secrets.' }),
        env: z.array(z.string().min(1)).default([]).register(z.globalRegistry, { description: 'Names of environment variables whose values are registered secrets.' }),
        vault: z.enum(['auto', 'on', 'off']).default('auto').register(z.globalRegistry, { description: 'Use the sealed vault when it exists ("auto"), always ("on"), or never ("off").' }),
        require: z.boolean().default(false).register(z.globalRegistry, { description: 'Refuse to start when no secret is registered from any source (detection alone does not count).' }),
        allowMissing: z.boolean().default(false).register(z.globalRegistry, { description: 'Start even when a variable named in `env` is not set (otherwise an error).' }),
        hosts: z.record(z.string().min(1), HostListSchema).default({}).register(z.globalRegistry, { description: 'Hosts each named secret may be restored towards in tool calls (`[secrets.hosts] NAME = ["api.github.com"]`).' }),
        discover: z
          .union([z.boolean(), z.literal('auto')])
          .default('auto')
          .describe('Zero-config discovery (.env, .env.local, .env.*.local in the working directory; secret-looking environment variables): "auto" when no env file and no vault is used, true always, false never.'),
        terms: TermsSchema.default([]).describe('Words that must not leave (code names, customers, internal hosts): `NAME=word` or a bare word (counted as `term-N`), matched ASCII-case-insensitively on word boundaries, redacted and restored in the casing written.'),
      })
      .strict()
      .prefault({})
      .register(z.globalRegistry, { description: 'Where registered secrets come from.' }),
    log: z
      .object({
        level: logLevel.default('info').register(z.globalRegistry, { description: 'Log level.' }),
        format: z
          .enum(['auto', 'json', 'text'])
          .default('auto')
          .register(z.globalRegistry, { description: '`json` (one object per line; ficta\'s own stderr lines too), `text` (one readable line per event), or `auto`: text, coloured, when the log goes to a terminal, JSON otherwise.' }),
        file: z.string().min(1).optional().register(z.globalRegistry, { description: 'Write logs to this file instead of stderr.' }),
      })
      .strict()
      .prefault({})
      .register(z.globalRegistry, { description: 'The request log.' }),
    token: z
      .string()
      .regex(/^[A-Za-z0-9_-]{16,128}$/, { message: 'must be 16 to 128 characters of A-Z a-z 0-9 _ -' })
      .optional()
      .describe('Access token: requests must carry it as the first path segment pair `/t/<token>/…`. Required when binding a non-loopback address.'),
    readyFile: z.string().min(1).optional().describe('Written (mode 0600) with the base URLs once listening; removed on exit.'),
    reportFile: z.string().min(1).optional().describe('The run report (JSON: requests, redactions, restores and blocks by secret name) written on exit.'),
    failOnBlock: z.boolean().default(false).describe('Exit non-zero at shutdown when any request was blocked.'),
    restore: RestoreConfigSchema.prefault({}).describe('Restore into tool calls: mode and allowed hosts.'),
    mcp: McpConfigSchema.prefault({}).describe('MCP servers: remote ones are destinations of their tools\' arguments and reachable at /mcp/<name>/ (see docs/mcp.md).'),
    watermark: WatermarkConfigSchema.prefault({}).describe('Watermarks and the attribution registry.'),
    detect: DetectConfigSchema.prefault({}).describe('Detection of credentials nobody registered.'),
    ui: UiConfigSchema.prefault({}).describe('The dashboard at /_ficta/ (see docs/ui.md).'),
    gateway: GatewayConfigSchema.optional().describe('`ficta gateway`: key, tokens, admin listener, drain, limits (see docs/gateway.md).'),
    sources: SourcesConfigSchema.default([]).describe('Organisation secret sources with the groups entitled to them (`[[sources]]`: dotenv, dir, env or command; see docs/gateway.md).'),
  })
  .strict();

export type Config = z.infer<typeof ConfigSchema>;
export type ConfigInput = z.input<typeof ConfigSchema>;
