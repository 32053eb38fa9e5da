// Reads one string of a tool call and lists what would carry a restored value over the network: named
// destinations (URLs, hosts, IPs, socket paths) and the things that hide one (a network client or code
// whose destination is not written out, a command built at run time, code piped into an interpreter).
// Nested code (`sh -c '…'`, `eval`, here-documents, `python -c`) is read from a work list, depth-bounded.

import { CLIENTS, ENCODED_COMMAND_OPTIONS, INTERPRETERS, KEYWORDS, SHELLS, WRAPPERS, commandName, findClientWord, findNetworkCode, hasDynamicCode, interpreterName } from './clients.ts';
import { parseShell, type ShellSegment, type ShellWord } from './shell-parse.ts';
import { hostFinding, scanFetchValue, scanHosts, scanSocketPaths, scanUrls, type Finding, type NetworkContext } from './text-scan.ts';

/** How a string is read: a command line, a line of a file being written, free text, or a fetch tool's URL. */
export type TextRole = 'command' | 'file-line' | 'prose' | 'fetch-url';

/** Levels of nested code read (`bash -c "sh -c '…'"`); deeper nesting is itself a reason to withhold. */
export const MAX_CODE_DEPTH = 4;

/** A command whose name is computed at run time (`$X …`, `$(echo curl) …`). */
export const DYNAMIC_COMMAND = 'obfuscated:dynamic-command';
/** A shell or interpreter reading its program from a pipe (`… | base64 -d | sh`). */
export const PIPE_TO_INTERPRETER = 'obfuscated:pipe-to-interpreter';
/** Inline code that decodes or evaluates code at run time (`exec(b64decode(…))`). */
export const DYNAMIC_CODE = 'obfuscated:dynamic-code';
/** PowerShell's base64 `-EncodedCommand`. */
export const ENCODED_COMMAND = 'obfuscated:encoded-command';
/** Code nested deeper than MAX_CODE_DEPTH (or the shell reader's MAX_NESTING). */
export const TOO_DEEP = 'obfuscated:nesting';

/** A network client or network code whose destination is not written out. */
export const clientReason = (label: string): string => `client:${label}`;

interface WorkItem {
  kind: 'shell' | 'code';
  text: string;
  /** Offset of `text` in the analysed string (exact) or of the word it came from (not exact). */
  base: number;
  exact: boolean;
  depth: number;
}

/** Everything in `text` that sends data somewhere, in no particular order. */
export function analyseText(text: string, role: TextRole): Finding[] {
  const out: Finding[] = [];
  if (role === 'prose' || role === 'fetch-url') {
    if (role === 'fetch-url') scanFetchValue(text, 0, out);
    scanUrls(text, 0, out);
    scanSocketPaths(text, 0, out);
    scanHosts(text, 0, out);
    return out;
  }
  // Only the earliest finding of each reason matters to the decision: keeping one per reason keeps a
  // command of 100,000 tiny pipelines from building 100,000 findings twice over.
  const earliest = new Map<string, Finding>();
  const work: WorkItem[] = [{ kind: 'shell', text, base: 0, exact: true, depth: 0 }];
  while (work.length > 0) {
    const item = work.pop() as WorkItem;
    const found: Finding[] = [];
    if (item.depth > MAX_CODE_DEPTH) found.push({ reason: TOO_DEEP, host: undefined, start: 0 });
    else if (item.kind === 'shell') analyseShell(item, found, work);
    else analyseCode(item.text, found);
    for (const f of found) {
      const start = item.exact ? item.base + f.start : item.base;
      const prev = earliest.get(f.reason);
      if (prev === undefined || start < prev.start) earliest.set(f.reason, { reason: f.reason, host: f.host, start });
    }
  }
  for (const f of earliest.values()) {
    // A line of a file is not run as it is written: computed commands there are not a destination.
    if (role !== 'file-line' || !f.reason.startsWith('obfuscated:')) out.push(f);
  }
  return out;
}

function analyseShell(item: WorkItem, out: Finding[], work: WorkItem[]): void {
  const { text } = item;
  scanUrls(text, 0, out);
  scanSocketPaths(text, 0, out);
  const parsed = parseShell(text);
  if (parsed.overflow) out.push({ reason: TOO_DEEP, host: undefined, start: 0 });
  const clientSpans: Array<[number, number]> = [];
  const segments = parsed.segments.map((seg) => {
    const info = inspectSegment(seg, text, item, work);
    if (info.client !== undefined) clientSpans.push([seg.start, seg.end]);
    for (const m of info.markers) out.push({ reason: m, host: undefined, start: seg.start });
    return { seg, info };
  });
  // Network calls in code written on the command line (`fetch(`, `requests.post(`) name a client even when
  // the shell reading splits them (the `(` ends a word).
  const codeClient = findNetworkCode(text);
  if (codeClient !== undefined) clientSpans.push([0, text.length]);
  scanHosts(text, 0, out, spanContext(clientSpans));
  // Where destinations were named in the text itself, to tell a client that names one from one that does not.
  const named = out.filter(namesDestination).map((f) => f.start).sort((a, b) => a - b);
  if (codeClient !== undefined && named.length === 0 && !segments.some(({ info }) => info.client !== undefined)) {
    out.push({ reason: clientReason(codeClient), host: undefined, start: 0 });
  }
  for (const { seg, info } of segments) {
    let namedHere = anyWithin(named, seg.start, seg.end);
    for (const w of seg.words) {
      if (w.literal) continue;
      const local: Finding[] = [];
      scanUrls(w.value, 0, local);
      scanSocketPaths(w.value, 0, local);
      scanHosts(w.value, 0, local, () => info.client !== undefined);
      for (const f of local) {
        out.push({ ...f, start: w.start });
        if (namesDestination(f)) namedHere = true;
      }
    }
    const client = info.client;
    if (client === undefined) continue;
    if (client.implicitHost !== undefined) out.push(hostFinding(client.implicitHost, seg.start));
    else if (!namedHere || client.computedArgument) out.push({ reason: clientReason(client.label), host: undefined, start: seg.start });
  }
}

const namesDestination = (f: Finding): boolean => f.host !== undefined || f.reason.startsWith('unreadable:');

/** True when a sorted list holds a value in [from, to]. */
function anyWithin(sorted: readonly number[], from: number, to: number): boolean {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid] as number) < from) lo = mid + 1;
    else hi = mid;
  }
  return lo < sorted.length && (sorted[lo] as number) <= to;
}

const NO_WORDS: ShellWord[] = [];

interface SegmentInfo {
  client: { label: string; implicitHost: string | undefined; computedArgument: boolean } | undefined;
  markers: string[];
}

/** Where nested code found in a segment goes: the work list, with the item it was found in. */
interface Nest {
  item: WorkItem;
  work: WorkItem[];
}

function pushNested(nest: Nest, kind: 'shell' | 'code', w: { value: string; start: number; literal: boolean }): void {
  nest.work.push(nestedItem(nest.item, kind, w.value, w.start, w.literal));
}

/** Finds the command of a segment and what it means for the network; queues nested code. */
function inspectSegment(seg: ShellSegment, text: string, item: WorkItem, work: WorkItem[]): SegmentInfo {
  const markers: string[] = [];
  const nest: Nest = { item, work };
  const words = withoutRedirects(seg.words);
  let k = 0;
  while (k < words.length && isAssignment(words[k] as ShellWord)) k++;
  // Keywords and wrappers (`sudo -u x`, `timeout 5`, `xargs -I{}`) come before the real command.
  for (;;) {
    const w = words[k];
    if (w === undefined || w.expansion) break;
    const name = commandName(w.value);
    if (KEYWORDS.has(name)) {
      k++;
      continue;
    }
    const takesValue = WRAPPERS.get(name);
    if (takesValue === undefined) break;
    k++;
    while (k < words.length) {
      const a = words[k] as ShellWord;
      if (a.value.startsWith('-')) k += takesValue.has(a.value) ? 2 : 1;
      else if (isAssignment(a) || (a.value.length <= 16 && /^[0-9.]+[smhd]?$/.test(a.value))) k++;
      else break;
    }
  }
  // PowerShell sets variables with `$env:NAME = '…'` (Codex and Gemini CLI on Windows): it runs nothing.
  const first = words[k];
  if (first !== undefined && first.value.startsWith('$env:') && /^\$env:[A-Za-z_][A-Za-z0-9_]*(=|$)/.test(first.value.slice(0, 256)) && (first.value.includes('=') || words[k + 1]?.value.startsWith('=') === true)) k = words.length;
  const cmd = words[k];
  const args = k + 1 < words.length ? words.slice(k + 1) : NO_WORDS;
  let heredocKind: 'shell' | 'code' = 'shell';
  let client: SegmentInfo['client'];
  if (cmd !== undefined) {
    if (cmd.expansion || cmd.procSubst) markers.push(DYNAMIC_COMMAND);
    const name = commandName(cmd.value);
    const interpreter = interpreterName(name);
    if (SHELLS.has(name)) inspectShellCommand(args, seg, markers, nest);
    else if (name === 'eval') {
      let joined = '';
      for (const a of args) {
        if (a.expansion) markers.push(DYNAMIC_COMMAND);
        joined += joined === '' ? a.value : ` ${a.value}`;
      }
      const a0 = args[0];
      if (a0 !== undefined) pushNested(nest, 'shell', { value: joined, start: a0.start, literal: false });
    } else if (name === 'source' || name === '.') {
      const a = args[0];
      if (a !== undefined && (a.expansion || a.procSubst || (seg.piped && isStdin(a.value)))) markers.push(DYNAMIC_COMMAND);
    } else if (interpreter !== undefined) {
      heredocKind = 'code';
      inspectInterpreter(interpreter, args, seg, markers, nest);
    }
    const spec = CLIENTS.get(name);
    if (spec !== undefined && !cmd.expansion) {
      const when = spec.when === undefined ? '' : subcommandIn(args, spec.when);
      if (when !== undefined) client = { label: when === '' ? name : `${name}-${when}`, implicitHost: spec.implicitHost, computedArgument: false };
    }
  }
  for (const h of seg.heredocs) work.push(nestedItem(item, heredocKind, text.slice(h.start, h.end), h.start, true));
  if (client === undefined) {
    for (const w of seg.words) {
      const label = findClientWord(w.value) ?? findNetworkCode(w.value);
      if (label !== undefined) {
        client = { label, implicitHost: undefined, computedArgument: false };
        break;
      }
    }
  }
  // A destination computed at run time (`curl "$URL"`, `curl $(cat /tmp/u)`) cannot be checked against the list.
  if (client !== undefined) {
    for (const a of args) if (a.leadingExpansion || a.procSubst) client.computedArgument = true;
  }
  return { client, markers };
}

function withoutRedirects(words: ShellWord[]): ShellWord[] {
  for (const w of words) if (w.redirect !== undefined) return words.filter((x) => x.redirect === undefined);
  return words;
}

/** The first argument that is one of `when` (lowercased), or undefined. */
function subcommandIn(args: readonly ShellWord[], when: ReadonlySet<string>): string | undefined {
  for (const a of args) {
    const v = a.value.toLowerCase();
    if (when.has(v)) return v;
  }
  return undefined;
}

function inspectShellCommand(args: ShellWord[], seg: ShellSegment, markers: string[], nest: Nest): void {
  let codeAt = -1;
  for (let j = 0; j < args.length && codeAt === -1; j++) {
    const v = (args[j] as ShellWord).value;
    if ((v.length <= 16 && /^-[a-zA-Z]*c[a-zA-Z]*$/.test(v)) || v === '--command') codeAt = j;
  }
  if (codeAt !== -1) {
    const code = args[codeAt + 1];
    if (code !== undefined) {
      if (code.expansion) markers.push(DYNAMIC_COMMAND);
      pushNested(nest, 'shell', code);
    }
    return;
  }
  const script = firstOperand(args);
  let stdinScript = false;
  for (const a of args) if (a.value === '-s') stdinScript = true;
  if (script?.procSubst === true) markers.push(DYNAMIC_COMMAND);
  else if (seg.piped && (script === undefined || isStdin(script.value) || stdinScript)) markers.push(PIPE_TO_INTERPRETER);
  for (const w of seg.words) {
    if (w.redirect === '<<<') {
      if (w.expansion) markers.push(DYNAMIC_COMMAND);
      pushNested(nest, 'shell', w);
    }
  }
}

/** The first word that is not an option (`-` alone counts: it means stdin). */
function firstOperand(args: readonly ShellWord[]): ShellWord | undefined {
  for (const a of args) if (!a.value.startsWith('-') || a.value === '-') return a;
  return undefined;
}

function inspectInterpreter(name: string, args: ShellWord[], seg: ShellSegment, markers: string[], nest: Nest): void {
  const flags = INTERPRETERS.get(name) as ReadonlySet<string>;
  const powershell = name === 'pwsh' || name === 'powershell';
  let code: ShellWord | undefined;
  let module = false;
  for (let j = 0; j < args.length && code === undefined; j++) {
    const a = args[j] as ShellWord;
    const flag = a.value.toLowerCase();
    if (powershell && ENCODED_COMMAND_OPTIONS.has(flag)) markers.push(ENCODED_COMMAND);
    if (a.value === '-m') module = true;
    if (flags.has(flag)) code = args[j + 1];
    // `python3 -c'…'`, `perl -e'…'`: the code is attached to a short option.
    else if (a.value.length > 2 && flags.has(a.value.slice(0, 2))) code = { ...a, value: a.value.slice(2), literal: false };
  }
  if (code === undefined && name.endsWith('awk')) code = firstOperand(args);
  if (code !== undefined) {
    if (code.expansion) markers.push(DYNAMIC_CODE);
    pushNested(nest, 'code', code);
    return;
  }
  if (module) return;
  const script = firstOperand(args);
  if (script?.procSubst === true) markers.push(DYNAMIC_COMMAND);
  else if (seg.piped && (script === undefined || isStdin(script.value))) markers.push(PIPE_TO_INTERPRETER);
}

/** Inline code of an interpreter: destinations, network calls without one, code built at run time, shell-outs. */
function analyseCode(code: string, out: Finding[]): void {
  const before = out.length;
  scanUrls(code, 0, out);
  scanSocketPaths(code, 0, out);
  const network = findNetworkCode(code) ?? findClientWord(code);
  scanHosts(code, 0, out, () => network !== undefined);
  if (hasDynamicCode(code)) out.push({ reason: DYNAMIC_CODE, host: undefined, start: 0 });
  if (network !== undefined && !out.slice(before).some((f) => f.host !== undefined || f.reason.startsWith('unreadable:'))) {
    out.push({ reason: clientReason(network), host: undefined, start: 0 });
  }
}

function isAssignment(w: ShellWord): boolean {
  const eq = w.value.indexOf('=');
  return eq > 0 && eq <= 256 && /^[A-Za-z_][A-Za-z0-9_]*\+?$/.test(w.value.slice(0, eq)) && !w.leadingExpansion;
}

function isStdin(v: string): boolean {
  return v === '-' || v === '/dev/stdin' || v === '/proc/self/fd/0' || v === '/dev/fd/0';
}

/** A sub-string found at `start` of `parent`'s text, as a work item with its offset in the analysed string. */
function nestedItem(parent: WorkItem, kind: 'shell' | 'code', text: string, start: number, literal: boolean): WorkItem {
  const exact = parent.exact && literal;
  return { kind, text, base: parent.exact ? parent.base + start : parent.base, exact, depth: parent.depth + 1 };
}

/** Whether an offset lies in one of the spans (network commands), for the bare-host scan. */
function spanContext(spans: ReadonlyArray<readonly [number, number]>): NetworkContext {
  if (spans.length === 0) return () => false;
  // Segments nest (`$(…)` inside a command): merge them into disjoint spans, then binary-search.
  const sorted = [...spans].sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [s, e] of sorted) {
    const last = merged[merged.length - 1];
    if (last !== undefined && s <= last[1]) last[1] = Math.max(last[1], e);
    else merged.push([s, e]);
  }
  return (offset) => {
    let lo = 0;
    let hi = merged.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const [s, e] = merged[mid] as [number, number];
      if (offset < s) hi = mid - 1;
      else if (offset > e) lo = mid + 1;
      else return true;
    }
    return false;
  };
}
