// An immutable, compiled snapshot of the registered secrets: one automaton over every form a value can
// take in outgoing bytes, plus the placeholder maps used by redaction and restore. Rebuilt off the hot
// path and swapped atomically, so a request never sees a half-built matcher. With detection on, the
// detectors' anchors join the same automaton (pattern ids from `anchorBase` on): a hit there is confirmed
// by its kind's grammar and the credential gets a negative secret index into the process-wide store of
// detected values, which every lookup below falls back to.

import type { Detector } from '../detect/detector.ts';
import { KINDS } from '../detect/kinds.ts';
import { kindOfSecret, type DetectedStore } from '../detect/store.ts';
import type { PatternFamily } from './matcher-build.ts';
import { createMatcher, type Matcher } from './matcher.ts';
import { jsonEscapeDepth } from './json-escape.ts';
import { derivePlaceholder, placeholderId } from './placeholder.ts';

/** JSON nesting levels whose escaped forms are compiled into the automaton (raw, in a string, in JSON text in a string, one more). */
export const FORM_DEPTHS = 4;

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
  tenant(name: string): { placeholder(fingerprint: string): string; open(id: string): string | undefined };
}

/** Marks a fingerprint two values share in a gateway set: never restored (a 2^-64 event per pair). */
export const AMBIGUOUS = -3;

/** What gateway tenant views of a set are built from (src/gateway/tenant-set.ts). */
export interface GatewayIndex {
  readonly scheme: TenantScheme;
  /** Fingerprint per secret index. */
  readonly fingerprints: readonly string[];
  /** Secret index per fingerprint (AMBIGUOUS when two values share one): one table for every tenant. */
  readonly byFingerprint: ReadonlyMap<string, number>;
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
  /** One automaton over every form of every value. */
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
  /** Name of a secret index for logs and messages: the registered name, or `detected:<kind>`. */
  nameFor(index: number): string;
  /** The (negative) secret index of a detected value, stored under its placeholder from this set's key. */
  detected(value: string, kind: number): number;
  /**
   * Gateway tenant views only: the secret a whole placeholder id names when `secretForId` refused it because
   * the tenant is not entitled to it (withheld `tenant:not-entitled`); -1 when it is not the tenant's at all.
   */
  deniedForId?(id: string): number;
  /** Gateway sets only: the source names a secret index comes from (detected values: `detected`). */
  sourcesOf?(index: number): readonly string[];
  /** Gateway sets (and their views) only: fingerprints, the shared table, entitlement classes, the scheme. */
  readonly gateway?: GatewayIndex;
}

const NO_HOSTS: readonly string[] = [];

/** Escape depths whose value bytes are cached per secret (restore rarely sees deeper strings). */
const CACHED_DEPTHS = 8;

/** Prefix of the names detected credentials are counted under (`detected:github-classic-pat`). */
export const DETECTED_PREFIX = 'detected:';

/** Compiles the secrets under a placeholder key. Entries with equal values share one placeholder. */
export function buildSecretSet(entries: readonly SecretInput[], placeholderKey: Uint8Array, detection?: Detection, scheme?: TenantScheme): SecretSet {
  const steps = secretSetSteps(entries, placeholderKey, detection, scheme);
  let next = steps.next();
  while (next.done !== true) next = steps.next(next.value === PAUSE ? undefined : createMatcher(next.value.patterns, next.value.families));
  return next.value;
}

/** A point where a build may give the event loop back, or the automaton it needs built. */
export type BuildStep = typeof PAUSE | { patterns: Buffer[]; families: PatternFamily[] };
export const PAUSE = 'pause' as const;
/** Items handled between two pause points (a few milliseconds of work at most). */
const PAUSE_EVERY = 512;

/**
 * The build of {@link buildSecretSet} as steps: it yields PAUSE now and then, and once the patterns for
 * the automaton, which the driver answers with the built matcher (in this thread, or in a worker:
 * src/redact/matcher-thread.ts).
 */
export function* secretSetSteps(
  entries: readonly SecretInput[],
  placeholderKey: Uint8Array,
  detection: Detection | undefined,
  scheme: TenantScheme | undefined,
): Generator<BuildStep, SecretSet, Matcher | undefined> {
  const byValue = new Map<string, number>();
  const names: string[][] = [];
  const values: string[] = [];
  const hosts: Array<Set<string> | undefined> = [];
  const origins: Array<Map<string, readonly string[]>> = [];
  let tick = 0;
  for (const e of entries) {
    if (++tick % PAUSE_EVERY === 0) yield PAUSE;
    const known = byValue.get(e.value);
    const index = known ?? values.length;
    if (known !== undefined) {
      const list = names[known] as string[];
      if (!list.includes(e.name)) list.push(e.name);
    } else {
      byValue.set(e.value, values.length);
      values.push(e.value);
      names.push([e.name]);
      hosts.push(undefined);
      if (scheme !== undefined) origins.push(new Map());
    }
    if (scheme !== undefined) {
      const own = origins[index] as Map<string, readonly string[]>;
      const source = e.source ?? 'unknown';
      own.set(source, [...(own.get(source) ?? []), ...(e.groups ?? [])]);
    }
    if (e.hosts !== undefined && e.hosts.length > 0) {
      const own = hosts[index] ?? new Set<string>();
      for (const h of e.hosts) own.add(h);
      hosts[index] = own;
    }
  }

  // A gateway set has no placeholders of its own: each request uses its tenant's (src/gateway/tenant-set.ts).
  const placeholders: string[] = [];
  if (scheme === undefined) {
    for (let i = 0; i < values.length; i++) {
      if (i % PAUSE_EVERY === PAUSE_EVERY - 1) yield PAUSE;
      placeholders.push(derivePlaceholder(placeholderKey, values[i] as string));
    }
  }
  const placeholderBytes = placeholders.map((p) => Buffer.from(p, 'latin1'));
  const idMap = new Map<string, number>();
  placeholders.forEach((p, i) => idMap.set(placeholderId(p), i));
  const gateway = scheme === undefined ? undefined : yield* buildGatewayIndex(scheme, values, origins);

  const patterns: Buffer[] = [];
  const patternSecret: number[] = [];
  const patternDepth: number[] = [];
  for (let i = 0; i < values.length; i++) {
    if (i % PAUSE_EVERY === PAUSE_EVERY - 1) yield PAUSE;
    const v = values[i] as string;
    const seen = new Set<string>();
    for (let depth = 0; depth < FORM_DEPTHS; depth++) {
      const form = jsonEscapeDepth(v, depth);
      if (seen.has(form)) continue;
      seen.add(form);
      patterns.push(Buffer.from(form, 'utf8'));
      patternSecret.push(i);
      patternDepth.push(depth);
    }
  }

  const anchorBase = patterns.length;
  const anchorOf: number[] = [];
  const anchorExtended: number[] = [];
  const lengths: number[] = patterns.map((p) => p.length);
  const families: PatternFamily[] = [];
  if (detection !== undefined) {
    // Each anchor joins as anchor + every byte that may follow it (a leaf of the trie, which costs no
    // table row): `AKIA` or `ghp_` followed by a space, as in prose about them, never traps the scan.
    // An anchor anything may follow joins as it is. Extended ones join as families (ids after the plain
    // patterns, in anchor order), which the automaton builds without writing ~11,000 members out.
    const plainAnchors: number[] = [];
    detection.detector.anchors.forEach((_a, id) => {
      if (detection.detector.follows[id]!.every((f) => f === 1)) plainAnchors.push(id);
    });
    for (const id of plainAnchors) {
      const a = detection.detector.anchors[id]!;
      patterns.push(Buffer.from(a));
      lengths.push(a.length);
      anchorOf.push(id);
      anchorExtended.push(0);
    }
    detection.detector.anchors.forEach((a, id) => {
      const follows = detection.detector.follows[id]!;
      if (follows.every((f) => f === 1)) return;
      families.push({ base: a, follows });
      for (let b = 0; b < 256; b++) {
        if (follows[b] !== 1) continue;
        lengths.push(a.length + 1);
        anchorOf.push(id);
        anchorExtended.push(1);
      }
    });
  }
  const matcher = (yield { patterns, families }) as Matcher;
  const bmp = new Uint8Array(0x10000);
  const astral = new Set<number>();
  tick = 0;
  for (const v of values) {
    if (++tick % PAUSE_EVERY === 0) yield PAUSE;
    for (const ch of v) {
      const cp = ch.codePointAt(0) as number;
      if (cp < 0x10000) bmp[cp] = 1;
      else astral.add(cp);
    }
  }
  const cache = new Map<number, Buffer>();
  const joinedNames = names.map((n) => n.join('|'));
  const store = detection?.store;
  const detector = detection?.detector;
  return {
    size: values.length,
    names: joinedNames,
    values,
    placeholders,
    placeholderBytes,
    hosts: hosts.map((h) => (h === undefined ? NO_HOSTS : [...h])),
    matcher,
    patternSecret: Int32Array.from(patternSecret),
    patternLength: Int32Array.from(lengths),
    patternDepth: Uint8Array.from(patternDepth),
    detection,
    anchorBase,
    anchorOf: Int32Array.from(anchorOf),
    anchorExtended: Uint8Array.from(anchorExtended),
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
    detected(value, kind) {
      if (store === undefined) throw new Error('secret set: detection is off');
      return store.intern(value, kind, placeholderKey);
    },
    ...(gateway === undefined
      ? {}
      : { gateway, sourcesOf: (index: number): readonly string[] => (index >= 0 ? (gateway.classSources[gateway.classOf[index] as number] as readonly string[]) : DETECTED_SOURCES) }),
    nameFor: (index) => (index >= 0 ? (joinedNames[index] as string) : `${DETECTED_PREFIX}${KINDS[kindOfSecret(index)]?.name ?? 'unknown'}`),
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

const DETECTED_SOURCES: readonly string[] = ['detected'];

/** Fingerprints, the one table every tenant's restore reads, and entitlement classes (one per combination of sources). */
function* buildGatewayIndex(scheme: TenantScheme, values: readonly string[], origins: ReadonlyArray<Map<string, readonly string[]>>): Generator<BuildStep, GatewayIndex, unknown> {
  const fingerprints: string[] = [];
  const byFingerprint = new Map<string, number>();
  for (let i = 0; i < values.length; i++) {
    if (i % PAUSE_EVERY === PAUSE_EVERY - 1) yield PAUSE;
    const fp = scheme.fingerprint(values[i] as string);
    fingerprints.push(fp);
    byFingerprint.set(fp, byFingerprint.has(fp) ? AMBIGUOUS : i);
  }
  const classIds = new Map<string, number>();
  const classSources: string[][] = [];
  const classGroups: string[][] = [];
  const classOf = new Int32Array(values.length);
  for (let i = 0; i < origins.length; i++) {
    if (i % PAUSE_EVERY === PAUSE_EVERY - 1) yield PAUSE;
    const own = origins[i] as Map<string, readonly string[]>;
    const sources = [...own.keys()].sort();
    const key = sources.join('\u0000');
    let id = classIds.get(key);
    if (id === undefined) {
      id = classSources.length;
      classIds.set(key, id);
      classSources.push(sources);
      classGroups.push([...new Set([...own.values()].flat())].sort());
    }
    classOf[i] = id;
  }
  return { scheme, fingerprints, byFingerprint, classOf, classSources, classGroups };
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
  const { anchorBase, detection } = set;
  const whole = start === 0 && end === buf.length;
  const region = whole || detection === undefined ? buf : buf.subarray(start, end);
  const onFound = (s: number, e: number, kind: number, value: string): void => push(s + (whole ? 0 : start), e + (whole ? 0 : start), set.detected(value, kind), -1);
  for (let i = 0; i < m.count; i++) {
    const pid = m.ids[i] as number;
    const hitEnd = m.ends[i] as number;
    const length = set.patternLength[pid] as number;
    if (pid < anchorBase) {
      push(hitEnd - length, hitEnd, set.patternSecret[pid] as number, set.patternDepth[pid] as number);
      continue;
    }
    if (detection === undefined) continue;
    // The pattern is the anchor, mostly with the byte after it.
    const k = pid - anchorBase;
    const shift = whole ? 0 : start;
    const anchor = set.anchorOf[k] as number;
    if (notes !== undefined && detection.detector.escapable[anchor] === 1) notes.escapableAnchor = true;
    detection.detector.confirm(region, anchor, hitEnd - length - shift, hitEnd - (set.anchorExtended[k] as number) - shift, onFound);
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
