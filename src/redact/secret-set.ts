// An immutable, compiled snapshot of the registered secrets: one automaton over every form a value can
// take in outgoing bytes, plus the placeholder maps used by redaction and restore. Rebuilt off the hot
// path and swapped atomically, so a request never sees a half-built matcher (the automaton itself is
// compiled on first use, in one synchronous step: see SecretSet.matcher). With detection on, the
// detectors' anchors join the same automaton (pattern ids from `anchorBase` on): a hit there is confirmed
// by its kind's grammar and the credential gets a negative secret index into the process-wide store of
// detected values, which every lookup below falls back to.

import type { Detector } from '../detect/detector.ts';
import type { Verdict } from '../detect/kind.ts';
import { KINDS } from '../detect/kinds.ts';
import { kindOfSecret, type DetectedStore } from '../detect/store.ts';
import type { PatternFamily } from './matcher-build.ts';
import { createMatcher, matcherFromTables, type Matcher } from './matcher.ts';
import { jsonEscapeDepth } from './json-escape.ts';
import { placeholderId } from './placeholder.ts';
import { buildSetTables, lookupFingerprint, type GatewayTables, type SetTables, type TablesInput } from './set-tables.ts';
import { runSteps, STEP_EVERY, type Steps } from '../util/steps.ts';

export { AMBIGUOUS, FORM_DEPTHS } from './set-tables.ts';

export interface SecretInput {
  name: string;
  value: string;
  /** Hosts (normalised allow-list patterns) this secret may be restored towards in tool calls. */
  hosts?: readonly string[] | undefined;
  /** Gateway: the source's name (`[[sources]]` name; other sources: their label). */
  source?: string | undefined;
  /** Gateway: the groups whose tenants may have it restored (`*`: every tenant; none: nobody). */
  groups?: readonly string[] | undefined;
}

/** A gateway's placeholder scheme (src/gateway/tenant-placeholder.ts): fingerprints and tenant keys. */
export interface TenantScheme {
  fingerprint(value: string): string;
  /** The key `fingerprint` is an HMAC under (src/redact/set-tables.ts computes the same in a worker). */
  readonly fingerprintKey: Uint8Array;
  tenant(name: string): { placeholder(fingerprint: string): string; open(id: string): string | undefined };
}

/** What gateway tenant views of a set are built from (src/gateway/tenant-set.ts). */
export interface GatewayIndex {
  readonly scheme: TenantScheme;
  /** The fingerprint of a secret index. */
  fingerprintOf(index: number): string;
  /** The secret index of a fingerprint (AMBIGUOUS when two values share it), -1 when unknown: one table for every tenant. */
  lookup(fingerprint: string): number;
  /** Per secret index, its entitlement class; per class, its source names and the union of their groups. */
  readonly classOf: Int32Array;
  readonly classSources: readonly (readonly string[])[];
  readonly classGroups: readonly (readonly string[])[];
}

/** What a gateway set's own placeholders are: a mask for log lines (a request uses its tenant's view). */
export const GATEWAY_MASK = Buffer.from('[redacted]', 'latin1');

/** What detected credentials do: get a placeholder, or leave the request to be blocked by the gate. */
export type DetectMode = 'redact' | 'block';

/** Detection as a set uses it: the detector (anchors, grammars), the process-wide store, the mode. */
export interface Detection {
  readonly detector: Detector;
  readonly store: DetectedStore;
  readonly mode: DetectMode;
}

export interface SecretSet {
  /** Number of distinct values. */
  readonly size: number;
  /** Display name per secret index (names sharing one value are joined with "|"). */
  readonly names: readonly string[];
  readonly values: readonly string[];
  readonly placeholders: readonly string[];
  readonly placeholderBytes: readonly Buffer[];
  /** Hosts each secret may be restored towards in tool calls (the union over the names sharing its value). */
  readonly hosts: readonly (readonly string[])[];
  /**
   * One automaton over every form of every value (and the detectors' anchors), compiled on first use:
   * with detection on it is most of a start's CPU (~11,700 anchor patterns), so `ficta serve` compiles
   * it just after its ready line (createFicta's listen) rather than before.
   */
  readonly matcher: Matcher;
  /** Pattern index → secret index. */
  readonly patternSecret: Int32Array;
  /** Pattern index → length in bytes. */
  readonly patternLength: Int32Array;
  /** Pattern index → JSON escaping depth of the form. */
  readonly patternDepth: Uint8Array;
  /** Secret index for a placeholder id (lowercase): >= 0 registered, <= -2 detected; -1 when unknown. */
  secretForId(id: string): number;
  /** True when some registered value contains the code point (decides whether a `\u` escape matters). */
  usesCodePoint(cp: number): boolean;
  /** The value escaped for `depth` JSON string levels, as bytes (cached). */
  valueBytes(index: number, depth: number): Buffer;
  /** Detection, when on. */
  readonly detection: Detection | undefined;
  /** Pattern ids from here on are detector anchors, each followed by one byte that may follow it. */
  readonly anchorBase: number;
  /** Per anchor pattern (pattern id - anchorBase): the anchor id, and 1 when the pattern has the byte after it. */
  readonly anchorOf: Int32Array;
  readonly anchorExtended: Uint8Array;
  /** Nothing to find and nothing to restore: no registered value and detection off. */
  readonly inert: boolean;
  /** Placeholder bytes of a secret index, registered or detected. */
  placeholderFor(index: number): Buffer;
  /** Name of a secret index for logs and messages: the registered name, or `detected:<kind>` (`…:unverified`). */
  nameFor(index: number): string;
  /** The (negative) secret index of a detected value, stored under its placeholder from this set's key. */
  detected(value: string, kind: number, unverified?: boolean): number;
  /** True for a detected value that failed its kind's checksum: redacted in `block` mode too, never blocked. */
  unverified(index: number): boolean;
  /**
   * Gateway tenant views only: the secret a whole placeholder id names when `secretForId` refused it because
   * the tenant is not entitled to it (withheld `tenant:not-entitled`); -1 when it is not the tenant's at all.
   */
  deniedForId?(id: string): number;
  /** Gateway sets only: the source names a secret index comes from (detected values: `detected`). */
  sourcesOf?(index: number): readonly string[];
  /** Gateway sets (and their views) only: fingerprints, the shared table, entitlement classes, the scheme. */
  readonly gateway?: GatewayIndex;
  /**
   * Secrets this view of the set lets through (a scoped set: values allowed to reach an MCP server's host):
   * redaction and the gate skip their hits. Undefined on a compiled set.
   */
  readonly exempt?: (secret: number) => boolean;
}

/** The same set, except that hits of secrets `exempt` says yes to are not found (redacted or gated). */
export function scopeSecretSet(set: SecretSet, exempt: (secret: number) => boolean): SecretSet {
  return { ...set, exempt };
}

const NO_HOSTS: readonly string[] = [];

/** Escape depths whose value bytes are cached per secret (restore rarely sees deeper strings). */
const CACHED_DEPTHS = 8;

/** Prefix of the names detected credentials are counted under (`detected:github-classic-pat`). */
export const DETECTED_PREFIX = 'detected:';

/** Suffix of the names of detected values that failed their kind's checksum (`detected:npm-token:unverified`). */
export const UNVERIFIED_SUFFIX = ':unverified';

/** Compiles the secrets under a placeholder key, in this thread. Entries with equal values share one placeholder. */
export function buildSecretSet(entries: readonly SecretInput[], placeholderKey: Uint8Array, detection?: Detection, scheme?: TenantScheme): SecretSet {
  return assembleSecretSet(entries, buildSetTables(setTablesInput(entries, placeholderKey, scheme)), placeholderKey, detection, scheme);
}

/** Detection's anchors as the automaton takes them, and the per-pattern tables that go with them. */
export interface AnchorTables {
  /** Anchors anything may follow, as patterns (ids right after the values' patterns). */
  plain: Uint8Array[];
  /** Anchors extended by each byte that may follow them (ids after the plain ones, in anchor order). */
  families: PatternFamily[];
  /** Per anchor pattern: its length, its anchor id, and 1 when it holds the byte after the anchor. */
  lengths: Int32Array;
  anchorOf: Int32Array;
  anchorExtended: Uint8Array;
}

const anchorCache = new WeakMap<Detector, AnchorTables>();

/** The anchor tables of a detector (computed once per detector). */
export function anchorTables(detector: Detector): AnchorTables {
  let t = anchorCache.get(detector);
  if (t !== undefined) return t;
  // Each anchor joins as anchor + every byte that may follow it (a leaf of the trie, which costs no table
  // row): `AKIA` or `ghp_` followed by a space, as in prose about them, never traps the scan. An anchor
  // anything may follow joins as it is. Extended ones join as families, which the automaton builds
  // without writing ~11,000 members out.
  const plain: Uint8Array[] = [];
  const families: PatternFamily[] = [];
  const lengths: number[] = [];
  const anchorOf: number[] = [];
  const anchorExtended: number[] = [];
  detector.anchors.forEach((a, id) => {
    if (!detector.follows[id]!.every((f) => f === 1)) return;
    plain.push(Buffer.from(a));
    lengths.push(a.length);
    anchorOf.push(id);
    anchorExtended.push(0);
  });
  detector.anchors.forEach((a, id) => {
    const follows = detector.follows[id]!;
    if (follows.every((f) => f === 1)) return;
    families.push({ base: a, follows });
    for (let b = 0; b < 256; b++) {
      if (follows[b] !== 1) continue;
      lengths.push(a.length + 1);
      anchorOf.push(id);
      anchorExtended.push(1);
    }
  });
  t = { plain, families, lengths: Int32Array.from(lengths), anchorOf: Int32Array.from(anchorOf), anchorExtended: Uint8Array.from(anchorExtended) };
  anchorCache.set(detector, t);
  return t;
}

/** What {@link buildSetTables} needs of the entries: their values in one string, and (gateway) their origins. */
export function setTablesInput(entries: readonly SecretInput[], placeholderKey: Uint8Array, scheme: TenantScheme | undefined): TablesInput {
  return runSteps(setTablesInputSteps(entries, placeholderKey, scheme));
}

/** {@link setTablesInput} as steps (a reload runs them in slices). */
export function* setTablesInputSteps(entries: readonly SecretInput[], placeholderKey: Uint8Array, scheme: TenantScheme | undefined): Steps<TablesInput> {
  const valueLengths = new Int32Array(entries.length);
  const parts: string[] = new Array<string>(entries.length);
  for (let i = 0; i < entries.length; i++) {
    if (i % STEP_EVERY === STEP_EVERY - 1) yield;
    const v = (entries[i] as SecretInput).value;
    parts[i] = v;
    valueLengths[i] = v.length;
  }
  yield;
  const input: TablesInput = { values: parts.join(''), valueLengths };
  yield;
  if (scheme === undefined) {
    input.placeholderKey = placeholderKey;
    return input;
  }
  // An origin is a source with its groups; entries of one source share one groups array, so the ids are
  // found without building a key per entry.
  const originOf = new Int32Array(entries.length);
  const origins: Array<{ source: string; groups: string[] }> = [];
  const bySource = new Map<string, Map<readonly string[] | undefined, number>>();
  const byKey = new Map<string, number>();
  for (let i = 0; i < entries.length; i++) {
    if (i % STEP_EVERY === STEP_EVERY - 1) yield;
    const e = entries[i] as SecretInput;
    const source = e.source ?? 'unknown';
    let forSource = bySource.get(source);
    if (forSource === undefined) bySource.set(source, (forSource = new Map()));
    let id = forSource.get(e.groups);
    if (id === undefined) {
      const groups = [...(e.groups ?? [])];
      const key = `${source}\u0000${groups.join('\u0000')}`;
      id = byKey.get(key);
      if (id === undefined) {
        id = origins.length;
        byKey.set(key, id);
        origins.push({ source, groups });
      }
      forSource.set(e.groups, id);
    }
    originOf[i] = id;
  }
  input.gateway = { fingerprintKey: scheme.fingerprintKey, originOf, origins };
  return input;
}

interface Compiled {
  matcher: Matcher;
  patternLength: Int32Array;
  anchorOf: Int32Array;
  anchorExtended: Uint8Array;
}

const EMPTY_INT32 = new Int32Array(0);
const EMPTY_UINT8 = new Uint8Array(0);

/**
 * The set from its tables (built here or in a worker) and the entries they were built from: names, hosts
 * and values are the entries' own. The automaton comes with the tables (a reload), or is compiled on first
 * use (the first set of a `serve`, where it is most of a start's CPU; see SecretSet.matcher).
 */
export function assembleSecretSet(entries: readonly SecretInput[], tables: SetTables, placeholderKey: Uint8Array, detection: Detection | undefined, scheme: TenantScheme | undefined): SecretSet {
  return runSteps(assembleSecretSetSteps(entries, tables, placeholderKey, detection, scheme));
}

/** {@link assembleSecretSet} as steps (a reload runs them in slices). */
export function* assembleSecretSetSteps(entries: readonly SecretInput[], tables: SetTables, placeholderKey: Uint8Array, detection: Detection | undefined, scheme: TenantScheme | undefined): Steps<SecretSet> {
  const { secretOf } = tables;
  // One string per secret (a second name joins as "a|b"), hosts only where an entry has some: no small
  // array per secret for the collector to copy while requests are in flight.
  const values: string[] = [];
  const names: string[] = [];
  let hosts: Map<number, Set<string>> | undefined;
  for (let i = 0; i < entries.length; i++) {
    if (i % STEP_EVERY === STEP_EVERY - 1) yield;
    const e = entries[i] as SecretInput;
    const index = secretOf[i] as number;
    if (index === values.length) {
      values.push(e.value);
      names.push(e.name);
    } else {
      const joined = names[index] as string;
      if (joined !== e.name && !joined.split('|').includes(e.name)) names[index] = `${joined}|${e.name}`;
    }
    if (e.hosts !== undefined && e.hosts.length > 0) {
      hosts ??= new Map();
      let own = hosts.get(index);
      if (own === undefined) hosts.set(index, (own = new Set()));
      for (const h of e.hosts) own.add(h);
    }
  }
  // A gateway set has no placeholders of its own: each request uses its tenant's (src/gateway/tenant-set.ts).
  const placeholders = tables.placeholders ?? [];
  const placeholderBytes = placeholders.map((p) => Buffer.from(p, 'latin1'));
  const idMap = new Map<string, number>();
  placeholders.forEach((p, i) => idMap.set(placeholderId(p), i));
  yield;
  const gateway = scheme === undefined || tables.gateway === undefined ? undefined : gatewayIndex(scheme, tables.gateway);

  const anchorBase = tables.patternLengths.length;
  // The anchors' tables are needed with the automaton, not before (serve's first set compiles after its ready line).
  const fromTables = (): Compiled => {
    const anchors = detection === undefined ? undefined : anchorTables(detection.detector);
    let patternLength = tables.patternLengths;
    if (anchors !== undefined) {
      patternLength = new Int32Array(anchorBase + anchors.lengths.length);
      patternLength.set(tables.patternLengths);
      patternLength.set(anchors.lengths, anchorBase);
    }
    return {
      matcher: tables.automaton !== undefined ? matcherFromTables(tables.automaton) : createMatcher(patternsOf(tables, anchors), anchors?.families ?? []),
      patternLength,
      anchorOf: anchors?.anchorOf ?? EMPTY_INT32,
      anchorExtended: anchors?.anchorExtended ?? EMPTY_UINT8,
    };
  };
  yield;
  let compiled: Compiled | undefined = tables.automaton !== undefined ? fromTables() : undefined;
  const compile = (): Compiled => (compiled ??= fromTables());
  const { bmp } = tables;
  const astral = new Set(tables.astral);
  const cache = new Map<number, Buffer>();
  yield;
  const hostLists: (readonly string[])[] = new Array<readonly string[]>(values.length).fill(NO_HOSTS);
  if (hosts !== undefined) for (const [index, own] of hosts) hostLists[index] = [...own];
  const store = detection?.store;
  const detector = detection?.detector;
  return {
    size: values.length,
    names: names,
    values,
    placeholders,
    placeholderBytes,
    hosts: hostLists,
    get matcher() {
      return compile().matcher;
    },
    get patternLength() {
      return compile().patternLength;
    },
    get anchorOf() {
      return compile().anchorOf;
    },
    get anchorExtended() {
      return compile().anchorExtended;
    },
    patternSecret: tables.patternSecret,
    patternDepth: tables.patternDepth,
    detection,
    anchorBase,
    inert: values.length === 0 && detection === undefined,
    secretForId: gateway !== undefined ? () => -1 : (id) => idMap.get(id) ?? store?.secretForId(id) ?? -1,
    usesCodePoint: (cp) =>
      (cp < 0x10000 ? bmp[cp] === 1 : astral.has(cp)) || detector?.usesCodePoint(cp) === true || store?.recallUsesCodePoint(cp) === true,
    placeholderFor(index) {
      if (gateway !== undefined) return GATEWAY_MASK;
      if (index >= 0) return placeholderBytes[index] as Buffer;
      const b = store?.placeholderBytes(index);
      if (b === undefined) throw new Error('secret set: a detected value was evicted while its request was being redacted');
      return b;
    },
    detected(value, kind, unverified) {
      if (store === undefined) throw new Error('secret set: detection is off');
      return store.intern(value, kind, placeholderKey, unverified);
    },
    unverified: (index) => index < -1 && store?.unverified(index) === true,
    nameFor(index) {
      if (index >= 0) return names[index] as string;
      const kind = (detector?.kinds ?? KINDS)[kindOfSecret(index)];
      const value = kind?.label === undefined ? undefined : store?.valueBytes(index, 0);
      if (value !== undefined && kind?.label !== undefined) return kind.label(value.toString('utf8'));
      return `${DETECTED_PREFIX}${kind?.name ?? 'unknown'}${store?.unverified(index) === true ? UNVERIFIED_SUFFIX : ''}`;
    },
    ...(gateway === undefined
      ? {}
      : { gateway, sourcesOf: (index: number): readonly string[] => (index >= 0 ? (gateway.classSources[gateway.classOf[index] as number] as readonly string[]) : DETECTED_SOURCES) }),
    valueBytes(index, depth) {
      if (index < 0) {
        const b = store?.valueBytes(index, depth);
        if (b === undefined) throw new Error('secret set: a detected value was evicted between its lookup and its restore');
        return b;
      }
      // The cache keys entries by index * 8 + depth: deeper forms (rare) are built each time, so a
      // depth of 8 or more never reads another secret's entry.
      if (depth >= CACHED_DEPTHS) return Buffer.from(jsonEscapeDepth(values[index] as string, depth), 'utf8');
      const k = index * CACHED_DEPTHS + depth;
      let b = cache.get(k);
      if (b === undefined) {
        b = Buffer.from(jsonEscapeDepth(values[index] as string, depth), 'utf8');
        cache.set(k, b);
      }
      return b;
    },
  };
}

/** The values' patterns (views into the tables' bytes), then the plain anchors. */
function patternsOf(tables: SetTables, anchors: AnchorTables | undefined): Uint8Array[] {
  const out: Uint8Array[] = [];
  let at = 0;
  for (const n of tables.patternLengths) {
    out.push(tables.patternBytes.subarray(at, at + n));
    at += n;
  }
  if (anchors !== undefined) for (const a of anchors.plain) out.push(a);
  return out;
}

const DETECTED_SOURCES: readonly string[] = ['detected'];

/** Fingerprint lookups over the tables' open-addressing table; classes as built. */
function gatewayIndex(scheme: TenantScheme, t: GatewayTables): GatewayIndex {
  const { fingerprints: fps, slots } = t;
  return {
    scheme,
    fingerprintOf: (index) => String.fromCharCode(fps[index * 4] as number, fps[index * 4 + 1] as number, fps[index * 4 + 2] as number, fps[index * 4 + 3] as number),
    lookup: (fp) => lookupFingerprint(fps, slots, fp),
    classOf: t.classOf,
    classSources: t.classSources,
    classGroups: t.classGroups,
  };
}

/**
 * Called for each occurrence found by {@link scanSecrets}: bytes [start, end) hold secret `secret`, in the
 * form escaped `depth` times (a registered value's compiled form), or -1 (a detected or recalled value).
 */
export type SecretHit = (start: number, end: number, secret: number, depth: number) => void;

/** What a scan noticed besides hits. */
export interface ScanNotes {
  /** An anchor of a kind whose values may hold a character JSON escapes hit (Detector.escapable). */
  escapableAnchor: boolean;
}

/**
 * Every occurrence in buf[start, end) of every registered value (in each compiled form), every
 * credential the detectors confirm at their anchors' hits, and every occurrence of a recalled detected
 * value: one automaton pass, plus one over the (small) recall automaton when it holds anything. A
 * detector reads only inside [start, end) (a decoded view's range is one string: a credential never runs
 * on into the next one). `notes`, when given, records what views.ts needs to know of the pass.
 */
export function scanSecrets(set: SecretSet, buf: Uint8Array, push: SecretHit, start = 0, end = buf.length, notes?: ScanNotes): void {
  const m = set.matcher.scan(buf, start, end);
  const { anchorBase, detection, patternLength, anchorOf, anchorExtended } = set;
  const escapable = detection?.detector.escapable;
  const whole = start === 0 && end === buf.length;
  const region = whole || detection === undefined ? buf : buf.subarray(start, end);
  const onFound = (s: number, e: number, kind: number, value: string, verdict: Verdict): void =>
    push(s + (whole ? 0 : start), e + (whole ? 0 : start), set.detected(value, kind, verdict === 'unverified'), -1);
  for (let i = 0; i < m.count; i++) {
    const pid = m.ids[i] as number;
    const hitEnd = m.ends[i] as number;
    const length = patternLength[pid] as number;
    if (pid < anchorBase) {
      push(hitEnd - length, hitEnd, set.patternSecret[pid] as number, set.patternDepth[pid] as number);
      continue;
    }
    if (detection === undefined) continue;
    // The pattern is the anchor, mostly with the byte after it.
    const k = pid - anchorBase;
    const shift = whole ? 0 : start;
    const anchor = anchorOf[k] as number;
    if (notes !== undefined && escapable?.[anchor] === 1) notes.escapableAnchor = true;
    detection.detector.confirm(region, anchor, hitEnd - length - shift, hitEnd - (anchorExtended[k] as number) - shift, onFound);
  }
  const recall = detection?.store.recall();
  if (recall === undefined) return;
  const r = recall.matcher.scan(buf, start, end);
  for (let i = 0; i < r.count; i++) {
    const pid = r.ids[i] as number;
    const hitEnd = r.ends[i] as number;
    push(hitEnd - (recall.lengths[pid] as number), hitEnd, recall.secrets[pid] as number, -1);
  }
}
