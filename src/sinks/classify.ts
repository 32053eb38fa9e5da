// The sink-aware restore rule (DESIGN §10, issue 15) for one complete tool call: each placeholder in its
// arguments is restored unless the call names a network destination outside the allow list for that
// secret. Tools that run or fetch (and unknown tools) withhold for a destination anywhere in the call;
// tools that write files withhold only for one on the same line. When unsure, withhold.

import { PLACEHOLDER_FIRST_BYTE, PLACEHOLDER_LENGTH } from '../redact/placeholder.ts';
import { analyseText } from './analyse.ts';
import { parseJsonArguments, type ArgString, type ParsedArguments } from './json-args.ts';
import type { RestorePolicy } from './policy.ts';
import { SECRET_IN_HOSTNAME, type Finding } from './text-scan.ts';
import { TLDS } from './tlds.ts';
import { classifyJsonTool, classifyTextTool, roleOf, typesIntoScreen } from './tool-kinds.ts';
import { mcpReason, type McpTarget } from '../mcp/servers.ts';

/** One complete tool call as the restorer sees it. */
export interface ToolCallInput {
  /** Wire format it came in (for logs; the rule is the same in every format). */
  format: string;
  /** The tool name ('' when unknown: then it is a tool that runs). */
  name: string;
  /** `json`: function-call arguments (JSON text); `text`: a custom tool's free-form input (Codex apply_patch). */
  input: 'json' | 'text';
  /** The complete arguments as UTF-8, decoded from the wire one level (JSON text, or the raw input). */
  bytes: Buffer;
  /** Placeholders in `bytes`: ascending byte offsets of their `~`, with the secret (set index) each one stands for. */
  occurrences: ReadonlyArray<{ offset: number; secret: number }>;
  /** A provider-hosted MCP tool: the server label the call names and its host from the request (undefined: not declared there). */
  hosted?: { server: string; host: string | undefined };
}

/** Restore the value, or leave the placeholder and say why. */
export type Decision = { restore: true } | { restore: false; reason: string };

const RESTORE: Decision = { restore: true };
/** `restore.toolCalls = "never"`. */
export const MODE_NEVER = 'mode:never';
/** Arguments that are not JSON, or offsets that are not placeholders. */
export const MALFORMED = 'malformed:arguments';
/** A computer-use tool: what it types goes to whatever is on the screen, a destination the call never names. */
export const IMPLICIT_DESTINATION = 'unsure:implicit-destination';
/** More text than MAX_ANALYSED_CHARS to read. */
export const TOO_LARGE = 'unsure:too-large';

/**
 * Most text (UTF-16 units) read per call: every string of a command-running call, or the lines holding
 * placeholders in a file write. Real commands are far smaller (Linux caps a command line at 2 MiB, agents'
 * commands run to a few KiB); hostile ones cost ~0.3 ms per KiB to read here under load, so past this the
 * rest is withheld instead of read (a 1 MiB command of tiny pipelines took ~1 s at load 12).
 */
export const MAX_ANALYSED_CHARS = 256 * 1024;

/** Decides, per occurrence (same order), whether its value may be restored. Linear in the call's size. */
export function classifyToolCall(call: ToolCallInput, policy: RestorePolicy): Decision[] {
  return classifyToolCallDetailed(call, policy).decisions;
}

/** classifyToolCall, with the arguments as read (undefined when they were not needed or not readable). */
export function classifyToolCallDetailed(call: ToolCallInput, policy: RestorePolicy): { decisions: Decision[]; parsed: ParsedArguments | undefined } {
  const n = call.occurrences.length;
  if (n === 0) return { decisions: [], parsed: undefined };
  if (policy.mode === 'all') return { decisions: call.occurrences.map(() => RESTORE), parsed: undefined };
  if (policy.mode === 'never') return { decisions: call.occurrences.map(() => withhold(MODE_NEVER)), parsed: undefined };
  if (typesIntoScreen(call.name)) return { decisions: call.occurrences.map(() => withhold(IMPLICIT_DESTINATION)), parsed: undefined };
  // An MCP tool: a remote server's is a call to its host; one of a server nobody declared is withheld.
  const target = mcpTargetOf(call, policy);
  if (target?.kind === 'unknown' || (target?.kind === 'remote' && target.host === undefined)) {
    return { decisions: call.occurrences.map(() => withhold(mcpReason(target.server, undefined))), parsed: undefined };
  }
  const server = target?.kind === 'remote' && target.host !== undefined ? { host: target.host, reason: mcpReason(target.server, target.host) } : undefined;
  return decideAll(call, policy, n, server);
}

/** The MCP server a call goes to: the hosted server it names, or the server its tool name belongs to. */
function mcpTargetOf(call: ToolCallInput, policy: RestorePolicy): McpTarget | undefined {
  if (call.hosted !== undefined) {
    const { server, host } = call.hosted;
    return host === undefined ? { server, kind: 'unknown' } : { server, kind: 'remote', host };
  }
  return policy.mcp.resolveTool(call.name);
}

/** A host every placeholder of the call reaches whatever its arguments say (a remote MCP server), with the reason to withhold it under. */
interface FixedDestination {
  host: string;
  reason: string;
}

function decideAll(call: ToolCallInput, policy: RestorePolicy, n: number, server?: FixedDestination): { decisions: Decision[]; parsed: ParsedArguments | undefined } {
  const offsets = call.occurrences.map((o) => o.offset);
  // Each offset must be a placeholder's `~` and come after the previous one; anything else is a caller bug
  // that must not turn into a restore.
  for (let k = 0; k < n; k++) {
    const at = offsets[k] as number;
    if (call.bytes[at] !== PLACEHOLDER_FIRST_BYTE || (k > 0 && at <= (offsets[k - 1] as number))) return { decisions: call.occurrences.map(() => withhold(MALFORMED)), parsed: undefined };
  }
  const parsed = call.input === 'json' ? parseJsonArguments(call.bytes, offsets) : textArguments(call.bytes, offsets);
  if (parsed === undefined) return { decisions: call.occurrences.map(() => withhold(MALFORMED)), parsed: undefined };
  // An MCP tool is never a file write of the agent's, whatever its arguments look like.
  const mcpTool = server !== undefined || call.hosted !== undefined || policy.mcp.resolveTool(call.name) !== undefined;
  const write = !mcpTool && (call.input === 'json' ? classifyJsonTool(call.name, parsed) : classifyTextTool(call.name, parsed.strings[0]?.text ?? '')) === 'write';
  const decisions: Decision[] = new Array<Decision>(n).fill(RESTORE);

  if (!write) {
    let size = 0;
    for (const s of parsed.strings) size += s.text.length;
    if (size > MAX_ANALYSED_CHARS) return { decisions: call.occurrences.map(() => withhold(TOO_LARGE)), parsed };
    // A destination anywhere in the call counts for every placeholder in it.
    const findings: Finding[] = [];
    const argv: string[] = [];
    for (const s of parsed.strings) {
      const role = roleOf(call.name, s.parent, s.isKey);
      // A command given as an argument vector (Codex `shell`: ["bash", "-lc", "…"]) is read as one command line.
      if (role === 'command' && !s.isKey && s.parent === s.top && parsed.topTypes.get(s.top) === 'array') argv.push(shellQuote(s.text));
      else for (const f of analyseText(s.text, role)) findings.push(f);
    }
    if (argv.length > 0) for (const f of analyseText(argv.join(' '), 'command')) findings.push(f);
    const decide = createDecider(findings, policy, server);
    for (const s of parsed.strings) {
      for (const o of s.occurrences) decisions[o.index] = inHostname(s.text, o.at) ? withhold(SECRET_IN_HOSTNAME) : decide(call.occurrences[o.index]?.secret ?? -1);
    }
    return { decisions, parsed };
  }
  // A file write: only the (logical) line the placeholder is on.
  const patch = call.input === 'text' || call.name === 'apply_patch';
  let budget = MAX_ANALYSED_CHARS;
  for (const s of parsed.strings) {
    if (s.occurrences.length === 0) continue;
    const lines = lineStarts(s.text);
    let li = 0;
    let cached: { start: number; decide: (secret: number) => Decision } | undefined;
    for (const o of s.occurrences) {
      while (li + 1 < lines.length && (lines[li + 1] as number) <= o.at) li++;
      const start = lines[li] as number;
      if (cached?.start !== start) {
        const end = li + 1 < lines.length ? (lines[li + 1] as number) : s.text.length;
        let line = s.text.slice(start, end);
        // A patch line starts with its marker (`+`, `-`, ` `); the file line is what follows.
        if (patch && (line.startsWith('+') || line.startsWith('-') || line.startsWith(' '))) line = ` ${line.slice(1)}`;
        budget -= line.length;
        cached = { start, decide: budget < 0 ? () => withhold(TOO_LARGE) : createDecider(analyseText(line, 'file-line'), policy) };
      }
      decisions[o.index] = inHostname(s.text, o.at) ? withhold(SECRET_IN_HOSTNAME) : cached.decide(call.occurrences[o.index]?.secret ?? -1);
    }
  }
  return { decisions, parsed };
}

function withhold(reason: string): Decision {
  return { restore: false, reason };
}

/**
 * The decision for each secret over a set of findings: withheld for the first named host (in text order)
 * not allowed for it, else for the first unreadable destination, else restored. Hosts are de-duplicated and
 * the answer for secrets without hosts of their own is computed once, so a call with many placeholders and
 * many destinations stays linear.
 */
function createDecider(findings: readonly Finding[], policy: RestorePolicy, fixed?: FixedDestination): (secret: number) => Decision {
  const firstSeen = new Map<string, number>();
  let marker: Finding | undefined;
  for (const f of findings) {
    if (f.host !== undefined) {
      const prev = firstSeen.get(f.host);
      if (prev === undefined || f.start < prev) firstSeen.set(f.host, f.start);
    } else if (marker === undefined || f.start < marker.start) marker = f;
  }
  const hosts = [...firstSeen].sort((a, b) => a[1] - b[1]).map(([h]) => h);
  const cache = new Map<number, Decision>();
  const compute = (secret: number): Decision => {
    if (fixed !== undefined && !policy.allows(secret, fixed.host)) return withhold(fixed.reason);
    for (const h of hosts) if (!policy.allows(secret, h)) return withhold(`network:${h}`);
    return marker === undefined ? RESTORE : withhold(marker.reason);
  };
  const generic = (): Decision => {
    let d = cache.get(-1);
    if (d === undefined) {
      d = compute(-1);
      cache.set(-1, d);
    }
    return d;
  };
  return (secret) => {
    if (!policy.hasOwnHosts(secret)) return generic();
    let d = cache.get(secret);
    if (d === undefined) {
      d = compute(secret);
      cache.set(secret, d);
    }
    return d;
  };
}

/**
 * A placeholder that is (part of) a host name: followed by `.name.tld`, or right after `//`, `@` or a socket
 * path. Resolving that name sends the value to DNS resolvers, so no allow list makes it safe.
 */
function inHostname(text: string, at: number): boolean {
  const before = text.slice(Math.max(0, at - 9), at);
  let i = at + PLACEHOLDER_LENGTH;
  if (before.endsWith('@') || before.endsWith('/dev/tcp/') || before.endsWith('/dev/udp/')) return true;
  if (before.endsWith('//')) {
    // `https://<ph>@host` is the user part of the URL; `https://<ph>` or `https://<ph>.x` is its host.
    const limit = Math.min(text.length, i + 256);
    while (i < limit && !/[\s/?#"'`@]/.test(text[i] as string)) i++;
    return text[i] !== '@';
  }
  if (text.charCodeAt(i) !== 0x2e) return false;
  const s = ++i;
  while (i < text.length && i - s < 254) {
    const c = text.charCodeAt(i);
    if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2e)) break;
    i++;
  }
  let name = text.slice(s, i);
  while (name.endsWith('.')) name = name.slice(0, -1);
  const tld = name.slice(name.lastIndexOf('.') + 1).toLowerCase();
  return tld.length > 0 && TLDS.has(tld);
}

/** Offsets where logical lines start: a line ending in `\` continues on the next (shell continuation). */
function lineStarts(text: string): number[] {
  const starts = [0];
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 0x0a && c !== 0x0d) {
      i++;
      continue;
    }
    const end = c === 0x0d && text.charCodeAt(i + 1) === 0x0a ? i + 2 : i + 1;
    if (text.charCodeAt(i - 1) !== 0x5c) starts.push(end);
    i = end;
  }
  return starts;
}

/** Single-quotes a word for a shell command line. */
function shellQuote(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}

/** A free-form input as one string, with byte offsets mapped to offsets in the decoded text. */
function textArguments(bytes: Buffer, offsets: readonly number[]): ParsedArguments | undefined {
  const parts: string[] = [];
  let length = 0;
  let from = 0;
  const occurrences: ArgString['occurrences'] = [];
  for (let k = 0; k < offsets.length; k++) {
    const at = offsets[k] as number;
    if (at < from || at >= bytes.length) return undefined;
    const piece = bytes.toString('utf8', from, at);
    parts.push(piece);
    length += piece.length;
    occurrences.push({ index: k, at: length });
    from = at;
  }
  parts.push(bytes.toString('utf8', from));
  return { strings: [{ text: parts.join(''), top: '', parent: '', isKey: false, occurrences }], topTypes: new Map(), rootIsObject: false };
}
