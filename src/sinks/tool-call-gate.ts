// The seam between a restorer and the restore rule: for one complete tool call, given its arguments as they
// sit in the response (raw bytes inside some number of JSON strings), restore the placeholders the rule
// allows, leave the others as placeholders, and count both. Byte surgery: only placeholder bytes change.

import { PLACEHOLDER_FIRST_BYTE, PLACEHOLDER_LENGTH, probePlaceholder } from '../redact/placeholder.ts';
import { bump } from '../redact/replace.ts';
import type { SecretSet } from '../redact/secret-set.ts';
import { DEPTH_UNKNOWN, JsonLexer } from '../restore/json-lexer.ts';
import { countUnrestored, type RestoreStats } from '../restore/restore-bytes.ts';
import { classifyToolCall, MALFORMED, type Decision } from './classify.ts';
import type { RestoreConfig } from './config.ts';
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
  /** The same as replacements: [start, end) of `raw` becomes `bytes`, in order. */
  edits: Array<{ start: number; end: number; bytes: Buffer }>;
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

export { CALL_INCOMPLETE, HELD_TOO_LARGE } from '../restore/restore-sink.ts';

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
        // Registered secrets are >= 0, detected credentials <= -2 (they have no hosts of their own: only
        // the global allow list applies to them), unknown -1.
        const secret = set.secretForId(probe.id);
        if (secret !== -1) {
          rawOffsets.push(i);
          secrets.push(secret);
          i += PLACEHOLDER_LENGTH - 1;
          continue;
        }
      }
      // A cut-off placeholder here means the call is incomplete: it is never restored either way. A whole
      // one that is not restorable is another group's value (withheld) or not this tenant's (a miss).
      if (probe.kind === 'full' && countMisses) countUnrestored(set, probe.id, stats);
      else if (probe.kind !== 'none' && countMisses) stats.misses++;
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
      if (rawOffsets.length === 0) return { parts: [raw], edits: [], restored: 0, withheld: 0 };
      const decoded = unescapeLevels(raw, rawOffsets, call.depth);
      const occurrences = secrets.map((secret, k) => ({ offset: decoded?.offsets[k] ?? 0, secret }));
      const decisions = decoded === undefined
        ? secrets.map((): Decision => ({ restore: false, reason: MALFORMED }))
        : classifyToolCall({ format: call.format, name: call.name, input: call.kind, bytes: decoded.bytes, occurrences }, policy);
      const depths = lexedDepths(raw, rawOffsets, call.depth);
      const parts: Buffer[] = [];
      const edits: GateResult['edits'] = [];
      let pos = 0;
      let restored = 0;
      let held = 0;
      decisions.forEach((d, k) => {
        const secret = secrets[k] as number;
        const depth = depths[k] as number;
        if (d.restore && depth < 1) {
          // Not inside a string (or too deep to know): no value is written where its escaping is unknown.
          if (count) stats.misses++;
          held++;
          return;
        }
        if (!d.restore) {
          if (count) countWithheld(withheld, secret, d.reason);
          held++;
          return;
        }
        const at = rawOffsets[k] as number;
        if (at > pos) parts.push(raw.subarray(pos, at));
        const value = set.valueBytes(secret, depth);
        parts.push(value);
        edits.push({ start: at, end: at + PLACEHOLDER_LENGTH, bytes: value });
        if (count) bump(stats.restores, secret);
        pos = at + PLACEHOLDER_LENGTH;
        restored++;
      });
      if (restored === 0) return { parts: [raw], edits, restored, withheld: held };
      if (pos < raw.length) parts.push(raw.subarray(pos));
      return { parts, edits, restored, withheld: held };
    },
  };
}

/**
 * The string depth of each placeholder in `raw`, read by the restorer's forward lexer from the arguments'
 * first byte (inside a string when `depth` is 1): the depth a restore without the rule would have used, so
 * a value lands escaped for exactly where it sits (JSON text nested in a string argument included).
 * DEPTH_UNKNOWN (nested too deep) is never restored.
 */
function lexedDepths(raw: Buffer, offsets: readonly number[], depth: number): number[] {
  const lexer = new JsonLexer('value');
  if (depth > 0) lexer.enterString();
  const out: number[] = [];
  let at = 0;
  for (const o of offsets) {
    lexer.advance(raw, at, o + 1);
    at = o + 1;
    out.push(depth > 1 ? DEPTH_UNKNOWN : lexer.depth());
  }
  return out;
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
