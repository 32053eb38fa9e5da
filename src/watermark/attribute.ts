// Attribution of a leaked text: blind decode of the in-band mark, fingerprint candidates from the
// registry, and per candidate a verdict that observed symbols can confirm or contradict.

import { compareSymbols, detectMarks, type Detection } from './detect.ts';
import { fingerprintText } from './fingerprint.ts';
import type { WatermarkKeys } from './key.ts';
import { rsEncode } from './reed-solomon.ts';
import type { Registry, Sighting } from './registry.ts';

/**
 * A candidate counts as a textual match only with at least this many shared keyed fingerprints: about
 * 8 × 16 = 130 normalised characters of common text. Coincidental collisions of 53-bit PRF values are
 * ~q·d·2^-53 per pair of sets; needing eight of them makes a chance match negligible.
 */
export const MIN_SHARED_FINGERPRINTS = 8;
/** …and at least this share of the query's fingerprints (excerpts score ~1, a quoted paragraph low). */
export const MIN_CONTAINMENT = 0.3;
/**
 * Distinct observed symbols that must agree (with none disagreeing) to confirm a session in-band. A wrong
 * session's codeword symbols are uniform and independent on any ≤ 8 indices (MDS + PRF marks), so it
 * passes with probability 2^(−8·agree) ≤ 2^−24 ≈ 6·10^−8.
 */
export const MIN_CONFIRMING_SYMBOLS = 3;
/** Candidates read from the registry, most shared fingerprints first. */
const MAX_CANDIDATES = 50;
const SIGHTINGS_SHOWN = 5;

export type Verdict = 'confirmed' | 'match' | 'contradicted' | 'weak';

export interface Candidate {
  sessionId: string;
  verdict: Verdict;
  /** 0–1. Confirmed: 1 − the false-match bound. Match: textual evidence shared among sessions that sent the same text. */
  confidence: number;
  evidence: {
    sharedFingerprints: number;
    queryFingerprints: number;
    /** Share of the query's fingerprints found in this document. */
    containment: number;
    /** Share of this document's fingerprints found in the query. */
    coverage: number;
    symbolsAgreeing: number;
    symbolsDisagreeing: number;
    /** The blind-decoded mark is this session's mark. */
    markDecoded: boolean;
    /** Upper bound on the chance that a wrong session shows this symbol agreement. */
    falseMatchBound: number;
  };
  document?: { id: number; bytes: number; frames: number; firstSeen: string; lastSeen: string };
  requests: { total: number; latest: Array<Omit<Sighting, 'time'> & { time: string }> };
}

export interface Attribution {
  frames: number;
  rejectedFrames: number;
  symbols: Array<{ index: number; values: number[] }>;
  /** Hex of the blind-decoded mark, with the sessions the registry has for it. */
  blind?: { mark: string; agreeing: number; observed: number; sessions: string[] };
  queryFingerprints: number;
  candidates: Candidate[];
}

/** Attributes `text` using the registry and the watermark keys. */
export function attributeText(text: string, registry: Registry, keys: WatermarkKeys): Attribution {
  const detection = detectMarks(text);
  const fps = fingerprintText(text, keys);
  const blindSessions = detection.decoded === undefined ? [] : registry.sessionsByMark(detection.decoded.mark);
  const candidates: Candidate[] = [];
  const seenSessions = new Set<string>();

  const rows = fps.length === 0 ? [] : registry.candidates(fps, MAX_CANDIDATES);
  const docs = rows.map((r) => ({ ...r, info: registry.document(r.docId) })).filter((r) => r.info !== undefined);
  // Sessions that sent the very same text share the textual evidence.
  const sendersOfText = new Map<string, number>();
  for (const d of docs) sendersOfText.set(d.info!.docHash, (sendersOfText.get(d.info!.docHash) ?? 0) + 1);

  for (const { shared, info } of docs) {
    const doc = info!;
    const symbols = symbolEvidence(detection, registry, keys, doc.sessionId, blindSessions);
    const containment = shared / fps.length;
    const coverage = doc.fingerprints === 0 ? 0 : shared / doc.fingerprints;
    const textual = shared >= MIN_SHARED_FINGERPRINTS && containment >= MIN_CONTAINMENT;
    const verdict = decide(textual, symbols);
    const sightings = registry.sightings(doc.id, SIGHTINGS_SHOWN);
    seenSessions.add(doc.sessionId);
    candidates.push({
      sessionId: doc.sessionId,
      verdict,
      confidence: confidenceOf(verdict, symbols.bound, containment, sendersOfText.get(doc.docHash) ?? 1),
      evidence: {
        sharedFingerprints: shared,
        queryFingerprints: fps.length,
        containment: round(containment),
        coverage: round(coverage),
        symbolsAgreeing: symbols.agree,
        symbolsDisagreeing: symbols.disagree,
        markDecoded: symbols.markDecoded,
        falseMatchBound: symbols.bound,
      },
      document: { id: doc.id, bytes: doc.bytes, frames: doc.frames, firstSeen: iso(doc.firstSeen), lastSeen: iso(doc.lastSeen) },
      requests: { total: sightings.total, latest: sightings.latest.map((s) => ({ ...s, time: iso(s.time) })) },
    });
  }
  // A decoded mark names a session even when its document's fingerprints are gone (purged, or a
  // text below the threshold that was marked by hand).
  for (const sessionId of blindSessions) {
    if (seenSessions.has(sessionId)) continue;
    const symbols = symbolEvidence(detection, registry, keys, sessionId, blindSessions);
    candidates.push({
      sessionId,
      verdict: 'confirmed',
      confidence: confidenceOf('confirmed', symbols.bound, 0, 1),
      evidence: {
        sharedFingerprints: 0,
        queryFingerprints: fps.length,
        containment: 0,
        coverage: 0,
        symbolsAgreeing: symbols.agree,
        symbolsDisagreeing: symbols.disagree,
        markDecoded: true,
        falseMatchBound: symbols.bound,
      },
      requests: { total: 0, latest: [] },
    });
  }
  const rank: Record<Verdict, number> = { confirmed: 0, match: 1, weak: 2, contradicted: 3 };
  candidates.sort((a, b) => rank[a.verdict] - rank[b.verdict] || b.confidence - a.confidence || b.evidence.sharedFingerprints - a.evidence.sharedFingerprints);

  const result: Attribution = {
    frames: detection.frames.length,
    rejectedFrames: detection.rejected,
    symbols: [...detection.symbols].sort((a, b) => a[0] - b[0]).map(([index, values]) => ({ index, values: [...values] })),
    queryFingerprints: fps.length,
    candidates,
  };
  if (detection.decoded !== undefined) {
    result.blind = {
      mark: Buffer.from(detection.decoded.mark).toString('hex'),
      agreeing: detection.decoded.agreeing,
      observed: detection.decoded.observed,
      sessions: blindSessions,
    };
  }
  return result;
}

interface SymbolEvidence {
  agree: number;
  disagree: number;
  markDecoded: boolean;
  bound: number;
}

function symbolEvidence(detection: Detection, registry: Registry, keys: WatermarkKeys, sessionId: string, blindSessions: readonly string[]): SymbolEvidence {
  const mark = registry.sessionMark(sessionId) ?? keys.sessionMark(sessionId);
  const { agree, disagree } = compareSymbols(detection.symbols, rsEncode(mark));
  const markDecoded = blindSessions.includes(sessionId);
  // Blind decode: a wrong session's 64-bit mark equals the decoded one with probability 2^-64.
  const bound = markDecoded ? 2 ** -64 : agree > 0 && disagree === 0 ? 2 ** (-8 * Math.min(agree, 8)) : 1;
  return { agree, disagree, markDecoded, bound };
}

function decide(textual: boolean, s: SymbolEvidence): Verdict {
  if (s.markDecoded) return 'confirmed';
  if (s.disagree > 0 && s.agree === 0) return 'contradicted';
  if (s.agree >= MIN_CONFIRMING_SYMBOLS && s.disagree === 0) return textual ? 'confirmed' : 'weak';
  return textual ? 'match' : 'weak';
}

function confidenceOf(verdict: Verdict, bound: number, containment: number, senders: number): number {
  if (verdict === 'confirmed') return 1 - bound;
  if (verdict === 'match') return round((0.9 * Math.min(1, containment / 0.6)) / senders);
  return 0;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
