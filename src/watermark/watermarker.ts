// The request-side stage the proxy calls: marks document-like strings of a JSON body in place (every
// other byte forwarded unchanged) and queues their fingerprints for the registry off the request path.

import { randomBytes } from 'node:crypto';
import type { WatermarkConfig } from './config.ts';
import { applyPlan, planEmbedding, type EmbedPlan, type PlannedFrame } from './embed.ts';
import { fingerprintText } from './fingerprint.ts';
import { decodeString, getKey, scanJson, tagOf, type JsonString } from './json-spans.ts';
import { deriveKeys, loadOrCreateKey, type WatermarkKeys } from './key.ts';
import { rsEncode } from './reed-solomon.ts';
import type { OpenRegistryOptions, Registry } from './registry.ts';
import { findSurfaces, surfaceCheck, type Surface } from './surfaces.ts';

export interface MarkContext {
  /** The upstream's route name (anthropic, openai, gemini, a named upstream…). */
  provider: string;
  route: string;
  sessionId: string;
  requestId: string;
  model?: string;
}

export interface MarkOutcome {
  /** The body to forward: the input Buffer itself when nothing was marked. */
  body: Buffer;
  /** Documents that received frames. */
  marked: number;
  /** Documents handed to the registry (marked or not). */
  fingerprinted: number;
}

export interface WatermarkStats {
  bodies: number;
  documents: number;
  marked: number;
  frames: number;
  registered: number;
  registryErrors: number;
  /** Registry work dropped because the queue was full. */
  registryDropped: number;
  /** Bodies forwarded unmarked after an unexpected error in this stage. */
  internalErrors: number;
}

/** The subset of a pino logger the watermark uses. */
export interface WatermarkLogger {
  warn(fields: Record<string, unknown>): void;
}

export interface WatermarkerOptions {
  config: WatermarkConfig;
  /** FICTA_HOME: holds watermark.key and watermark.sqlite. */
  home: string;
  logger?: WatermarkLogger;
  now?: () => number;
  /** An open registry to use instead of FICTA_HOME/watermark.sqlite, or options for opening that. */
  registry?: Registry | OpenRegistryOptions;
  /** A key to use instead of FICTA_HOME/watermark.key (tests). */
  key?: Buffer;
}

export interface Watermarker {
  /** Marks and registers the configured surfaces of a request body; never throws. */
  markRequestBody(body: Buffer, ctx: MarkContext): MarkOutcome;
  /**
   * The session id for a request: the agent's own session header when it sends one (Claude Code
   * `x-claude-code-session-id`, Codex `session-id`), else one id for the life of this proxy process.
   */
  sessionFor(header: (name: string) => string | undefined): string;
  stats(): WatermarkStats;
  /** Writes everything queued for the registry. */
  flush(): Promise<void>;
  /** Flushes, then closes the registry. */
  close(): Promise<void>;
}

/** Agent headers that carry a stable session id, most specific first. */
const SESSION_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['x-claude-code-session-id', 'claude-code'],
  ['session-id', 'codex'],
  ['x-ficta-session', 'client'],
];

/** Registry work waiting for a write is capped at this much document text; beyond it work is dropped. */
export const MAX_PENDING_TEXT_BYTES = 64 * 1024 * 1024;
/** Sessions whose mark is cached in memory (64-bit PRF outputs, cheap to recompute). */
const MARK_CACHE_SIZE = 4096;
/** (session, document) placement plans kept; re-marking a 521 KiB body with 40 tool results went from 10.7 to 2.7 ms. */
const PLAN_CACHE_SIZE = 4096;
const NO_PLAN: EmbedPlan = { frames: [] };
/** At most one registry warning per this many milliseconds. */
const LOG_INTERVAL_MS = 10_000;

interface Pending {
  sessionId: string;
  text: string;
  docHash: Buffer;
  frames: number;
  firstIndex: number;
  ctx: MarkContext;
  time: number;
}

/** Creates the watermark stage; a missing key or registry degrades it instead of failing. */
export function createWatermarker(options: WatermarkerOptions): Watermarker {
  const { config } = options;
  const now = options.now ?? Date.now;
  const stats: WatermarkStats = { bodies: 0, documents: 0, marked: 0, frames: 0, registered: 0, registryErrors: 0, registryDropped: 0, internalErrors: 0 };
  let lastLog = -Infinity;
  const warn = (event: string, fields: Record<string, unknown>): void => {
    const t = now();
    if (t - lastLog < LOG_INTERVAL_MS) return;
    lastLog = t;
    options.logger?.warn({ event, ...fields });
  };

  let keys: WatermarkKeys | undefined;
  let registry: Registry | undefined;
  /** False once the registry could not be opened: registry work is then dropped, marking goes on. */
  let registryUsable = false;
  let opening: Promise<void> | undefined;
  if (config.enabled) {
    const key = options.key !== undefined ? { ok: true as const, value: options.key } : loadOrCreateKey(options.home);
    if (key.ok) keys = deriveKeys(key.value);
    else warn('watermark_disabled', { code: key.error.code, message: key.error.message });
    if (keys !== undefined) {
      registryUsable = true;
      if (options.registry !== undefined && 'recordDocument' in options.registry) registry = options.registry;
    }
  }
  const registryOptions: OpenRegistryOptions = options.registry !== undefined && !('recordDocument' in options.registry) ? options.registry : {};

  // The registry (and with it better-sqlite3) is opened at the first registry write, not at start: most
  // proxies start, and many run, without forwarding a document (measured ~10 ms of `ficta serve`'s start).
  const openOnce = (): Promise<void> =>
    (opening ??= (async () => {
      if (registry !== undefined || !registryUsable) return;
      try {
        const { openRegistry } = await import('./registry.ts');
        const opened = openRegistry(options.home, registryOptions);
        if (opened.ok) {
          registry = opened.value;
          return;
        }
        registryUsable = false;
        stats.registryErrors++;
        warn('watermark_registry_error', { code: opened.error.code, message: opened.error.message });
      } catch (error) {
        registryUsable = false;
        stats.registryErrors++;
        warn('watermark_registry_error', { code: (error as { code?: unknown }).code ?? 'error', message: error instanceof Error ? error.message : String(error) });
      }
    })());
  const mayHoldSurface = surfaceCheck(config.surfaces);
  const processSession = `proxy-${new Date(now()).toISOString().slice(0, 19)}-${randomBytes(4).toString('hex')}`;
  const marks = new Map<string, Uint8Array>();
  const sessionsRecorded = new Set<string>();
  let queue: Pending[] = [];
  let pendingBytes = 0;
  let scheduled = false;

  const codewordFor = (sessionId: string): Uint8Array => {
    let cw = marks.get(sessionId);
    if (cw === undefined) {
      cw = rsEncode(keys!.sessionMark(sessionId));
      if (marks.size >= MARK_CACHE_SIZE) marks.delete(marks.keys().next().value!);
      marks.set(sessionId, cw);
    }
    return cw;
  };

  // Agents resend every earlier document on every turn; the plan for a (session, document) never
  // changes, so it is computed once.
  const plans = new Map<string, EmbedPlan>();
  const planFor = (sessionId: string, docHash: Buffer, text: string): EmbedPlan => {
    const cacheKey = `${docHash.toString('base64')}\0${sessionId}`;
    let plan = plans.get(cacheKey);
    if (plan === undefined) {
      plan = planEmbedding(text, codewordFor(sessionId), keys!.placementSeed(sessionId, text));
      if (plans.size >= PLAN_CACHE_SIZE) plans.delete(plans.keys().next().value!);
      plans.set(cacheKey, plan);
    }
    return plan;
  };

  const drain = async (): Promise<void> => {
    scheduled = false;
    const items = queue;
    queue = [];
    pendingBytes = 0;
    if (items.length === 0) return;
    await openOnce();
    if (registry === undefined) return;
    for (const p of items) {
      try {
        if (!sessionsRecorded.has(p.sessionId)) {
          registry.recordSession(p.sessionId, keys!.sessionMark(p.sessionId), p.time);
          sessionsRecorded.add(p.sessionId);
        }
        registry.recordDocument(
          { sessionId: p.sessionId, docHash: p.docHash, bytes: Buffer.byteLength(p.text), frames: p.frames, firstIndex: p.firstIndex, fingerprints: () => fingerprintText(p.text, keys!) },
          { requestId: p.ctx.requestId, time: p.time, route: p.ctx.route, provider: p.ctx.provider, model: p.ctx.model ?? null },
        );
        stats.registered++;
      } catch (error) {
        stats.registryErrors++;
        warn('watermark_registry_error', { code: (error as { code?: unknown }).code ?? 'error', message: error instanceof Error ? error.message : String(error) });
      }
    }
  };

  const enqueue = (p: Pending): void => {
    if (!registryUsable) return;
    const bytes = p.text.length * 2;
    if (pendingBytes + bytes > MAX_PENDING_TEXT_BYTES) {
      stats.registryDropped++;
      warn('watermark_registry_dropped', { pending: queue.length });
      return;
    }
    queue.push(p);
    pendingBytes += bytes;
    if (!scheduled) {
      scheduled = true;
      setImmediate(() => void drain());
    }
  };

  const markBody = (body: Buffer, ctx: MarkContext): MarkOutcome => {
    const unchanged = { body, marked: 0, fingerprinted: 0 };
    if (!mayHoldSurface(body)) return unchanged;
    const root = scanJson(body);
    if (root === undefined) return unchanged;
    const surfaces = findSurfaces(body, root, config.surfaces);
    if (surfaces.length === 0) return unchanged;
    const time = now();
    if (ctx.model === undefined) {
      const model = tagOf(body, getKey(root, 'model'));
      if (model !== undefined) ctx = { ...ctx, model };
    }
    const parts: Buffer[] = [];
    let at = 0;
    let marked = 0;
    let fingerprinted = 0;
    for (const surface of surfaces) {
      const text = readSurface(body, surface);
      if (text === undefined || Buffer.byteLength(text) < config.thresholdBytes) continue;
      stats.documents++;
      const docHash = keys!.documentId(text);
      const plan = config.inBand ? planFor(ctx.sessionId, docHash, text) : NO_PLAN;
      enqueue({ sessionId: ctx.sessionId, text, docHash, frames: plan.frames.length, firstIndex: plan.frames[0]?.index ?? -1, ctx, time });
      fingerprinted++;
      if (plan.frames.length === 0) continue;
      const replacement = surface.encoding === 'data-url' ? dataUrlReplacement(body, surface.node, applyPlan(text, plan)) : spliceFrames(body, surface.node, plan.frames, text);
      parts.push(body.subarray(at, surface.node.start), replacement);
      at = surface.node.end;
      marked++;
      stats.frames += plan.frames.length;
    }
    stats.marked += marked;
    if (marked === 0) return { body, marked, fingerprinted };
    parts.push(body.subarray(at));
    return { body: Buffer.concat(parts), marked, fingerprinted };
  };

  return {
    markRequestBody(body, ctx) {
      if (keys === undefined) return { body, marked: 0, fingerprinted: 0 };
      stats.bodies++;
      try {
        return markBody(body, ctx);
      } catch (error) {
        stats.internalErrors++;
        warn('watermark_internal_error', { message: error instanceof Error ? error.message : String(error) });
        return { body, marked: 0, fingerprinted: 0 };
      }
    },
    sessionFor(header) {
      for (const [name, prefix] of SESSION_HEADERS) {
        const v = header(name)?.trim();
        if (v !== undefined && v !== '' && v.length <= 200) return `${prefix}:${v}`;
      }
      return processSession;
    },
    stats: () => ({ ...stats }),
    async flush() {
      await drain();
    },
    async close() {
      await drain();
      registryUsable = false;
      registry?.close();
      registry = undefined;
    },
  };
}

/** The document text of a surface; undefined for a data URL that is not valid UTF-8. */
function readSurface(body: Buffer, surface: Surface): string | undefined {
  const value = decodeString(body, surface.node);
  if (surface.encoding === 'text') return value;
  const comma = value.indexOf(',');
  const bytes = Buffer.from(value.slice(comma + 1), 'base64');
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? text : undefined;
}

function dataUrlReplacement(body: Buffer, node: JsonString, markedText: string): Buffer {
  const value = decodeString(body, node);
  const prefix = value.slice(0, value.indexOf(',') + 1);
  return Buffer.from(JSON.stringify(prefix + Buffer.from(markedText, 'utf8').toString('base64')));
}

/**
 * Inserts frames into the raw JSON string before the `\n` escapes they belong to (before a `\r`
 * escape right ahead of it), leaving every other byte of the string as it was.
 */
export function spliceFrames(body: Buffer, node: JsonString, frames: readonly PlannedFrame[], text: string): Buffer {
  const asciiOnly = node.escaped && /[^\x00-\x7f]/.test(text) && !hasHighByte(body, node.start, node.end);
  const encode = (frame: string): Buffer =>
    Buffer.from(asciiOnly ? [...frame].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('') : frame, asciiOnly ? 'latin1' : 'utf8');
  const parts: Buffer[] = [];
  let at = node.start;
  let ordinal = 0;
  let t = 0;
  let crStart = -1;
  let crEnd = -1;
  let i = node.start + 1;
  const last = node.end - 1;
  while (t < frames.length) {
    i = body.indexOf(0x5c, i);
    if (i < 0 || i >= last) break;
    const e = body[i + 1];
    let len = 2;
    let ch = -1;
    if (e === 0x6e) ch = 10;
    else if (e === 0x72) ch = 13;
    else if (e === 0x75) {
      len = 6;
      const v = parseInt(body.toString('latin1', i + 2, i + 6), 16);
      if (v === 10 || v === 13) ch = v;
    }
    if (ch === 13) {
      crStart = i;
      crEnd = i + len;
    } else if (ch === 10) {
      if (ordinal === frames[t]!.newlineOrdinal) {
        const insertAt = crEnd === i ? crStart : i;
        parts.push(body.subarray(at, insertAt), encode(frames[t]!.frame));
        at = insertAt;
        t++;
      }
      ordinal++;
    }
    i += len;
  }
  parts.push(body.subarray(at, node.end));
  return Buffer.concat(parts);
}

function hasHighByte(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (buf[i]! >= 0x80) return true;
  return false;
}
