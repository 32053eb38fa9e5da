// Detected values for the life of the process: each gets the placeholder the keyed scheme gives it, so
// restore can turn the placeholder back into the value. Memory only, never persisted or logged, and
// bounded (least recently used first out, by count and by bytes). Values of kinds found only from their
// surroundings (URL passwords, AWS secret keys) are also searched for on their own afterwards, through
// a small automaton of their own, since a restored value comes back bare in the next turn's history.

import { FictaError } from '../errors.ts';
import { jsonEscapeDepth } from '../redact/json-escape.ts';
import { createMatcher, type Matcher } from '../redact/matcher.ts';
import { derivePlaceholder, placeholderId } from '../redact/placeholder.ts';
import { KIND_SLOTS } from './detector.ts';
import { KINDS } from './kinds.ts';

/** Default count bound: a long agent session meets a few dozen distinct credentials, not thousands. */
export const DEFAULT_MAX_ENTRIES = 4096;
/** Default byte bound on stored values (private key blocks are the large ones, ~3 KB each). */
export const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;
/** Recalled values, each in its four escape forms, kept in the recall automaton. */
export const MAX_RECALLED = 256;
/** A recalled value shorter than this would match ordinary text (the registry's rule for secrets). */
export const MIN_RECALL_LENGTH = 8;
/**
 * New values one request may bring (a synchronous stretch: its redaction, replacement and gate). Each
 * costs a keyed hash and an entry held until the request is done; a body of thousands of distinct
 * credentials is refused instead (~7 µs each: 1,024 cost ~7 ms).
 */
export const MAX_NEW_PER_REQUEST = 1024;
const NO_BYTES = Buffer.alloc(0);
/** JSON escape depths a recalled value is searched in (raw, in a string, in JSON text in a string, one more). */
const RECALL_DEPTHS = 4;

interface Entry {
  id: number;
  kind: number;
  value: string;
  bytes: number;
  placeholderBytes: Buffer;
  placeholderId: string;
  forms: Map<number, Buffer>;
  epoch: number;
  /** Gateway: the tenants whose requests carried it (the only ones it is restored to). */
  tenants: Set<string> | undefined;
}

/** Counters for logs and the report; never values. */
export interface StoreStats {
  entries: number;
  bytes: number;
  added: number;
  evicted: number;
  recalled: number;
}

export interface DetectedStore {
  /**
   * The secret index (negative, encoding the kind) of `value`, stored under its placeholder from `key`
   * (a gateway store: under its fingerprint, carried by `tenant`).
   */
  intern(value: string, kind: number, key: Uint8Array, tenant?: string): number;
  /** Secret index for a placeholder id (lowercase; a gateway store: a fingerprint), or -1. */
  secretForId(id: string): number;
  /** Gateway: records that `tenant`'s request carried the detected value (bounded per tenant). */
  grant(index: number, tenant: string): void;
  /** Gateway: whether `tenant`'s requests carried the detected value (false once evicted). */
  carriedBy(index: number, tenant: string): boolean;
  /** Gateway: the fingerprint of a detected value (undefined once evicted). */
  fingerprintOf(index: number): string | undefined;
  /** Placeholder bytes of a detected secret index (undefined once evicted). */
  placeholderBytes(index: number): Buffer | undefined;
  /** The value escaped for `depth` JSON string levels (undefined once evicted). */
  valueBytes(index: number, depth: number): Buffer | undefined;
  /** The recall automaton and, per pattern, the secret index; undefined when nothing is recalled. */
  recall(): { matcher: Matcher; secrets: Float64Array; lengths: Int32Array } | undefined;
  /** Whether a recalled value contains the code point. */
  recallUsesCodePoint(cp: number): boolean;
  stats(): StoreStats;
}

/**
 * Detected secret indices are -2 and below (-1 stays "no secret" for look-ups): -2 - (id × KIND_SLOTS +
 * kind), so the kind survives the entry's eviction and reports can still name it.
 */
export function kindOfSecret(index: number): number {
  return (-2 - index) % KIND_SLOTS;
}

export interface StoreOptions {
  maxEntries?: number;
  maxBytes?: number;
  /**
   * Gateway: values are stored under this fingerprint instead of a placeholder (each tenant's placeholder
   * is derived from it), and each remembers the tenants that carried it.
   */
  fingerprint?: (value: string) => string;
  /** Gateway: detected values one tenant may have restored at most (its oldest are forgotten for it first). */
  maxPerTenant?: number;
}

/** Default bound per gateway tenant: a sixteenth of the total, so no tenant crowds out the rest. */
export const DEFAULT_MAX_PER_TENANT = DEFAULT_MAX_ENTRIES / 16;

/** Tenants remembered per detected value (a value carried by more is restored only to the latest ones). */
export const MAX_TENANTS_PER_VALUE = 64;

/** Creates an empty store. */
export function createDetectedStore(options: StoreOptions = {}): DetectedStore {
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const fingerprint = options.fingerprint;
  const maxPerTenant = options.maxPerTenant ?? DEFAULT_MAX_PER_TENANT;
  /** Gateway: detected values each tenant holds a grant on, oldest first. */
  const perTenant = new Map<string, Set<Entry>>();
  const byValue = new Map<string, Entry>();
  const byId = new Map<number, Entry>();
  const byPlaceholder = new Map<string, Entry>();
  const recalled = new Map<string, Entry>();
  let nextId = 0;
  let bytes = 0;
  let added = 0;
  let evicted = 0;
  // Entries made in the current synchronous stretch (one request's redact, replace and gate) are not
  // evicted before it ends, so a hit found in a body still has its placeholder when it is replaced.
  let epoch = 0;
  let epochScheduled = false;
  let newInEpoch = 0;
  let recallCache: ReturnType<DetectedStore['recall']> | null = null;
  let recallChars = new Set<number>();

  const indexOf = (e: Entry): number => -2 - (e.id * KIND_SLOTS + e.kind);
  const entryOf = (index: number): Entry | undefined => byId.get(Math.floor((-2 - index) / KIND_SLOTS));

  const touch = (e: Entry): void => {
    byValue.delete(e.value);
    byValue.set(e.value, e);
  };

  const remove = (e: Entry): void => {
    byValue.delete(e.value);
    byId.delete(e.id);
    byPlaceholder.delete(e.placeholderId);
    if (recalled.delete(e.value)) recallCache = null;
    bytes -= e.bytes;
    evicted++;
    if (e.tenants !== undefined) {
      for (const t of e.tenants) {
        const held = perTenant.get(t);
        held?.delete(e);
        if (held?.size === 0) perTenant.delete(t);
      }
    }
  };

  const evict = (): void => {
    for (const e of byValue.values()) {
      if (byValue.size <= maxEntries && bytes <= maxBytes) return;
      if (e.epoch === epoch) return;
      remove(e);
    }
  };

  const grant = (e: Entry, tenant: string): void => {
    const tenants = (e.tenants ??= new Set());
    let held = perTenant.get(tenant);
    if (held === undefined) {
      held = new Set();
      perTenant.set(tenant, held);
    }
    if (tenants.has(tenant)) {
      // Most recently granted last: the per-tenant bound forgets the oldest first.
      held.delete(e);
      held.add(e);
      return;
    }
    tenants.add(tenant);
    held.add(e);
    if (tenants.size > MAX_TENANTS_PER_VALUE) {
      const oldest = tenants.values().next().value as string;
      tenants.delete(oldest);
      perTenant.get(oldest)?.delete(e);
    }
    while (held.size > maxPerTenant) {
      const old = held.values().next().value as Entry;
      held.delete(old);
      old.tenants?.delete(tenant);
      // A value no tenant may have restored any more is only a redaction target: drop it unless in use now.
      if (old.tenants?.size === 0 && old.epoch !== epoch) remove(old);
    }
  };

  const nextEpoch = (): void => {
    epochScheduled = false;
    epoch++;
    newInEpoch = 0;
    evict();
  };

  return {
    intern(value, kind, key, tenant) {
      if (!epochScheduled) {
        epochScheduled = true;
        queueMicrotask(nextEpoch);
      }
      const known = byValue.get(value);
      if (known !== undefined) {
        known.epoch = epoch;
        touch(known);
        if (tenant !== undefined) grant(known, tenant);
        return indexOf(known);
      }
      if (++newInEpoch > MAX_NEW_PER_REQUEST) {
        throw new FictaError('FICTA_LEAK_BLOCKED', `request blocked: more than ${MAX_NEW_PER_REQUEST} distinct credentials detected in one request; nothing was sent`);
      }
      const placeholder = fingerprint === undefined ? derivePlaceholder(key, value) : undefined;
      const e: Entry = {
        id: nextId++,
        kind,
        value,
        bytes: Buffer.byteLength(value, 'utf8'),
        placeholderBytes: placeholder === undefined ? NO_BYTES : Buffer.from(placeholder, 'latin1'),
        placeholderId: placeholder === undefined ? (fingerprint as (v: string) => string)(value) : placeholderId(placeholder),
        forms: new Map(),
        epoch,
        tenants: undefined,
      };
      byValue.set(value, e);
      byId.set(e.id, e);
      byPlaceholder.set(e.placeholderId, e);
      bytes += e.bytes;
      added++;
      if (KINDS[kind]?.recall === true && [...value].length >= MIN_RECALL_LENGTH) {
        recalled.set(value, e);
        if (recalled.size > MAX_RECALLED) recalled.delete(recalled.keys().next().value as string);
        recallCache = null;
      }
      if (tenant !== undefined) grant(e, tenant);
      evict();
      return indexOf(e);
    },
    grant(index, tenant) {
      const e = entryOf(index);
      if (e !== undefined) grant(e, tenant);
    },
    carriedBy: (index, tenant) => entryOf(index)?.tenants?.has(tenant) === true,
    fingerprintOf: (index) => (fingerprint === undefined ? undefined : entryOf(index)?.placeholderId),
    secretForId(id) {
      const e = byPlaceholder.get(id);
      if (e === undefined) return -1;
      touch(e);
      return indexOf(e);
    },
    placeholderBytes: (index) => entryOf(index)?.placeholderBytes,
    valueBytes(index, depth) {
      const e = entryOf(index);
      if (e === undefined) return undefined;
      let b = e.forms.get(depth);
      if (b === undefined) {
        b = Buffer.from(jsonEscapeDepth(e.value, depth), 'utf8');
        e.forms.set(depth, b);
      }
      return b;
    },
    recall() {
      if (recallCache !== null) return recallCache;
      if (recalled.size === 0) {
        recallCache = undefined;
        recallChars = new Set();
        return undefined;
      }
      const patterns: Buffer[] = [];
      const secrets: number[] = [];
      recallChars = new Set();
      for (const e of recalled.values()) {
        const seen = new Set<string>();
        for (let d = 0; d < RECALL_DEPTHS; d++) {
          const form = jsonEscapeDepth(e.value, d);
          if (seen.has(form)) continue;
          seen.add(form);
          patterns.push(Buffer.from(form, 'utf8'));
          secrets.push(indexOf(e));
        }
        for (const ch of e.value) recallChars.add(ch.codePointAt(0) as number);
      }
      recallCache = { matcher: createMatcher(patterns), secrets: Float64Array.from(secrets), lengths: Int32Array.from(patterns.map((p) => p.length)) };
      return recallCache;
    },
    recallUsesCodePoint(cp) {
      if (recallCache === null) this.recall();
      return recallChars.has(cp);
    },
    stats: () => ({ entries: byValue.size, bytes, added, evicted, recalled: recalled.size }),
  };
}
