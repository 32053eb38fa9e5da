// The configuration schema: the single source of defaults and of what a valid setting is.

import { z } from './zod.ts';
import { DetectConfigSchema } from '../detect/config.ts';
import { GatewayConfigSchema } from '../gateway/config.ts';
import { SourcesConfigSchema } from '../gateway/sources-config.ts';
import { BUILT_IN_UPSTREAMS, namedUpstreamProblem } from '../providers/upstreams.ts';
import { HostListSchema, RestoreConfigSchema } from '../sinks/config.ts';
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
    /** Where the vault, keys, registry and config live. */
    home: z.string().min(1),
    host: z.string().min(1).default('127.0.0.1'),
    port: z.number().int().min(0).max(65535).default(8787),
    /**
     * The built-in upstreams (a URL each), and named upstreams as tables (`[upstreams.openrouter]`
     * `url = "https://openrouter.ai"`), routed at `/<name>/…`.
     */
    upstreams: z
      .object({
        anthropic: httpUrl.default(BUILT_IN_UPSTREAMS.anthropic),
        openai: httpUrl.default(BUILT_IN_UPSTREAMS.openai),
        gemini: httpUrl.default(BUILT_IN_UPSTREAMS.gemini),
        ollama: httpUrl.default(BUILT_IN_UPSTREAMS.ollama),
        chatgpt: httpUrl.default(BUILT_IN_UPSTREAMS.chatgpt),
      })
      .catchall(namedUpstream)
      .superRefine((upstreams, ctx) => {
        for (const name of Object.keys(upstreams)) {
          if (Object.hasOwn(BUILT_IN_UPSTREAMS, name)) continue;
          const problem = namedUpstreamProblem(name);
          if (problem !== undefined) ctx.addIssue({ code: 'custom', path: [name], message: problem });
        }
      })
      .prefault({}),
    limits: z
      .object({
        /** Largest request body accepted, as received (compressed or not). */
        maxBodyBytes: z.number().int().positive().default(DEFAULT_MAX_BODY_BYTES),
        /** Largest request body after content-encoding is decoded (gzip bomb guard). */
        maxDecodedBytes: z.number().int().positive().default(DEFAULT_MAX_BODY_BYTES),
        /** Largest single SSE event or undelimited response region held while restoring. */
        maxEventBytes: z.number().int().positive().default(DEFAULT_MAX_BODY_BYTES),
        /** Time to connect to an upstream. */
        connectTimeoutMs: z.number().int().positive().default(10_000),
        /** Time from sending a request to the upstream's response headers (non-streaming calls can think for minutes). */
        headersTimeoutMs: z.number().int().positive().default(600_000),
        /** Longest silence between two chunks of an upstream response body. */
        bodyTimeoutMs: z.number().int().positive().default(600_000),
        /** How long SIGINT/SIGTERM waits for in-flight requests before closing them. */
        shutdownGraceMs: z.number().int().nonnegative().default(10_000),
      })
      .strict()
      .prefault({}),
    secrets: z
      .object({
        /** dotenv files whose values are registered secrets. */
        envFiles: z.array(z.string().min(1)).default([]),
        /** Names of environment variables whose values are registered secrets. */
        env: z.array(z.string().min(1)).default([]),
        /** Use the sealed vault when it exists ("auto"), always ("on"), or never ("off"). */
        vault: z.enum(['auto', 'on', 'off']).default('auto'),
        /** Refuse to start when no secret is registered from any source (detection alone does not count). */
        require: z.boolean().default(false),
        /** Start even when a variable named in `env` is not set (otherwise an error). */
        allowMissing: z.boolean().default(false),
        /** Hosts each named secret may be restored towards in tool calls (`[secrets.hosts] NAME = ["api.github.com"]`). */
        hosts: z.record(z.string().min(1), HostListSchema).default({}),
        /**
         * Zero-config discovery (.env, .env.local, .env.*.local in the working directory; secret-looking
         * environment variables): "auto" when no env file and no vault is used, true always, false never.
         */
        discover: z.union([z.boolean(), z.literal('auto')]).default('auto'),
      })
      .strict()
      .prefault({}),
    log: z
      .object({
        level: logLevel.default('info'),
        /**
         * `json` (one object per line; ficta's own stderr lines too), `text` (one readable line per event), or
         * `auto`: text, coloured, when the log goes to a terminal, JSON otherwise.
         */
        format: z.enum(['auto', 'json', 'text']).default('auto'),
        /** Write logs to this file instead of stderr. */
        file: z.string().min(1).optional(),
      })
      .strict()
      .prefault({}),
    /**
     * Access token: requests must carry it as the first path segment pair `/t/<token>/…`. Required when
     * binding a non-loopback address.
     */
    token: z
      .string()
      .regex(/^[A-Za-z0-9_-]{16,128}$/, { message: 'must be 16 to 128 characters of A-Z a-z 0-9 _ -' })
      .optional(),
    /** Written (mode 0600) with the base URLs once listening; removed on exit. */
    readyFile: z.string().min(1).optional(),
    /** The run report (JSON: requests, redactions, restores and blocks by secret name) written on exit. */
    reportFile: z.string().min(1).optional(),
    /** Exit non-zero at shutdown when any request was blocked. */
    failOnBlock: z.boolean().default(false),
    /** Restore into tool calls: mode and allowed hosts (see src/sinks/config.ts). */
    restore: RestoreConfigSchema.prefault({}),
    /** Watermarks and the attribution registry (see src/watermark/config.ts). */
    watermark: WatermarkConfigSchema.prefault({}),
    /** Detection of credentials nobody registered (see src/detect/config.ts). */
    detect: DetectConfigSchema.prefault({}),
    /** `ficta gateway`: key, tokens, admin listener, drain, limits (see src/gateway/config.ts). */
    gateway: GatewayConfigSchema.optional(),
    /** Organisation secret sources with the groups entitled to them (`[[sources]]`, see src/gateway/sources-config.ts). */
    sources: SourcesConfigSchema.default([]),
  })
  .strict();

export type Config = z.infer<typeof ConfigSchema>;
export type ConfigInput = z.input<typeof ConfigSchema>;
