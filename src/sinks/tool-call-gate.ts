// The seam between a restorer and the restore rule: for one complete tool call, given its arguments as they
// sit in the response (raw bytes inside some number of JSON strings), restore the placeholders the rule
// allows, leave the others as placeholders, and count both. Byte surgery: only placeholder bytes change.

import { PLACEHOLDER_FIRST_BYTE, PLACEHOLDER_LENGTH, probePlaceholder } from '../redact/placeholder.ts';
import { bump } from '../redact/replace.ts';
import type { SecretSet } from '../redact/secret-set.ts';
import type { RestoreStats } from '../restore/restore-bytes.ts';
import { classifyToolCallDetailed, type Decision } from './classify.ts';
import type { RestoreConfig } from './config.ts';
import type { ArgString } from './json-args.ts';
import { createRestorePolicy, type RestorePolicy, type ToolCallMode } from './policy.ts';
import { countWithheld, type WithheldCounts } from './withheld.ts';

/** One complete tool call, located in a response by the restorer. */
export interface CompleteToolCall {
  /** Wire format (for logs). */
  format: string;
  /** Tool name ('' when the stream never said: then it is a tool that runs). */
  name: string;
  /** `json`: function arguments (JSON text); `text`: a custom tool's free-form input (Codex apply_patch). */
  kind: 'json' | 'text';
  /** The arguments' bytes exactly as they appear in the response. */
  raw: Buffer;
  /**
   * JSON string levels around `raw`: 0 when the arguments are a JSON value of the document (Anthropic
   * `tool_use.input`, Gemini `functionCall.args`, Ollama `arguments`); 1 when they are the content of a JSON
   * string (Chat and Responses `arguments`, Responses `custom_tool_call.input`, concatenated Anthropic
   * `partial_json` or Chat argument deltas as they stand in their events).
   */
  depth: number;
}

/** What the gate did with one call. */
export interface GateResult {
  /** The bytes to put in place of `raw` (just `raw` when nothing changed). */
  parts: Buffer[];
  restored: number;
  withheld: number;
}

/** What a restorer holds per response to decide tool calls. */
export interface ToolCallGate {
  readonly mode: ToolCallMode;
  /**
   * Restores what the rule allows in one complete call. The decision depends only on the arguments, the
   * policy and the secret set, so a whole-value copy of the same call (`*.done`, `output_item.done`,
   * `response.completed`) gets the same bytes: pass `count: false` for copies so nothing is counted twice.
   */
  restore(call: CompleteToolCall, options?: { count?: boolean }): GateResult;
  /**
   * Fails a call closed without reading it (held arguments over the size limit, a stream that ended mid-
   * call): every registered placeholder in `raw` stays as it is and is counted withheld with `reason`.
   */
  withholdAll(raw: Buffer, reason: string): number;
}

/** Reason for a held call whose arguments outgrew the limit (`limits.maxEventBytes`). */
export const HELD_TOO_LARGE = 'unsure:held-call-too-large';
/** Reason for a call the response ended in the middle of. */
export const CALL_INCOMPLETE = 'unsure:incomplete-call';

/** The policy for one secret set: the configured mode and hosts, plus each secret's own hosts. */
export function policyFor(set: Pick<SecretSet, 'hosts'>, config: RestoreConfig): RestorePolicy {
  return createRestorePolicy({ mode: config.toolCalls, allowHosts: config.allowHosts, secretHosts: set.hosts });
}

/** A gate over one secret set; restores and misses go to `stats`, withheld restores to `withheld`. */
export function createToolCallGate(set: SecretSet, policy: RestorePolicy, stats: RestoreStats, withheld: WithheldCounts): ToolCallGate {
  const findPlaceholders = (raw: Buffer, rawOffsets: number[], secrets: number[], countMisses: boolean): void => {
    // Placeholders never need escaping, so they stand verbatim in the raw bytes at any depth.
    for (let i = raw.indexOf(PLACEHOLDER_FIRST_BYTE); i !== -1; i = raw.indexOf(PLACEHOLDER_FIRST_BYTE, i + 1)) {
      const probe = probePlaceholder(raw, i, raw.length);
      if (probe.kind === 'full') {
        const secret = set.secretForId(probe.id);
        if (secret >= 0) {
          rawOffsets.push(i);
          secrets.push(secret);
          i += PLACEHOLDER_LENGTH - 1;
          continue;
        }
      }
      // A cut-off placeholder here means the call is incomplete: it is never restored either way.
      if (probe.kind !== 'none' && countMisses) stats.misses++;
    }
  };
  return {
    mode: policy.mode,
    withholdAll(raw, reason) {
      const offsets: number[] = [];
      const secrets: number[] = [];
      findPlaceholders(raw, offsets, secrets, true);
      for (const secret of secrets) countWithheld(withheld, secret, reason);
      return secrets.length;
    },
    restore(call, options = {}) {
      const count = options.count !== false;
      const raw = call.raw;
      const rawOffsets: number[] = [];
      const secrets: number[] = [];
      findPlaceholders(raw, rawOffsets, secrets, count);
      if (rawOffsets.length === 0) return { parts: [raw], restored: 0, withheld: 0 };
      const decoded = unescapeLevels(raw, rawOffsets, call.depth);
      const occurrences = secrets.map((secret, k) => ({ offset: decoded?.offsets[k] ?? 0, secret }));
      const { decisions, parsed } = decoded === undefined
        ? { decisions: secrets.map((): Decision => ({ restore: false, reason: 'malformed:arguments' })), parsed: undefined }
        : classifyToolCallDetailed({ format: call.format, name: call.name, input: call.kind, bytes: decoded.bytes, occurrences }, policy);
      const inner = call.kind === 'json' ? stringDepths(parsed?.strings, rawOffsets.length) : undefined;
      const parts: Buffer[] = [];
      let pos = 0;
      let restored = 0;
      let held = 0;
      decisions.forEach((d, k) => {
        const secret = secrets[k] as number;
        if (!d.restore) {
          if (count) countWithheld(withheld, secret, d.reason);
          held++;
          return;
        }
        const at = rawOffsets[k] as number;
        if (at > pos) parts.push(raw.subarray(pos, at));
        parts.push(set.valueBytes(secret, call.depth + (inner?.[k] ?? 0)));
        if (count) bump(stats.restores, secret);
        pos = at + PLACEHOLDER_LENGTH;
        restored++;
      });
      if (restored === 0) return { parts: [raw], restored, withheld: held };
      if (pos < raw.length) parts.push(raw.subarray(pos));
      return { parts, restored, withheld: held };
    },
  };
}

/**
 * The JSON string depth of each occurrence inside the arguments: 1 in a string, 2 in a string of JSON text
 * inside a string (`{"body": "{\"k\": \"<ph>\"}"}`), so a value with quotes is escaped for where it lands.
 */
function stringDepths(strings: readonly ArgString[] | undefined, n: number): number[] {
  const depths = new Array<number>(n).fill(1);
  if (strings === undefined) return depths;
  for (const s of strings) {
    if (s.occurrences.length === 0 || !startsLikeJson(s.text)) continue;
    // One forward pass per string, carried across its occurrences (ascending).
    let i = 0;
    let inString = false;
    for (const o of s.occurrences) {
      while (i < o.at) {
        const c = s.text.charCodeAt(i);
        if (inString && c === 0x5c) i += 2;
        else {
          if (c === 0x22) inString = !inString;
          i++;
        }
      }
      if (inString) depths[o.index] = 2;
    }
  }
  return depths;
}

function startsLikeJson(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    return c === 0x7b || c === 0x5b;
  }
  return false;
}

/** Decodes `levels` levels of JSON string escaping, mapping the (ascending) offsets along; undefined if not valid. */
function unescapeLevels(raw: Buffer, offsets: readonly number[], levels: number): { bytes: Buffer; offsets: number[] } | undefined {
  let cur = { bytes: raw, offsets: [...offsets] };
  for (let l = 0; l < levels; l++) {
    const next = unescapeOnce(cur.bytes, cur.offsets);
    if (next === undefined) return undefined;
    cur = next;
  }
  return cur;
}

function unescapeOnce(buf: Buffer, offsets: readonly number[]): { bytes: Buffer; offsets: number[] } | undefined {
  const out: Buffer[] = [];
  let length = 0;
  const mapped: number[] = [];
  let k = 0;
  let run = 0;
  let i = 0;
  const flush = (to: number): void => {
    if (to > run) {
      out.push(buf.subarray(run, to));
      length += to - run;
    }
  };
  while (i < buf.length) {
    if (i === offsets[k]) {
      flush(i);
      run = i;
      mapped.push(length);
      k++;
    }
    const b = buf[i] as number;
    if (b === 0x22 || b < 0x20) return undefined;
    if (b !== 0x5c) {
      i++;
      continue;
    }
    flush(i);
    const e = buf[i + 1];
    let ch: string | undefined;
    let len = 2;
    if (e === 0x75) {
      const hex = buf.toString('latin1', i + 2, i + 6);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) return undefined;
      let cp = Number.parseInt(hex, 16);
      len = 6;
      // A surrogate pair is two escapes that make one character.
      if (cp >= 0xd800 && cp <= 0xdbff && buf[i + 6] === 0x5c && buf[i + 7] === 0x75) {
        const low = Number.parseInt(buf.toString('latin1', i + 8, i + 12), 16);
        if (low >= 0xdc00 && low <= 0xdfff) {
          cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
          len = 12;
        }
      }
      ch = String.fromCodePoint(cp);
    } else {
      ch = ({ 0x22: '"', 0x5c: '\\', 0x2f: '/', 0x62: '\b', 0x66: '\f', 0x6e: '\n', 0x72: '\r', 0x74: '\t' } as Record<number, string>)[e ?? -1];
    }
    if (ch === undefined) return undefined;
    const bytes = Buffer.from(ch, 'utf8');
    out.push(bytes);
    length += bytes.length;
    i += len;
    run = i;
  }
  flush(buf.length);
  if (mapped.length !== offsets.length) return undefined;
  return { bytes: Buffer.concat(out, length), offsets: mapped };
}
