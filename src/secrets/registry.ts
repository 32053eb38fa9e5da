// The secret registry: merges every source into one compiled SecretSet and swaps it atomically when a
// source changes, so each request works on one complete snapshot. When a source fails (a locked vault),
// the snapshot becomes unavailable and requests fail closed.

import { FictaError } from '../errors.ts';
import { termProblem, type TermInput } from '../detect/terms.ts';
import { buildSecretSet, type Detection, type SecretSet, type TenantScheme } from '../redact/secret-set.ts';
import { err, ok, type Result } from '../util/result.ts';
import { nextTask, runSteps, runStepsSliced, STEP_EVERY, type Steps } from '../util/steps.ts';
import { MIN_SECRET_LENGTH, type PlaceholderKeyProvider, type SecretEntry, type SecretSource } from './types.ts';

export type SecretSnapshot =
  | { kind: 'ready'; set: SecretSet; version: number }
  | { kind: 'unavailable'; error: FictaError; version: number };

export interface SkippedSecret {
  name: string;
  source: string;
  reason: 'too-short' | 'empty';
}

export interface SecretRegistry {
  /** The snapshot to use for one request. */
  current(): SecretSnapshot;
  /** Loads every source again and swaps in the result. */
  reload(): Promise<SecretSnapshot>;
  /** Stops watching the sources. */
  close(): Promise<void>;
}

export interface RegistryOptions {
  sources: readonly SecretSource[];
  keyProvider: PlaceholderKeyProvider;
  /** Told about every entry refused for being shorter than MIN_SECRET_LENGTH or empty (names only). */
  onSkipped?: (skipped: SkippedSecret[]) => void;
  /** Told after each successful load. */
  onLoaded?: (info: { count: number; version: number; buildMs: number }) => void;
  /** Told when a reload fails. */
  onError?: (error: FictaError) => void;
  /** Detection (anchors, grammars and the process-wide store of detected values), when on. */
  detection?: Detection;
  /**
   * Detection for the terms the sources hold (vault records added with `--term`), called at each load
   * instead of `detection` when given: the terms join the detector, the store stays the same.
   */
  detectionFor?: (terms: readonly TermInput[]) => Detection | undefined;
  /** Gateway: sets are built for tenant views (fingerprints, entitlement) under this scheme. */
  scheme?: TenantScheme;
  /** Reloads build the automaton in a worker and the rest in short slices (the first load builds in place). */
  offThread?: boolean;
}

/** Longest stretch of a reload's work on the request thread before it gives the event loop back. */
const SLICE_MS = 4;

/** Splits entries into usable ones and refused ones (too short or empty). */
export function filterEntries(entries: readonly SecretEntry[]): { kept: SecretEntry[]; skipped: SkippedSecret[] } {
  return runSteps(sortEntries(entries, false));
}

/**
 * Splits entries into usable secrets, refused ones (too short or empty) and, with `terms`, the terms
 * (vault records added with `--term`, matched by detection rather than as exact values), as steps.
 */
function* sortEntries(entries: readonly SecretEntry[], withTerms: boolean): Steps<{ kept: SecretEntry[]; skipped: SkippedSecret[]; terms: TermInput[] }> {
  const kept: SecretEntry[] = [];
  const skipped: SkippedSecret[] = [];
  const terms: TermInput[] = [];
  for (let i = 0; i < entries.length; i++) {
    if (i % STEP_EVERY === STEP_EVERY - 1) yield;
    const e = entries[i] as SecretEntry;
    if (withTerms && e.term === true) {
      if (termProblem(e) === undefined) terms.push({ name: e.name, value: e.value });
      else skipped.push({ name: e.name, source: e.source, reason: e.value.length === 0 ? 'empty' : 'too-short' });
    } else if (e.value.length === 0) skipped.push({ name: e.name, source: e.source, reason: 'empty' });
    // A string of 2 × MIN UTF-16 units holds at least MIN code points: spread only the short ones.
    else if (e.value.length < 2 * MIN_SECRET_LENGTH && [...e.value].length < MIN_SECRET_LENGTH) skipped.push({ name: e.name, source: e.source, reason: 'too-short' });
    else kept.push(e);
  }
  return { kept, skipped, terms };
}

/** Loads every source once; the first failure fails the whole load. */
export async function loadAll(sources: readonly SecretSource[]): Promise<Result<SecretEntry[]>> {
  const all: SecretEntry[] = [];
  for (const s of sources) {
    const r = await s.load();
    if (!r.ok) return r;
    for (const e of r.value) all.push(e); // not a spread: a source may hold more entries than a call takes arguments
  }
  return ok(all);
}

/** Creates the registry and performs the first load; a failing first load is an error. */
export async function createSecretRegistry(options: RegistryOptions): Promise<Result<SecretRegistry>> {
  let version = 0;
  let snapshot: SecretSnapshot;
  let reloading: Promise<SecretSnapshot> | undefined;
  let again = false;

  let loads = 0;
  /** `compile`: compile the set's automaton now (a reload, off the request path) rather than on first use. */
  const build = async (compile: boolean): Promise<SecretSnapshot> => {
    const started = performance.now();
    // Reloads of a gateway: off the request path (the first load builds in place, before serving).
    const offThread = options.offThread === true && loads++ > 0;
    const key = await options.keyProvider.getKey();
    if (!key.ok) return { kind: 'unavailable', error: key.error, version: ++version };
    const loaded = await loadAll(options.sources);
    if (!loaded.ok) return { kind: 'unavailable', error: loaded.error, version: ++version };
    // A reload built off the request path gives the event loop back between its phases: a source's load
    // resolves in microtasks, so reading, filtering and the first build slices would otherwise run as one
    // stretch (~30–50 ms with 10,000 values).
    if (offThread) await nextTask();
    const sorted = sortEntries(loaded.value, true);
    const { kept, skipped, terms: usable } = offThread ? await runStepsSliced(sorted, SLICE_MS) : runSteps(sorted);
    if (skipped.length > 0) options.onSkipped?.(skipped);
    if (offThread) await nextTask();
    let detection = options.detection;
    if (options.detectionFor !== undefined) {
      try {
        detection = options.detectionFor(usable);
      } catch (cause) {
        return { kind: 'unavailable', error: new FictaError('FICTA_SECRETS_INVALID', 'secrets: the terms could not be compiled', { cause }), version: ++version };
      }
    }
    const set =
      offThread
        ? await (await import('../redact/matcher-thread.ts')).buildSecretSetOffThread(kept, key.value, detection, options.scheme)
        : buildSecretSet(kept, key.value, detection, options.scheme);
    if (compile) void set.matcher;
    const next: SecretSnapshot = { kind: 'ready', set, version: ++version };
    options.onLoaded?.({ count: set.size, version: next.version, buildMs: performance.now() - started });
    return next;
  };

  // The first set's automaton is compiled by whoever starts serving (createFicta's listen, after the ready line).
  const first = await build(false);
  if (first.kind === 'unavailable') return err(first.error);
  snapshot = first;

  const reload = async (): Promise<SecretSnapshot> => {
    if (reloading !== undefined) {
      // Coalesce: one more load after the one in flight picks up every change made meanwhile.
      again = true;
      return reloading;
    }
    reloading = (async () => {
      let result: SecretSnapshot;
      do {
        again = false;
        result = await build(true);
        snapshot = result;
        if (result.kind === 'unavailable') options.onError?.(result.error);
      } while (again);
      return result;
    })();
    try {
      return await reloading;
    } finally {
      reloading = undefined;
    }
  };

  const unsubscribers = options.sources.map((s) => s.watch?.(() => void reload()));

  return ok({
    current: () => snapshot,
    reload,
    async close() {
      for (const u of unsubscribers) u?.();
      for (const s of options.sources) await s.close?.();
    },
  });
}

/** The FictaError for requests made while the registry is unavailable. */
export function unavailableError(snapshot: Extract<SecretSnapshot, { kind: 'unavailable' }>): FictaError {
  return new FictaError('FICTA_VAULT_UNAVAILABLE', `secrets: unavailable, refusing to forward (${snapshot.error.message})`, { status: 503 });
}

